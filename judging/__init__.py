"""Experiments: config, design, the judge panel protocols, the runner, the store and the CLI."""

from fairpanel.judging._cli import app, write_results
from fairpanel.judging._config import (
    ExperimentConfig,
    IdentitySelection,
    PairConfig,
    PanelConfig,
    Price,
    ResponderConfig,
    ScenarioSelection,
    default_experiment_path,
    load_experiment,
)
from fairpanel.judging._cost import cost_by_role, cost_of
from fairpanel.judging._design import TRIAL_SCHEMA_VERSION, TrialSpec, iter_trials
from fairpanel.judging._estimate import Estimate, estimate
from fairpanel.judging._export import EXPORT_COLUMNS, ExportColumn, export_frame, read_export
from fairpanel.judging._frames import RunFrames, load_frames
from fairpanel.judging._judgment import (
    METRICS,
    MetricScores,
    PairJudgment,
    SingleJudgment,
    output_schema,
    parse_judgment,
)
from fairpanel.judging._lock import EXIT_RUN_FOLDER_BUSY, RunFolderBusyError, RunFolderLock
from fairpanel.judging._prompts import (
    judge_ask,
    judge_context,
    responder_messages,
    rewrite_messages,
)
from fairpanel.judging._report_file import REPORT_FILE, write_report_html
from fairpanel.judging._runner import Design, RunSummary, design_of, run_experiment
from fairpanel.judging._store import (
    STORE_FILE,
    STORE_SCHEMA_VERSION,
    Store,
    StudyItemRecord,
    TrialRecord,
    TurnRecord,
)
from fairpanel.judging._trial import consensus_of, run_trial

__all__ = [
    "EXIT_RUN_FOLDER_BUSY",
    "EXPORT_COLUMNS",
    "METRICS",
    "REPORT_FILE",
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "TRIAL_SCHEMA_VERSION",
    "Design",
    "Estimate",
    "ExperimentConfig",
    "ExportColumn",
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
    "SingleJudgment",
    "Store",
    "StudyItemRecord",
    "TrialRecord",
    "TrialSpec",
    "TurnRecord",
    "app",
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
    "read_export",
    "responder_messages",
    "rewrite_messages",
    "run_experiment",
    "run_trial",
    "write_report_html",
    "write_results",
]
