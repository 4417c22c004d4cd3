"""Display tables of BiasFreeBench's results: the treatments compared, BFS by category, and
how the judge fared."""

from __future__ import annotations

from typing import Any

from fairpanel.studies._base import result_table
from fairpanel.studies._cells import interval_cell, p_cell, percent_cell

__all__ = ["bfb_tables"]


def _bfs_cell(score: dict[str, Any]) -> str:
    if score["bfs"] is None:
        return "-"
    return f"{percent_cell(score['bfs'])} ({interval_cell(score['ci_low'], score['ci_high'])})"


def bfb_tables(results: dict[str, Any], categories: list[str]) -> list[dict[str, Any]]:
    treatments = results["treatments"]
    comparison = []
    for row in treatments:
        pooled, versus = row["pooled"], row["vs_baseline"]
        comparison.append(
            [
                row["name"],
                row["mitigation"],
                ", ".join(row["apply_to"]) or "-",
                pooled["n"],
                percent_cell(pooled["bfs"]),
                interval_cell(pooled["ci_low"], pooled["ci_high"]),
                percent_cell(pooled["unknown_rate"]),
                "-" if versus is None else percent_cell(versus["difference"]),
                "-" if versus is None else interval_cell(versus["ci_low"], versus["ci_high"]),
                "-" if versus is None else p_cell(versus["p_mcnemar"]),
                pooled["unrelated"] + pooled["no_majority"],
            ]
        )
    tables = [
        result_table(
            "Bias-Free Score by treatment (pooled over categories, %)",
            [
                "treatment",
                "mitigation",
                "applied to",
                "n",
                "BFS",
                "95% CI (Wilson)",
                "unknown",
                f"diff vs {results['baseline']}",
                "95% CI (item bootstrap)",
                "p McNemar",
                "excluded",
            ],
            comparison,
            note="BFS = (anti + unknown) / (biased + anti + unknown). Excluded: answers judged "
            "unrelated or without a majority of judgments. The paper reports no intervals.",
        )
    ]
    tables.append(
        result_table(
            "BFS by category (%, 95% Wilson interval)",
            ["category", *(row["name"] for row in treatments)],
            [
                [category, *(_bfs_cell(row["by_category"][category]) for row in treatments)]
                for category in categories
            ],
        )
    )
    tables.append(
        result_table(
            "Judge",
            [
                "treatment",
                "answers",
                "judgments",
                "calls",
                "unparsed",
                "unanimous",
                "no majority",
                "unrelated",
            ],
            [
                [
                    row["name"],
                    row["judge"].get("answers", 0),
                    row["judge"].get("judgments", 0),
                    row["judge"].get("calls", 0),
                    row["judge"].get("unparsed", 0),
                    row["judge"].get("unanimous", 0),
                    row["pooled"]["no_majority"],
                    row["pooled"]["unrelated"],
                ]
                for row in treatments
            ],
            note="Unparsed: judgments that could not be read after every re-ask (no vote).",
        )
    )
    return tables
