"""The run side: runs trials into a run folder's store, with locks, costs, failures and estimates.

The panel runner (``run_experiment``) and the study runner (``fairpanel.studies.run_study``)
share its session (credentials, lock, provenance, store), worker loop and usage accounting; batch
mode, rewrites and the responder run here too. What reads a run back is ``judging.store``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.judging.engine._batch_mode import BatchMode, is_batched
    from fairpanel.judging.engine._design import Design, design_of
    from fairpanel.judging.engine._estimate import (
        Estimate,
        batch_plan_of,
        estimate,
    )
    from fairpanel.judging.engine._failures import (
        RESPONDER_FAILED,
        failure_reason,
    )
    from fairpanel.judging.engine._lock import (
        EXIT_RUN_FOLDER_BUSY,
        RunFolderBusyError,
        RunFolderLock,
    )
    from fairpanel.judging.engine._pulse import (
        PulseHook,
        RunPulse,
        metered,
        run_metered,
    )
    from fairpanel.judging.engine._runner import RunSummary, run_experiment
    from fairpanel.judging.engine._session import (
        ModelRole,
        RunSession,
        open_run_session,
    )
    from fairpanel.judging.engine._usage import RunTotals
    from fairpanel.judging.engine._workers import (
        ProgressHook,
        run_workers,
    )
    from fairpanel.judging.store._cost import cost_by_role, cost_of


__all__ = [
    "EXIT_RUN_FOLDER_BUSY",
    "RESPONDER_FAILED",
    "BatchMode",
    "Design",
    "Estimate",
    "ModelRole",
    "ProgressHook",
    "PulseHook",
    "RunFolderBusyError",
    "RunFolderLock",
    "RunPulse",
    "RunSession",
    "RunSummary",
    "RunTotals",
    "batch_plan_of",
    "cost_by_role",
    "cost_of",
    "design_of",
    "estimate",
    "failure_reason",
    "is_batched",
    "metered",
    "open_run_session",
    "run_experiment",
    "run_metered",
    "run_workers",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "Estimate",
            "estimate",
        ),
        "fairpanel.judging.engine._estimate",
    ),
    **dict.fromkeys(
        (
            "RESPONDER_FAILED",
            "failure_reason",
        ),
        "fairpanel.judging.engine._failures",
    ),
    **dict.fromkeys(
        (
            "EXIT_RUN_FOLDER_BUSY",
            "RunFolderBusyError",
            "RunFolderLock",
        ),
        "fairpanel.judging.engine._lock",
    ),
    **dict.fromkeys(
        (
            "PulseHook",
            "RunPulse",
            "metered",
            "run_metered",
        ),
        "fairpanel.judging.engine._pulse",
    ),
    **dict.fromkeys(
        (
            "Design",
            "design_of",
        ),
        "fairpanel.judging.engine._design",
    ),
    **dict.fromkeys(
        (
            "RunSummary",
            "run_experiment",
        ),
        "fairpanel.judging.engine._runner",
    ),
    **dict.fromkeys(
        (
            "ModelRole",
            "RunSession",
            "open_run_session",
        ),
        "fairpanel.judging.engine._session",
    ),
    **dict.fromkeys(
        ("RunTotals",),
        "fairpanel.judging.engine._usage",
    ),
    **dict.fromkeys(
        (
            "ProgressHook",
            "run_workers",
        ),
        "fairpanel.judging.engine._workers",
    ),
    "batch_plan_of": "fairpanel.judging.engine._estimate",
    "BatchMode": "fairpanel.judging.engine._batch_mode",
    "is_batched": "fairpanel.judging.engine._batch_mode",
    "cost_of": "fairpanel.judging.store._cost",
    "cost_by_role": "fairpanel.judging.store._cost",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
