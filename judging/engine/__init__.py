"""The run side: runs trials into a run folder's store, with locks, costs, failures and estimates.

The panel runner (``run_experiment``) and the study runner (``fairpanel.studies.run_study``)
share its session (credentials, lock, provenance, store), worker loop and usage accounting; batch
mode, rewrites and the responder run here too. What reads a run back is ``judging.store``.
"""

from fairpanel.judging.engine._batch_mode import (
    BatchMode,
    is_batched,
)
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
from fairpanel.judging.engine._runner import (
    Design,
    RunSummary,
    design_of,
    run_experiment,
)
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
from fairpanel.judging.store import cost_by_role, cost_of

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
