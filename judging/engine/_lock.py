"""One run at a time per run folder.

Two processes writing one run folder would both call the models for the same pending trials
(paying twice) and race on the summary. A run holds an exclusive ``flock`` on a file in its
folder for as long as it runs; a second run on the folder is refused at once with the holder's
pid. The kernel drops the lock when its holder dies however it dies (SIGKILL, OOM, power off
of a container), so a crashed run never blocks the next one: the file may stay behind, the
lock does not. The file is never deleted, because removing a lock file while another process
waits to lock it lets two processes lock two different files.
"""

from __future__ import annotations

import fcntl
import os
import weakref
from pathlib import Path
from types import TracebackType

__all__ = ["EXIT_RUN_FOLDER_BUSY", "LOCK_FILE", "RunFolderBusyError", "RunFolderLock"]

LOCK_FILE = ".fairpanel.lock"
EXIT_RUN_FOLDER_BUSY = 3
"""The CLI's exit code when another process holds the run folder."""


class RunFolderBusyError(RuntimeError):
    """Another live process is running in this run folder."""


class RunFolderLock:
    """An exclusive, non-blocking lock on ``run_dir`` (``acquire`` raises if it is taken)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> RunFolderLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise RunFolderBusyError(
                f"{self.path.parent} is in use by another fairpanel run (pid {holder}); wait "
                "for it to finish or stop it, or give this run another --out folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self._fd = fd
        # Released with the object if an error skips release(); the OS releases it on exit.
        self._finalizer = weakref.finalize(self, os.close, fd)
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        self._fd = None
        self._finalizer()

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RunFolderLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
