"""The engine: runs trials into a run folder's store, with locks, costs, failures and estimates.

The panel runner (``run_experiment``) and the study runner (``fairpanel.studies.run_study``)
share its session (credentials, lock, provenance, store), worker loop and usage accounting.
"""

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
from fairpanel.judging.engine._provenance import (
    MANIFEST_FILE,
    RESOLVED_CONFIG_FILE,
    environment,
    write_provenance,
)
from fairpanel.judging.engine._runner import Design, RunSummary, design_of, run_experiment
from fairpanel.judging.engine._session import (
    ModelRole,
    RunSession,
    open_run_session,
    unsupported_settings,
)
from fairpanel.judging.engine._store import STORE_FILE, STORE_SCHEMA_VERSION, Store, StudyItemRecord
from fairpanel.judging.engine._usage import RunUsage, cached_share, run_usage, usage_by_role
from fairpanel.judging.engine._workers import (
    FinishedRecord,
    ProgressHook,
    WorkOutcome,
    run_workers,
)

__all__ = [
    "EXIT_RUN_FOLDER_BUSY",
    "EXPORT_COLUMNS",
    "FAILURE_REASONS",
    "LOCK_FILE",
    "MANIFEST_FILE",
    "RESOLVED_CONFIG_FILE",
    "RESPONDER_FAILED",
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "Design",
    "Estimate",
    "ExportColumn",
    "ExportFormat",
    "FinishedRecord",
    "ModelRole",
    "ProgressHook",
    "RunFolderBusyError",
    "RunFolderLock",
    "RunFrames",
    "RunSession",
    "RunSummary",
    "RunUsage",
    "Store",
    "StudyItemRecord",
    "WorkOutcome",
    "cached_share",
    "cost_by_role",
    "cost_of",
    "design_of",
    "environment",
    "estimate",
    "export_frame",
    "failure_reason",
    "injection_frame",
    "injection_robustness",
    "load_frames",
    "open_run_session",
    "read_export",
    "responder_failed",
    "run_experiment",
    "run_usage",
    "run_workers",
    "unsupported_settings",
    "usage_by_role",
    "write_export",
    "write_provenance",
]
