"""The engine: runs trials into a run folder's store, with locks, costs, failures and estimates."""

from fairpanel.judging.engine._cost import cost_by_role, cost_of
from fairpanel.judging.engine._estimate import Estimate, estimate
from fairpanel.judging.engine._export import (
    EXPORT_COLUMNS,
    ExportColumn,
    ExportFormat,
    export_frame,
    read_export,
    write_export,
)
from fairpanel.judging.engine._failures import (
    FAILURE_REASONS,
    RESPONDER_FAILED,
    failure_reason,
    responder_failed,
)
from fairpanel.judging.engine._frames import RunFrames, load_frames
from fairpanel.judging.engine._injection_frame import injection_frame, injection_robustness
from fairpanel.judging.engine._lock import (
    EXIT_RUN_FOLDER_BUSY,
    LOCK_FILE,
    RunFolderBusyError,
    RunFolderLock,
)
from fairpanel.judging.engine._runner import Design, RunSummary, design_of, run_experiment
from fairpanel.judging.engine._store import STORE_FILE, STORE_SCHEMA_VERSION, Store, StudyItemRecord

__all__ = [
    "EXIT_RUN_FOLDER_BUSY",
    "EXPORT_COLUMNS",
    "FAILURE_REASONS",
    "LOCK_FILE",
    "RESPONDER_FAILED",
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "Design",
    "Estimate",
    "ExportColumn",
    "ExportFormat",
    "RunFolderBusyError",
    "RunFolderLock",
    "RunFrames",
    "RunSummary",
    "Store",
    "StudyItemRecord",
    "cost_by_role",
    "cost_of",
    "design_of",
    "estimate",
    "export_frame",
    "failure_reason",
    "injection_frame",
    "injection_robustness",
    "load_frames",
    "read_export",
    "responder_failed",
    "run_experiment",
    "write_export",
]
