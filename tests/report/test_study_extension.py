"""A study brings its own report: a study written outside fairpanel gets its verdict, sections
and figures on its page through ``Study.report``, with nothing in ``fairpanel.report`` knowing
its name. Also the interval bars such a study draws with."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from helpers.html_page import parse_page as _parse
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D

from fairpanel.judging import StudyItemRecord
from fairpanel.report import (
    PALETTE,
    DisplayTables,
    EmbeddedFigure,
    IntervalBar,
    Section,
    StudyPage,
    StudyVerdict,
    embed,
    interval_bars,
    new_figure,
    styled,
    write_study_report,
)
from fairpanel.studies import ItemSpec, Study, StudyConfig, StudyContext, result_table


class CoinConfig(StudyConfig):
    study: str = "coin-flip"


class CoinItem(ItemSpec):
    study: str = "coin-flip"


@styled
def _heads_figure(share: float) -> EmbeddedFigure:
    figure = new_figure(5.0, 2.5)
    axes = figure.add_subplot()
    interval_bars(axes, [IntervalBar(0, share, 0.4, 0.8, PALETTE[0])], horizontal=False)
    return embed(figure, "Share of heads with its interval")


class CoinFlip(Study[CoinConfig, CoinItem]):
    """A study no built-in code knows: only its own ``report`` says what its page shows."""

    name = "coin-flip"
    config_model = CoinConfig

    def items(self) -> Iterator[CoinItem]:
        return iter(())

    async def run_item(self, item: CoinItem, context: StudyContext) -> dict[str, Any]:
        return {}

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        return {
            "heads": 0.625,
            "tables": [
                result_table("Flips per coin", ["coin", "heads"], [["penny", 5]]),
                result_table("Timing", ["flip", "seconds"], [[1, 0.5]]),
            ],
        }

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        tables = DisplayTables(results)
        section = Section("coin-heads", "Heads and tails", "How often the coin lands heads.")
        section.figure(_heads_figure(results["heads"]), "Heads, 50% fair.", "No flips.")
        tables.claim(section, "Flips")
        verdict = StudyVerdict("measured", "Heads measured", f"Heads in {results['heads']:.1%}.")
        return StudyPage(verdict, [section])


class PlainStudy(CoinFlip):
    """The same study without a report of its own: the framework's default page."""

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        return Study.report(self, results)


def _results(study: Study[Any, Any]) -> dict[str, Any]:
    return {"study": study.name, "name": "flips", **study.analyze([])}


def test_a_study_from_outside_brings_its_own_section(tmp_path: Path) -> None:
    study = CoinFlip(CoinConfig(name="flips"))
    results = _results(study)
    written = write_study_report(tmp_path, results, study.report(results))
    document = _parse(written.read_text(encoding="utf-8"))
    # Its own section first, then the table it did not claim, then the shared sections.
    assert document.sections == ["coin-heads", "tables", "cost", "provenance"]
    assert "measured" in document.verdict_class
    assert "Heads measured" in document.text and "Heads in 62.5%." in document.text
    assert "How often the coin lands heads." in document.text
    assert [image["alt"] for image in document.images] == ["Share of heads with its interval"]
    # The claimed table in the study's section (after its lede), the other one after it.
    text = document.text
    lede = text.index("How often the coin lands heads.")
    other = text.index("Further tables from the study's analysis.")
    assert lede < text.index("Flips per coin") < other < text.index("Timing")


def test_a_study_without_a_report_of_its_own_shows_its_tables(tmp_path: Path) -> None:
    study = PlainStudy(CoinConfig(name="flips"))
    results = _results(study)
    document = _parse(
        write_study_report(tmp_path, results, study.report(results)).read_text(encoding="utf-8")
    )
    assert document.sections == ["tables", "cost", "provenance"]
    assert "Results of study coin-flip." in document.text
    assert "Flips per coin" in document.text and "Timing" in document.text
    assert not document.images


def test_the_page_redacts_what_the_study_wrote(tmp_path: Path) -> None:
    study = CoinFlip(CoinConfig(name="flips"))
    results = _results(study)
    results["tables"][0]["note"] = "served by https://user:hunter2@example.org/v1"
    page = study.report(results)
    page.sections[0].lede = "from https://user:hunter2@example.org/v1?key=abc"
    html = write_study_report(tmp_path, results, page).read_text(encoding="utf-8")
    assert "hunter2" not in html and "abc" not in html
    assert "[redacted]@example.org" in html


def test_interval_bars_draw_each_estimate_with_its_interval() -> None:
    figure = new_figure(4.0, 3.0)
    axes = figure.add_subplot()
    bars = [
        IntervalBar(0, 0.5, 0.2, 0.7, "#000000"),
        IntervalBar(1, 0.9, None, None, "#D55E00", hollow=True),
    ]
    interval_bars(axes, bars, horizontal=True, linewidth=3.0, line_alpha=0.5)
    (segments,) = [c for c in axes.collections if isinstance(c, LineCollection)]
    # Horizontal: the interval runs along x at the bar's position on y; no bar without ends.
    assert [s.tolist() for s in segments.get_segments()] == [[[0.2, 0.0], [0.7, 0.0]]]
    assert segments.get_linewidths()[0] == 3.0 and segments.get_alpha() == 0.5
    markers = [line for line in axes.lines if isinstance(line, Line2D)]
    assert [(m.get_xdata()[0], m.get_ydata()[0]) for m in markers] == [(0.5, 0), (0.9, 1)]
    assert [m.get_marker() for m in markers] == ["o", "s"]
    assert markers[0].get_markerfacecolor() == "#000000"
    assert markers[1].get_markerfacecolor() == "white"

    vertical = new_figure(4.0, 3.0).add_subplot()
    interval_bars(vertical, bars[:1], horizontal=False)
    (segments,) = vertical.collections
    assert isinstance(segments, LineCollection)
    assert [s.tolist() for s in segments.get_segments()] == [[[0.0, 0.2], [0.0, 0.7]]]
    assert (vertical.lines[0].get_xdata()[0], vertical.lines[0].get_ydata()[0]) == (0, 0.5)
