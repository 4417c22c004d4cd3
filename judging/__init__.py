"""Experiments: the experiment model, the judging protocol, running it, reading it back, simulation.

``experiment`` is the strict YAML file and the trials it designs; ``protocol`` what judges are
shown and answer in one trial; ``engine`` runs trials into a run folder's store (runner,
session, lock, cost, failures, estimates, batch mode); ``store`` is the read side (the store,
frames, transcripts, export) that the report and the viewer use; ``simulate`` calibrates a
design on the mock.

The names below load on first use, from the subpackage that defines them: reading a run
(``from fairpanel.judging import load_frames``) then costs the read side, not the engine, the
model clients and AutoGen.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.judging.engine import (
        EXIT_RUN_FOLDER_BUSY,
        Design,
        Estimate,
        RunFolderBusyError,
        RunFolderLock,
        RunSummary,
        cost_by_role,
        cost_of,
        design_of,
        estimate,
        run_experiment,
    )
    from fairpanel.judging.experiment import (
        DEFAULT_INJECTION,
        TRIAL_SCHEMA_VERSION,
        ExperimentConfig,
        IdentitySelection,
        PairConfig,
        PanelConfig,
        Price,
        ResponderConfig,
        ScenarioSelection,
        TrialSpec,
        default_experiment_path,
        iter_trials,
        load_experiment,
    )
    from fairpanel.judging.protocol import (
        METRICS,
        MetricScores,
        PairJudgment,
        SingleJudgment,
        TrialRecord,
        TurnRecord,
        consensus_of,
        judge_ask,
        judge_context,
        output_schema,
        parse_judgment,
        parse_text_judgment,
        responder_messages,
        rewrite_messages,
        run_trial,
    )
    from fairpanel.judging.simulate import (
        parse_numbers,
        sizes_ok,
    )
    from fairpanel.judging.store import (
        EXPORT_COLUMNS,
        NEAR_IDENTICAL_RATIO,
        STORE_FILE,
        STORE_SCHEMA_VERSION,
        ExportColumn,
        ExportFormat,
        RunFrames,
        ServedModel,
        ServedValue,
        SimilarResponses,
        Store,
        StudyItemRecord,
        TranscriptColumns,
        export_frame,
        load_frames,
        read_export,
        read_transcripts,
        response_warnings,
        served_model_changes,
        served_models,
        similar_responses,
    )

__all__ = [
    "DEFAULT_INJECTION",
    "EXIT_RUN_FOLDER_BUSY",
    "EXPORT_COLUMNS",
    "METRICS",
    "NEAR_IDENTICAL_RATIO",
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "TRIAL_SCHEMA_VERSION",
    "Design",
    "Estimate",
    "ExperimentConfig",
    "ExportColumn",
    "ExportFormat",
    "IdentitySelection",
    "MetricScores",
    "PairConfig",
    "PairJudgment",
    "PanelConfig",
    "Price",
    "ResponderConfig",
    "RunFolderBusyError",
    "RunFolderLock",
    "RunFrames",
    "RunSummary",
    "ScenarioSelection",
    "ServedModel",
    "ServedValue",
    "SimilarResponses",
    "SingleJudgment",
    "Store",
    "StudyItemRecord",
    "TranscriptColumns",
    "TrialRecord",
    "TrialSpec",
    "TurnRecord",
    "consensus_of",
    "cost_by_role",
    "cost_of",
    "default_experiment_path",
    "design_of",
    "estimate",
    "export_frame",
    "iter_trials",
    "judge_ask",
    "judge_context",
    "load_experiment",
    "load_frames",
    "output_schema",
    "parse_judgment",
    "parse_numbers",
    "parse_text_judgment",
    "read_export",
    "read_transcripts",
    "responder_messages",
    "response_warnings",
    "rewrite_messages",
    "run_experiment",
    "run_trial",
    "served_model_changes",
    "served_models",
    "similar_responses",
    "sizes_ok",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "EXIT_RUN_FOLDER_BUSY",
            "Design",
            "Estimate",
            "RunFolderBusyError",
            "RunFolderLock",
            "RunSummary",
            "cost_by_role",
            "cost_of",
            "design_of",
            "estimate",
            "run_experiment",
        ),
        "fairpanel.judging.engine",
    ),
    **dict.fromkeys(
        (
            "DEFAULT_INJECTION",
            "TRIAL_SCHEMA_VERSION",
            "ExperimentConfig",
            "IdentitySelection",
            "PairConfig",
            "PanelConfig",
            "Price",
            "ResponderConfig",
            "ScenarioSelection",
            "TrialSpec",
            "default_experiment_path",
            "iter_trials",
            "load_experiment",
        ),
        "fairpanel.judging.experiment",
    ),
    **dict.fromkeys(
        (
            "METRICS",
            "MetricScores",
            "PairJudgment",
            "SingleJudgment",
            "TrialRecord",
            "TurnRecord",
            "consensus_of",
            "judge_ask",
            "judge_context",
            "output_schema",
            "parse_judgment",
            "parse_text_judgment",
            "responder_messages",
            "rewrite_messages",
            "run_trial",
        ),
        "fairpanel.judging.protocol",
    ),
    **dict.fromkeys(
        (
            "parse_numbers",
            "sizes_ok",
        ),
        "fairpanel.judging.simulate",
    ),
    **dict.fromkeys(
        (
            "EXPORT_COLUMNS",
            "NEAR_IDENTICAL_RATIO",
            "STORE_FILE",
            "STORE_SCHEMA_VERSION",
            "ExportColumn",
            "ExportFormat",
            "RunFrames",
            "ServedModel",
            "ServedValue",
            "SimilarResponses",
            "Store",
            "StudyItemRecord",
            "TranscriptColumns",
            "export_frame",
            "load_frames",
            "read_export",
            "read_transcripts",
            "response_warnings",
            "served_model_changes",
            "served_models",
            "similar_responses",
        ),
        "fairpanel.judging.store",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'fairpanel.judging' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
