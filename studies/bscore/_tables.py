"""Display tables of the B-score results (the layout of the paper's Fig. 5, Tab. 2 and 3)."""

from __future__ import annotations

from typing import Any

from fairpanel.studies._base import result_table
from fairpanel.studies._cells import rounded

__all__ = ["bscore_tables"]


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 1)


def bscore_tables(results: dict[str, Any]) -> list[dict[str, Any]]:
    tables = []
    rows = []
    for question in results["questions"]:
        for option in question["per_option"]:
            rows.append(
                [
                    question["question"],
                    option["option"] + (" *" if option["correct"] else ""),
                    rounded(option["p_single"]),
                    rounded(option["p_multi"]),
                    rounded(option["b"]),
                    rounded(option["b_sd"]),
                    rounded(option["confidence"]),
                ]
            )
    tables.append(
        result_table(
            "B-score per option (mean over runs)",
            ["question", "option", "P single", "P multi", "B", "B sd", "confidence"],
            rows,
            note=f"P over {results['denominator']} answers; * marks the correct option. B > 0: "
            "chosen more often alone than with the earlier answers in view.",
        )
    )
    tables.append(
        result_table(
            "Top single-turn choice by category",
            [
                "category",
                "questions",
                "counted",
                "P single",
                "P multi",
                "B",
                "B low",
                "B high",
                "valid single %",
                "valid multi %",
            ],
            [
                [
                    row["category"],
                    row["questions"],
                    row["questions_counted"],
                    rounded(row["top_p_single"]),
                    rounded(row["top_p_multi"]),
                    rounded(row["top_b"]),
                    rounded(row.get("top_b_ci_low")),
                    rounded(row.get("top_b_ci_high")),
                    _pct(row["valid_single_rate"]),
                    _pct(row["valid_multi_rate"]),
                ]
                for row in results["categories"]
            ]
            + _overall_row(results),
            note="Questions with a correct option count only runs whose top choice was wrong "
            "(the paper's Tab. 2 rule). B low-high: 95% percentile bootstrap interval over "
            "questions; the last row is the mean over categories, resampling questions within "
            "each.",
        )
    )
    if results["judge_pairs"]:
        tables.append(
            result_table(
                "Judge verdicts: B-score per identity and position",
                ["pair", "by", "label", "P single", "P multi", "B", "B sd", "runs"],
                [
                    [
                        r["pair"],
                        r["kind"],
                        r["label"],
                        rounded(r["p_single"]),
                        rounded(r["p_multi"]),
                        rounded(r["b"]),
                        rounded(r["b_sd"]),
                        r["runs"],
                    ]
                    for r in results["judge_pairs"]
                ],
                note="Share of verdicts won by each identity (and shown position) alone vs "
                "with the judge's earlier verdicts in view.",
            )
        )
    verification = results["verification"]
    if verification:
        categories = sorted(
            key for key in verification["b_alone"]["accuracy"] if key not in ("n", "pooled")
        )
        rows = []

        def accuracy_cells(found: dict[str, Any]) -> list[Any]:
            return [_pct(found["accuracy"].get(c)) for c in categories] + [
                _pct(found["accuracy"]["pooled"])
            ]

        for rule in verification["rules"]:
            alone, cascade = rule["alone"], rule["with_b"]
            rows.append([rule["metric"], f"{alone['threshold']:.2f}", *accuracy_cells(alone)])
            thresholds = ", ".join(f"{t:.2f}" for t in cascade["thresholds"])
            rows.append(["  with B", f"({thresholds})", *accuracy_cells(cascade)])
        b_alone = verification["b_alone"]
        rows.append(["B-score", f"{b_alone['threshold']:.2f}", *accuracy_cells(b_alone)])
        tables.append(
            result_table(
                f"Answer verification accuracy % (n = {verification['n']})",
                ["metric", "threshold", *categories, "pooled"],
                rows,
                note="Accept when metric >= t (B-score: B <= t; with B: both). Thresholds "
                "tuned in-sample on a 0.05 grid.",
            )
        )
    return tables


def _overall_row(results: dict[str, Any]) -> list[list[Any]]:
    overall = results.get("top_b") or {}
    if overall.get("mean") is None:
        return []
    counted = sum(row["questions_counted"] for row in results["categories"])
    total = sum(row["questions"] for row in results["categories"])
    return [
        [
            "all (mean)",
            total,
            counted,
            None,
            None,
            rounded(overall["mean"]),
            rounded(overall.get("ci_low")),
            rounded(overall.get("ci_high")),
            None,
            None,
        ]
    ]
