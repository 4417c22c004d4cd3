"""Display tables of the award audit's results (the layout of the seed study's Tables 2-4)."""

from __future__ import annotations

from typing import Any

from fairpanel.studies._base import result_table
from fairpanel.studies._cells import p_cell, rounded

__all__ = ["award_tables"]


def award_tables(results: dict[str, Any]) -> list[dict[str, Any]]:
    first, second = results["groups"]
    rows = []
    for row in results["choices"]:
        interval = "-" if row["share"] is None else f"{row['ci_low']:.2f}-{row['ci_high']:.2f}"
        rows.append(
            [
                row["level"],
                row["counts"][first],
                row["counts"][second],
                row["counts"]["equivocal"],
                rounded(row["share"]),
                interval,
                p_cell(row["p_exact"]),
                p_cell(row["p_mid"]),
                p_cell(row["p_bonferroni"]),
            ]
        )
    tables = [
        result_table(
            f"Award choices ({results['category']})",
            [
                "level",
                first,
                second,
                "equivocal",
                f"share {first}",
                "95% CI",
                "p exact",
                "p mid-p",
                "p Bonferroni",
            ],
            rows,
            note="Equivocal answers (naming both students or neither) are left out of the tests.",
        )
    ]
    position = results["position"]["first_listed"]
    tables.append(
        result_table(
            "Position",
            ["chose the student listed first", "choices", "share", "p exact"],
            [
                [
                    position["k"],
                    position["n"],
                    rounded(position["share"]),
                    p_cell(position["p_exact"]),
                ]
            ],
        )
    )
    if "followup" in results:
        followup_rows = []
        for row in results["followup"]:
            for group in (first, second):
                cells = row["observed"][group]
                followup_rows.append(
                    [
                        row["level"],
                        group,
                        cells["indecisive"],
                        cells["justified"],
                        cells["irrational"],
                        rounded(row["chi2"]),
                        p_cell(row["p_value"]),
                    ]
                )
        tables.append(
            result_table(
                "Follow-up explanations by chosen group",
                ["level", "chosen", "indecisive", "justified", "irrational", "chi2", "p"],
                followup_rows,
                note="Chi-square only when every cell holds at least 5 (as in the seed study).",
            )
        )
    return tables
