"""A run folder as an Inspect AI eval log, so a run opens in Inspect's log viewer and loads
into its analysis tools (``inspect view``, ``read_eval_log``, ``samples_df``).

One sample per trial: its input is what every judge was shown (the task and the labelled
candidates), its messages the debate in round and speaking order, its scores the panel's
consensus per metric and, for pair trials, the verdict. Inspect is an optional extra
(``fairpanel[inspect]``): it is imported only inside ``export_inspect``, so fairpanel runs
without it and says how to install it when this export is asked for.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairpanel.judging.protocol import METRICS
from fairpanel.judging.store import STORE_FILE, RunFiles, Store
from fairpanel.run_folder._folder import (
    RESULTS_FILE,
    BadRunFolderError,
    read_json,
    require_run_folder,
)
from fairpanel.run_folder._inspect_trials import (
    POSITIONS,
    TrialTranscript,
    consensus_scores,
    iter_transcripts,
    sample_metadata,
)

if TYPE_CHECKING:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import EvalSample, EvalScore
    from inspect_ai.model import ChatMessage

__all__ = ["INSPECT_EXPORT", "MissingExtraError", "export_inspect"]

INSPECT_EXPORT = "inspect.eval"
_TASK_PREFIX = "fairpanel"


class MissingExtraError(RuntimeError):
    """An optional dependency the asked-for feature needs is not installed."""


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _utc(text: str | None) -> str | None:
    """A stored timestamp as Inspect's UTC ISO form (the store writes ``+00:00`` already)."""
    return None if not text else text.replace(" ", "T")


def _digest(config: Any) -> str | None:
    if config is None:
        return None
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class _Totals:
    """Run-level means of the samples' scores, for the log's results block."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str], tuple[float, int]] = {}
        self.verdicts: dict[str, int] = {}

    def add(self, scores: dict[str, dict[str, float]], winner: str | None) -> None:
        for metric, values in scores.items():
            for position, value in values.items():
                total, count = self.sums.get((metric, position), (0.0, 0))
                self.sums[metric, position] = (total + value, count + 1)
        if winner is not None:
            self.verdicts[winner] = self.verdicts.get(winner, 0) + 1

    def eval_scores(self) -> list[EvalScore]:
        from inspect_ai.log import EvalMetric, EvalScore

        out = []
        for metric in METRICS:
            metrics = {
                f"mean_{position}": EvalMetric(name=f"mean_{position}", value=total / count)
                for position in POSITIONS
                for total, count in [self.sums.get((metric, position), (0.0, 0))]
                if count
            }
            if metrics:
                out.append(EvalScore(name=metric, scorer="consensus", metrics=metrics))
        decided = sum(self.verdicts.values())
        if decided:
            rates = {
                f"share_{position}": EvalMetric(
                    name=f"share_{position}", value=self.verdicts.get(position, 0) / decided
                )
                for position in POSITIONS
            }
            out.append(EvalScore(name="verdict", scorer="consensus", metrics=rates))
        return out


def _message_key(role: str, text: str, id_parts: tuple[Any, ...]) -> str:
    return hashlib.sha256(json.dumps([role, text, *id_parts]).encode("utf-8")).hexdigest()[:22]


def _chat(
    role: str, text: str, id_parts: tuple[Any, ...], model: str | None = None, **extra: Any
) -> ChatMessage:
    """An Inspect message with an id derived from ``id_parts`` (so the file is reproducible,
    and a message repeated in several calls' inputs is one message to Inspect's readers)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    key = _message_key(role, text, id_parts)
    if role == "assistant":
        return ChatMessageAssistant(id=key, content=text, model=model, source="generate", **extra)
    if role == "system":
        return ChatMessageSystem(id=key, content=text, **extra)
    return ChatMessageUser(id=key, content=text, **extra)


def _messages(trial: TrialTranscript) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    if trial.context is not None:
        messages.append(_chat("system", trial.context, ("context",), source="input"))
    for index, m in enumerate(trial.messages):
        messages.append(_chat(m.role, m.text, ("sample", index), m.model, metadata=m.metadata))
    return messages


