"""One trial: the panel debates, every turn is parsed, the consensus is formed.

Consensus is the mean of the final round's valid scores, and the pair winner the majority of
the final round's valid verdicts (no winner on a tie). Turns that never validated are kept
with their raw text and count toward nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from fairpanel.agents import (
    CachingCaller,
    DebateRound,
    ModelCallError,
    ModelClient,
    Seat,
    TurnOutcome,
    run_debate,
)
from fairpanel.judging._design import TrialSpec
from fairpanel.judging._judgment import (
    METRICS,
    PairJudgment,
    SingleJudgment,
    output_schema,
    parse_judgment,
)
from fairpanel.judging._prompts import (
    discussion_prompt,
    final_prompt,
    judge_ask,
    judge_context,
    reask_prompt,
)
from fairpanel.judging._store import TrialRecord, TurnRecord
from fairpanel.personas import JudgePersona

__all__ = ["consensus_of", "run_trial"]


def _parsed(outcome: TurnOutcome, protocol: str) -> SingleJudgment | PairJudgment | None:
    result = parse_judgment(outcome.text, protocol)  # type: ignore[arg-type]
    return None if isinstance(result, str) else result


def _summary(outcome: TurnOutcome, protocol: str) -> str:
    judgment = _parsed(outcome, protocol)
    if judgment is None:
        return "(no valid answer)"
    return json.dumps(judgment.model_dump(), separators=(", ", ": "))


def consensus_of(judgments: Sequence[SingleJudgment | PairJudgment], judges: int) -> dict[str, Any]:
    """Mean scores per candidate and metric; majority winner for pairs."""
    scores: dict[str, dict[str, float]] = {}
    if judgments:
        for candidate in judgments[0].scores():
            scores[candidate] = {
                metric: fmean(j.scores()[candidate][metric] for j in judgments)
                for metric in METRICS
            }
    consensus: dict[str, Any] = {"scores": scores, "valid_final": len(judgments), "judges": judges}
    pair_votes = [j.winner for j in judgments if isinstance(j, PairJudgment)]
    if pair_votes:
        votes = Counter(pair_votes)
        ranked = votes.most_common()
        winner = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
        consensus["votes"] = dict(votes)
        consensus["winner"] = winner
    return consensus


async def run_trial(
    spec: TrialSpec,
    *,
    task: str,
    responses: Mapping[int, str],
    personas: Mapping[str, JudgePersona],
    client: ModelClient,
    caller: CachingCaller,
) -> TrialRecord:
    """Run the debate for ``spec`` and return its record (failed trials included)."""
    protocol = spec.protocol
    candidates = [
        (author, responses[index])
        for author, index in zip(spec.authors, spec.response_indices, strict=True)
    ]
    rounds = spec.discussion_rounds + 2
    seats = [
        Seat(
            name=name,
            system_message=personas[name].system_message,
            client=client,
            sampling=spec.judge_sampling,
        )
        for name in spec.judges
    ]

    def later_round(round_index: int, so_far: list[TurnOutcome]) -> DebateRound:
        if round_index == rounds - 1:
            return DebateRound(kind="final", prompt=final_prompt())
        latest = [o for o in so_far if o.round == round_index - 1]
        summaries = [(o.judge, _summary(o, protocol)) for o in latest]
        return DebateRound(kind="discussion", prompt=discussion_prompt(round_index, summaries))

    def validate(text: str) -> str | None:
        result = parse_judgment(text, protocol)
        return result if isinstance(result, str) else None

    status, error = "ok", None
    try:
        outcomes = await run_debate(
            seats,
            caller,
            context=judge_context(task, candidates),
            first_prompt=judge_ask(len(candidates)),
            later_round=later_round,
            rounds=rounds,
            schema=output_schema(protocol),
            validate=validate,
            reask=reask_prompt,
            max_reasks=spec.max_reasks,
            replicate=spec.replicate,
        )
    except ModelCallError as exc:
        status, error, outcomes = "failed", str(exc), []
    turns = []
    finals: list[SingleJudgment | PairJudgment] = []
    for outcome in outcomes:
        judgment = _parsed(outcome, protocol)
        if judgment is not None and outcome.round_kind == "final":
            finals.append(judgment)
        turns.append(
            TurnRecord(
                round=outcome.round,
                round_kind=outcome.round_kind,
                judge=outcome.judge,
                speaker_index=outcome.speaker_index,
                judge_model=spec.judge_model,
                raw_text=outcome.text,
                parsed=None if judgment is None else judgment.model_dump(),
                parse_error=outcome.error if judgment is None else None,
                attempts=outcome.attempts,
                usage=outcome.usage,
                latency_s=outcome.latency_s,
                call_keys=outcome.call_keys,
            )
        )
    consensus = None
    if status == "ok":
        if finals:
            consensus = consensus_of(finals, len(seats))
        else:
            status, error = "failed", "no judge gave a valid final answer"
    return TrialRecord(
        key=spec.key(),
        protocol=protocol,
        spec=spec.model_dump(mode="json"),
        status=status,
        error=error,
        consensus=consensus,
        turns=turns,
    )
