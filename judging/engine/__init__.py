"""The engine: runs trials into a run folder's store, with locks, costs, failures and estimates.

The panel runner (``run_experiment``) and the study runner (``fairpanel.studies.run_study``)
share its session (credentials, lock, provenance, store), worker loop and usage accounting.
``load_frames`` counts each unit once; ``response_warnings`` says which scenarios' two
responses were (nearly) the same and what that did to the trials."""

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
from fairpanel.judging.engine._failures import RESPONDER_FAILED, failure_reason
from fairpanel.judging.engine._frames import RunFrames, duplicate_trials_of, load_frames
from fairpanel.judging.engine._injection_frame import injection_robustness
from fairpanel.judging.engine._lock import EXIT_RUN_FOLDER_BUSY, RunFolderBusyError, RunFolderLock
from fairpanel.judging.engine._manipulation_frame import (
    MANIPULATION_FRAME_COLUMNS,
    manipulation_frame,
)
from fairpanel.judging.engine._provenance import MANIFEST_FILE, RESOLVED_CONFIG_FILE, environment
from fairpanel.judging.engine._pulse import PulseHook, RunPulse, metered
from fairpanel.judging.engine._runner import Design, RunSummary, design_of, run_experiment
from fairpanel.judging.engine._served import (
    ServedModel,
    ServedValue,
    served_model_changes,
    served_models,
)
from fairpanel.judging.engine._session import ModelRole, RunSession, open_run_session
from fairpanel.judging.engine._similar_responses import (
    NEAR_IDENTICAL_RATIO,
    SimilarResponses,
    response_warnings,
    similar_responses,
)
from fairpanel.judging.engine._store import STORE_FILE, STORE_SCHEMA_VERSION, Store, StudyItemRecord
from fairpanel.judging.engine._transcripts import TranscriptColumns, read_transcripts
from fairpanel.judging.engine._trial_pack import trial_design
from fairpanel.judging.engine._turn_pack import name_id, packed_codes, packed_numbers
from fairpanel.judging.engine._workers import ProgressHook, run_workers

__all__ = [
    "EXIT_RUN_FOLDER_BUSY",
    "EXPORT_COLUMNS",
    "MANIFEST_FILE",
    "MANIPULATION_FRAME_COLUMNS",
    "NEAR_IDENTICAL_RATIO",
    "RESOLVED_CONFIG_FILE",
    "RESPONDER_FAILED",
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "Design",
    "Estimate",
    "ExportColumn",
    "ExportFormat",
    "ModelRole",
    "ProgressHook",
    "PulseHook",
    "RunFolderBusyError",
    "RunFolderLock",
    "RunFrames",
    "RunPulse",
    "RunSession",
    "RunSummary",
    "ServedModel",
    "ServedValue",
    "SimilarResponses",
    "Store",
    "StudyItemRecord",
    "TranscriptColumns",
    "cost_by_role",
    "cost_of",
    "design_of",
    "duplicate_trials_of",
    "environment",
    "estimate",
    "export_frame",
    "failure_reason",
    "injection_robustness",
    "load_frames",
    "manipulation_frame",
    "metered",
    "name_id",
    "open_run_session",
    "packed_codes",
    "packed_numbers",
    "read_export",
    "read_transcripts",
    "response_warnings",
    "run_experiment",
    "run_workers",
    "served_model_changes",
    "served_models",
    "similar_responses",
    "trial_design",
    "write_export",
]