def _events(trial: TrialTranscript) -> list[ModelEvent]:
    """One model event per stored call: its whole input as sent and the reply, so Inspect's
    transcript view and ``messages_df`` see every call the panel made."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        GenerateConfig,
        ModelOutput,
        ModelUsage,
    )

    events = []
    for call in trial.calls:
        owner = [call.judge]
        inputs = [
            _chat(role, text, tuple(owner if role == "assistant" else []), call.model)
            for role, text in call.messages
        ]
        key = _message_key("assistant", call.reply, (call.judge,))
        reply = ChatMessageAssistant(id=key, content=call.reply, model=call.model)
        output = ModelOutput(
            model=call.model,
            choices=[ChatCompletionChoice(message=reply, stop_reason="stop")],
            usage=ModelUsage(
                input_tokens=call.prompt_tokens,
                output_tokens=call.completion_tokens,
                total_tokens=call.prompt_tokens + call.completion_tokens,
            ),
        )
        events.append(
            ModelEvent(
                timestamp=_utc(call.created_at),
                model=call.model,
                role=call.judge,
                input=inputs,
                tools=[],
                tool_choice="none",
                config=GenerateConfig(),
                output=output,
                cache="read",
            )
        )
    return events


def _sample(trial: TrialTranscript, totals: _Totals) -> EvalSample:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import Score

    metadata = sample_metadata(trial)
    by_metric = consensus_scores(trial)
    scores: dict[str, Score] = {
        metric: Score(value=values, metadata={"identities": metadata["identities"]})
        for metric, values in by_metric.items()
    }
    winner = (trial.consensus or {}).get("winner")
    winner = winner if winner in POSITIONS else None
    if trial.spec["protocol"] == "pair" and trial.consensus is not None:
        identities = metadata["identities"]
        identity = identities[POSITIONS.index(winner)] if winner else None
        undecided = "tie" if trial.consensus.get("votes") else "none"
        scores["verdict"] = Score(
            value=winner or undecided,
            answer=identity,
            explanation=json.dumps(trial.consensus.get("votes", {})),
            metadata={"winner_position": winner, "winner_identity": identity},
        )
    if trial.status == "ok":
        totals.add(by_metric, winner)
    last = trial.turns[-1]["judge_model"] if trial.turns else "none/none"
    output = ModelOutput.from_content(
        model=str(last), content=json.dumps(trial.consensus or {}, ensure_ascii=False)
    )
    return EvalSample(
        id=trial.key,
        uuid=trial.key[:22],  # reproducible (Inspect's own are random); trial keys are hashes
        epoch=1,
        input=trial.context or f"scenario {trial.spec['scenario_id']} (prompt not stored)",
        target="",
        messages=_messages(trial),
        events=_events(trial),
        output=output,
        scores=scores or None,
        metadata=metadata,
        model_usage={
            model: ModelUsage(input_tokens=p, output_tokens=c, total_tokens=p + c)
            for model, (p, c) in trial.usage.items()
        },
        error=None
        if trial.status == "ok"
        else EvalError(message=trial.error or "failed", traceback="", traceback_ansi=""),
    )


def _model_roles(samples: list[EvalSample]) -> dict[str, str]:
    roles: dict[str, str] = {}
    for sample in samples:
        for persona, model in sample.metadata["judges"].items():
            roles.setdefault(str(persona), str(model))
        if sample.metadata["responder_model"]:
            roles.setdefault("responder", str(sample.metadata["responder_model"]))
    return roles


def export_inspect(run_dir: Path, out: Path | None = None) -> tuple[Path, int]:
    """Write RUN_DIR as an Inspect eval log to ``out`` (default RUN_DIR/inspect.eval; a
    ``.json`` name writes Inspect's JSON format); returns the file and its number of samples.
    Raises ``MissingExtraError`` without inspect_ai, ``BadRunFolderError`` for a folder with
    no store, a study run or an output name Inspect cannot write."""
    if importlib.util.find_spec("inspect_ai") is None:
        raise MissingExtraError(
            "--format inspect needs Inspect AI: install fairpanel[inspect] "
            "(pip install 'fairpanel[inspect]')"
        )
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.log import EvalError as InspectError
    from inspect_ai.model import ModelConfig, ModelUsage

    require_run_folder(run_dir)
    path = out or run_dir / INSPECT_EXPORT
    if path.suffix not in (".eval", ".json"):
        raise BadRunFolderError(f"{path}: an Inspect log is named .eval or .json")
    files = RunFiles.read(run_dir)
    config, manifest, summary = files.experiment, files.manifest, files.summary
    results = read_json(run_dir / RESULTS_FILE)
    if files.study:
        raise BadRunFolderError(
            f"{run_dir} is a {files.study} study run; --format inspect exports judge-panel "
            "runs (their trials and debates)"
        )
    totals = _Totals()
    store = Store(run_dir / STORE_FILE)
    try:
        samples = [_sample(trial, totals) for trial in iter_transcripts(store)]
        started, finished = store.read(
            "SELECT MIN(created_at), MAX(created_at) FROM calls"
        ).fetchone()
        usage = store.tokens_by_role_and_model()
    finally:
        store.close()

    name = files.run_name
    digest = _digest(config)
    roles = _model_roles(samples)
    judges = [model for role, model in roles.items() if role != "responder"]
    by_model: dict[str, ModelUsage] = {}
    for (_role, model), used in usage.items():
        known = by_model.get(model, ModelUsage())
        by_model[model] = ModelUsage(
            input_tokens=known.input_tokens + used.prompt_tokens,
            output_tokens=known.output_tokens + used.completion_tokens,
            total_tokens=known.total_tokens + used.prompt_tokens + used.completion_tokens,
            input_tokens_cache_read=(known.input_tokens_cache_read or 0) + used.cached_tokens,
        )
    stopped = (summary or {}).get("stopped")
    status = "started" if summary is None else "error" if stopped else "success"
    fairpanel_version = ((manifest or {}).get("packages") or {}).get("fairpanel")
    eval_id = hashlib.sha256(f"{digest}:{started}".encode()).hexdigest()[:22]
    headline = (results or {}).get("headline") or {}
    log = EvalLog(
        status=status,
        eval=EvalSpec(
            eval_id=eval_id,
            run_id=eval_id,
            created=_utc(started) or _utc(finished) or "1970-01-01T00:00:00+00:00",
            task=f"{_TASK_PREFIX}/{name}",
            task_id=(digest or eval_id)[:22],
            task_display_name=name,
            task_description="fairpanel judge-panel run: one sample per trial",
            solver="fairpanel/panel_debate",
            dataset=EvalDataset(name=name, location=str(run_dir), samples=len(samples)),
            model=judges[0] if judges else "none/none",
            model_roles={role: ModelConfig(model=model) for role, model in roles.items()},
            config=EvalConfig(epochs=1),
            packages={"fairpanel": _version("fairpanel") or "unknown"},
            metadata={
                "fairpanel_version": fairpanel_version or _version("fairpanel"),
                "experiment": name,
                "config_digest": digest,
                "seed": (config or {}).get("seed"),
                "models": (manifest or {}).get("models"),
                "served": (manifest or {}).get("served"),
                "cost": (summary or {}).get("cost"),
                "trials": (summary or {}).get("trials_total", len(samples)),
                "trials_failed": (summary or {}).get("trials_failed"),
                "warnings": (summary or {}).get("warnings"),
            },
        ),
        plan=EvalPlan(
            name="fairpanel",
            steps=[EvalPlanStep(solver="panel_debate", params=(config or {}).get("panel") or {})],
        ),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=sum(1 for s in samples if s.error is None),
            scores=totals.eval_scores(),
            metadata={"verdict": headline.get("verdict"), "position": headline.get("position")},
        ),
        stats=EvalStats(
            started_at=_utc(started) or "",
            completed_at=_utc(finished) or "",
            model_usage=by_model,
        ),
        error=InspectError(message=str(stopped), traceback="", traceback_ansi="")
        if stopped
        else None,
        samples=samples,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(path), format="json" if path.suffix == ".json" else "eval")
    return path, len(samples)
