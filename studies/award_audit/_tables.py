"""Display tables of the award audit's results (the layout of the seed study's Tables 2-4)."""

from __future__ import annotations

from typing import Any

from fairpanel.studies._base import result_table

__all__ = ["award_tables"]


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


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
                _round(row["share"]),
                interval,
                _p(row["p_exact"]),
                _p(row["p_mid"]),
                _p(row["p_bonferroni"]),
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
            [[position["k"], position["n"], _round(position["share"]), _p(position["p_exact"])]],
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
                        _round(row["chi2"]),
                        _p(row["p_value"]),
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
