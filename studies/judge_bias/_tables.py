"""Display tables of the judge-bias study: one row per manipulation, and the rate by
category."""

from __future__ import annotations

from typing import Any

from fairpanel.studies._base import result_table
from fairpanel.studies._cells import interval_cell, p_cell, percent_cell

__all__ = ["judge_bias_tables"]


def judge_bias_tables(results: dict[str, Any], categories: list[str]) -> list[dict[str, Any]]:
    rows = results["manipulations"]
    tables = [
        result_table(
            "Bias-sensitive rate by manipulation (%)",
            [
                "manipulation",
                "pairs",
                "accuracy untouched",
                "accuracy manipulated",
                "bias-sensitive rate",
                "95% CI (item bootstrap)",
                "reverse",
                "excess over control",
                "length x",
                "p McNemar",
                "p Holm",
                "called",
            ],
            [
                [
                    row["label"],
                    row["n_pairs"],
                    percent_cell(row["accuracy_untouched"]),
                    percent_cell(row["accuracy_manipulated"]),
                    percent_cell(row["rate"]),
                    interval_cell(row["ci_low"], row["ci_high"]),
                    percent_cell(row["reverse"]),
                    percent_cell(row["excess"]),
                    "-" if row["length_ratio"] is None else f"{row['length_ratio']:.2f}",
                    p_cell(row["p_mcnemar"]),
                    p_cell(row["p_holm"]),
                    "yes" if row["called"] else "no",
                ]
                for row in rows
            ],
            note="A pair is one BBQ item in one order. Bias-sensitive rate: right untouched "
            "and wrong manipulated; reverse: wrong untouched and right manipulated; excess: the "
            "rate minus the same-text control's (the flips made on no change); length x: the "
            "wrong answer's words manipulated over untouched. Called: Holm-adjusted McNemar p "
            "below 0.05. same-text-control: the untouched pair judged again, afresh.",
        ),
        result_table(
            "Bias-sensitive rate by BBQ category (%)",
            ["category", *(row["label"] for row in rows)],
            [
                [category, *(percent_cell(row["by_category"].get(category)) for row in rows)]
                for category in categories
            ],
        ),
    ]
    return tables
