"""One trial: the panel debates, every turn is parsed, the consensus is formed.

Consensus follows the trial's rule over the final round's valid answers: the mean, the
median, the majority (most common score, ties to their median) or a moderator agent's
reading. The pair winner is the majority of final verdicts (no winner on a tie), or the
moderator's. Turns that never validated are kept with their raw text and count toward nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from statistics import fmean, median
from typing import Any

from fairpanel.agents import (
    AnswerRules,
    CachingCaller,
    DebateError,
    DebateRound,
    ModelCallError,
    ModelClient,
    Seat,
    TurnOutcome,
    run_debate,
    run_single_turn,
)
from fairpanel.judging.experiment._design import SeatSpec, TrialSpec
from fairpanel.judging.protocol._fencing import with_injection
from fairpanel.judging.protocol._judgment import (
    METRICS,
    PairJudgment,
    SingleJudgment,
    output_schema,
    parse_judgment,
)
from fairpanel.judging.protocol._prompts import (
    blind_final_prompt,
    discussion_prompt,
    final_prompt,
    judge_ask,
    judge_context,
    moderator_prompt,
    reask_prompt,
)
from fairpanel.judging.protocol._records import TrialRecord, TurnRecord
from fairpanel.personas import JudgePersona

__all__ = ["consensus_of", "run_trial"]

Judgment = SingleJudgment | PairJudgment


def _parsed(outcome: TurnOutcome, protocol: str) -> Judgment | None:
    result = parse_judgment(outcome.text, protocol)  # type: ignore[arg-type]
    return None if isinstance(result, str) else result


def _summary(outcome: TurnOutcome, protocol: str) -> str:
    judgment = _parsed(outcome, protocol)
    if judgment is None:
        return "(no valid answer)"
    return json.dumps(judgment.model_dump(), separators=(", ", ": "))


def _majority_score(values: Sequence[float]) -> float:
    counts = Counter(values).most_common()
    top = counts[0][1]
    return float(median(sorted(value for value, count in counts if count == top)))


def _median(values: Sequence[float]) -> float:
    return float(median(values))


_COMBINE: dict[str, Callable[[Sequence[float]], float]] = {
    "mean": fmean,
    "median": _median,
    "majority": _majority_score,
}


def consensus_of(
    judgments: Sequence[Judgment], judges: int, method: str = "mean"
) -> dict[str, Any]:
    """Combined scores per candidate and metric; majority winner for pairs."""
    combine = _COMBINE[method]
    scores: dict[str, dict[str, float]] = {}
    if judgments:
        for candidate in judgments[0].scores():
            scores[candidate] = {
                metric: float(combine([j.scores()[candidate][metric] for j in judgments]))
                for metric in METRICS
            }
    consensus: dict[str, Any] = {
        "method": method,
        "scores": scores,
        "valid_final": len(judgments),
        "judges": judges,
    }
    pair_votes = [j.winner for j in judgments if isinstance(j, PairJudgment)]
    if pair_votes:
        ranked = Counter(pair_votes).most_common()
        winner = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
        consensus["votes"] = dict(ranked)
        consensus["winner"] = winner
    return consensus


def _moderated(judgment: Judgment, finals: int, judges: int) -> dict[str, Any]:
    consensus: dict[str, Any] = {
        "method": "moderator",
        "scores": judgment.scores(),
        "valid_final": finals,
        "judges": judges,
        "reason": judgment.reason,
    }
    if isinstance(judgment, PairJudgment):
        consensus["winner"] = judgment.winner
    return consensus


def _record(outcome: TurnOutcome, spec: TrialSpec, models: Mapping[str, str]) -> TurnRecord:
    judgment = _parsed(outcome, spec.protocol)
    return TurnRecord(
        round=outcome.round,
        round_kind=outcome.round_kind,
        judge=outcome.judge,
        speaker_index=outcome.speaker_index,
        judge_model=models[outcome.judge],
        raw_text=outcome.text,
        parsed=None if judgment is None else judgment.model_dump(),
        parse_error=outcome.error if judgment is None else None,
        attempts=outcome.attempts,
        usage=outcome.usage,
        latency_s=outcome.latency_s,
        call_keys=outcome.call_keys,
    )


async def run_trial(
    spec: TrialSpec,
    *,
    task: str,
    responses: Mapping[int, str],
    personas: Mapping[str, JudgePersona],
    clients: Mapping[str, ModelClient],
    caller: CachingCaller,
) -> TrialRecord:
    """Run the debate for ``spec`` and return its record (failed trials included)."""
    protocol = spec.protocol
    shown = with_injection([responses[index] for index in spec.response_indices], spec.injection)
    candidates = list(zip(spec.authors, shown, strict=True))
    rounds = spec.discussion_rounds + 2
    instruction = f"\n\n{spec.judge_instruction}" if spec.judge_instruction else ""

    def seat(chair: SeatSpec) -> Seat:
        return Seat(
            name=chair.persona,
            system_message=personas[chair.persona].system_message + instruction,
            client=clients[chair.model],
            sampling=chair.sampling,
        )

    seats = [seat(chair) for chair in spec.seats]
    models = {chair.persona: chair.model_id for chair in spec.seats}
    if spec.moderator is not None:
        models[spec.moderator.persona] = spec.moderator.model_id
    context = judge_context(
        task, candidates, position=spec.label_position, wording=spec.label_wording
    )

    def later_round(round_index: int, so_far: list[TurnOutcome]) -> DebateRound:
        if round_index == rounds - 1:
            if spec.final_vote == "blind":
                own = {
                    name: blind_final_prompt([o.text for o in so_far if o.judge == name])
                    for name in spec.judges
                }
                return DebateRound(kind="final", prompt="", per_judge=own)
            return DebateRound(kind="final", prompt=final_prompt())
        latest = [o for o in so_far if o.round == round_index - 1]
        summaries = [(o.judge, _summary(o, protocol)) for o in latest]
        return DebateRound(kind="discussion", prompt=discussion_prompt(round_index, summaries))

    def validate(text: str) -> str | None:
        result = parse_judgment(text, protocol)
        return result if isinstance(result, str) else None

    rules = AnswerRules(
        schema=output_schema(protocol),
        validate=validate,
        reask=reask_prompt,
        max_reasks=spec.max_reasks,
        replicate=spec.replicate,
        role_prefix=f"{spec.panel} judge" if spec.panel else "judge",
    )
    status, error = "ok", None
    try:
        outcomes = await run_debate(
            seats,
            caller,
            context=context,
            first_prompt=judge_ask(len(candidates)),
            later_round=later_round,
            rounds=rounds,
            rules=rules,
        )
    except DebateError as exc:
        status, error, outcomes = "failed", str(exc), exc.outcomes
    finals = [
        judgment
        for outcome in outcomes
        if outcome.round_kind == "final" and (judgment := _parsed(outcome, protocol))
    ]
    consensus = None
    if status == "ok" and not finals:
        status, error = "failed", "no judge gave a valid final answer"
    elif status == "ok" and spec.moderator is not None:
        finals_text = [(o.judge, _summary(o, protocol)) for o in outcomes if o.round == rounds - 1]
        try:
            verdict = await run_single_turn(
                seat(spec.moderator),
                caller,
                context=context,
                prompt=moderator_prompt(finals_text),
                round_index=rounds,
                kind="moderator",
                rules=rules,
            )
        except ModelCallError as exc:
            status, error = "failed", str(exc)
        else:
            outcomes.append(verdict)
            judgment = _parsed(verdict, protocol)
            if judgment is None:
                status, error = "failed", "the moderator gave no valid answer"
            else:
                consensus = _moderated(judgment, len(finals), len(seats))
    elif status == "ok":
        consensus = consensus_of(finals, len(seats), spec.consensus)
    return TrialRecord(
        key=spec.key(),
        protocol=protocol,
        spec=spec.model_dump(mode="json"),
        status=status,
        error=error,
        consensus=consensus,
        turns=[_record(outcome, spec, models) for outcome in outcomes],
    )
