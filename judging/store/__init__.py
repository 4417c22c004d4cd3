"""The read side of a run: its SQLite store and everything that reads it back.

The store (calls, responses, trials, turns, batches, study items; schema and migrations), the
frames the analysis reads (``load_frames``, each unit counted once), the manipulated and injected
twins' frames, transcripts, the flat export, what the servers said they ran, and the run folder's
JSON files (provenance, summary), read once by ``RunFiles`` for every step of a report. The
report and the viewer import this and never the engine (the run side).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.judging.store._cost import cost_by_role, cost_of
    from fairpanel.judging.store._export import (
        EXPORT_COLUMNS,
        ExportColumn,
        ExportFormat,
        export_frame,
        read_export,
        write_export,
    )
    from fairpanel.judging.store._frames import (
        CONSENSUS_FRAME_COLUMNS,
        SCORE_FRAME_COLUMNS,
        TURN_FRAME_COLUMNS,
        VERDICT_FRAME_COLUMNS,
        RunFrames,
        duplicate_trials_of,
        load_frames,
    )
    from fairpanel.judging.store._injection_frame import (
        injection_robustness,
    )
    from fairpanel.judging.store._manipulation_frame import (
        MANIPULATION_FRAME_COLUMNS,
        manipulation_frame,
    )
    from fairpanel.judging.store._provenance import (
        MANIFEST_FILE,
        RESOLVED_CONFIG_FILE,
        environment,
        write_provenance,
    )
    from fairpanel.judging.store._replica_store import NOT_RECORDED, ReplicaRecords, quantile
    from fairpanel.judging.store._run_files import (
        SUMMARY_FILE,
        BadRunFolderError,
        RunFiles,
        read_run_json,
    )
    from fairpanel.judging.store._run_status import EXIT_PENDING, BatchView, RunStatus, run_status
    from fairpanel.judging.store._served import (
        ServedModel,
        ServedValue,
        record_served,
        served_model_changes,
        served_models,
    )
    from fairpanel.judging.store._similar_responses import (
        NEAR_IDENTICAL_RATIO,
        SimilarResponses,
        report_similar_responses,
        response_warnings,
        similar_responses,
    )
    from fairpanel.judging.store._store import (
        STORE_FILE,
        STORE_SCHEMA_VERSION,
        Store,
        StudyItemRecord,
    )
    from fairpanel.judging.store._transcripts import (
        TranscriptColumns,
        read_transcripts,
    )
    from fairpanel.judging.store._trial_pack import (
        trial_design,
    )
    from fairpanel.judging.store._turn_pack import (
        name_id,
        packed_codes,
        packed_numbers,
    )


__all__ = [
    "CONSENSUS_FRAME_COLUMNS",
    "EXIT_PENDING",
    "EXPORT_COLUMNS",
    "MANIFEST_FILE",
    "MANIPULATION_FRAME_COLUMNS",
    "NEAR_IDENTICAL_RATIO",
    "NOT_RECORDED",
    "RESOLVED_CONFIG_FILE",
    "SCORE_FRAME_COLUMNS",
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "SUMMARY_FILE",
    "TURN_FRAME_COLUMNS",
    "VERDICT_FRAME_COLUMNS",
    "BadRunFolderError",
    "BatchView",
    "ExportColumn",
    "ExportFormat",
    "ReplicaRecords",
    "RunFiles",
    "RunFrames",
    "RunStatus",
    "ServedModel",
    "ServedValue",
    "SimilarResponses",
    "Store",
    "StudyItemRecord",
    "TranscriptColumns",
    "cost_by_role",
    "cost_of",
    "duplicate_trials_of",
    "environment",
    "export_frame",
    "injection_robustness",
    "load_frames",
    "manipulation_frame",
    "name_id",
    "packed_codes",
    "packed_numbers",
    "quantile",
    "read_export",
    "read_run_json",
    "read_transcripts",
    "record_served",
    "report_similar_responses",
    "response_warnings",
    "run_status",
    "served_model_changes",
    "served_models",
    "similar_responses",
    "trial_design",
    "write_export",
    "write_provenance",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "EXPORT_COLUMNS",
            "ExportColumn",
            "ExportFormat",
            "export_frame",
            "read_export",
            "write_export",
        ),
        "fairpanel.judging.store._export",
    ),
    **dict.fromkeys(
        (
            "CONSENSUS_FRAME_COLUMNS",
            "SCORE_FRAME_COLUMNS",
            "TURN_FRAME_COLUMNS",
            "VERDICT_FRAME_COLUMNS",
            "RunFrames",
            "duplicate_trials_of",
            "load_frames",
        ),
        "fairpanel.judging.store._frames",
    ),
    **dict.fromkeys(
        ("injection_robustness",),
        "fairpanel.judging.store._injection_frame",
    ),
    **dict.fromkeys(
        (
            "MANIPULATION_FRAME_COLUMNS",
            "manipulation_frame",
        ),
        "fairpanel.judging.store._manipulation_frame",
    ),
    **dict.fromkeys(
        (
            "MANIFEST_FILE",
            "RESOLVED_CONFIG_FILE",
            "environment",
            "write_provenance",
        ),
        "fairpanel.judging.store._provenance",
    ),
    **dict.fromkeys(
        (
            "SUMMARY_FILE",
            "BadRunFolderError",
            "RunFiles",
            "read_run_json",
        ),
        "fairpanel.judging.store._run_files",
    ),
    **dict.fromkeys(
        (
            "ServedModel",
            "ServedValue",
            "record_served",
            "served_model_changes",
            "served_models",
        ),
        "fairpanel.judging.store._served",
    ),
    **dict.fromkeys(
        (
            "NEAR_IDENTICAL_RATIO",
            "SimilarResponses",
            "report_similar_responses",
            "response_warnings",
            "similar_responses",
        ),
        "fairpanel.judging.store._similar_responses",
    ),
    **dict.fromkeys(
        (
            "STORE_FILE",
            "STORE_SCHEMA_VERSION",
            "Store",
            "StudyItemRecord",
        ),
        "fairpanel.judging.store._store",
    ),
    **dict.fromkeys(
        (
            "TranscriptColumns",
            "read_transcripts",
        ),
        "fairpanel.judging.store._transcripts",
    ),
    **dict.fromkeys(
        ("trial_design",),
        "fairpanel.judging.store._trial_pack",
    ),
    **dict.fromkeys(
        (
            "name_id",
            "packed_codes",
            "packed_numbers",
        ),
        "fairpanel.judging.store._turn_pack",
    ),
    "NOT_RECORDED": "fairpanel.judging.store._replica_store",
    "cost_by_role": "fairpanel.judging.store._cost",
    "cost_of": "fairpanel.judging.store._cost",
    "RunStatus": "fairpanel.judging.store._run_status",
    "quantile": "fairpanel.judging.store._replica_store",
    "EXIT_PENDING": "fairpanel.judging.store._run_status",
    "BatchView": "fairpanel.judging.store._run_status",
    "run_status": "fairpanel.judging.store._run_status",
    "ReplicaRecords": "fairpanel.judging.store._replica_store",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
