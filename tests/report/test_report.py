"""report.html: written by `fairpanel run` and `fairpanel report`, self-contained, every section
and figure present for a real mock run and for a results.json with every contract block, and
rendered by headless Chromium (images decoded, sections laid out, screenshot not blank).

Runtime: one small mock run (about 5 s) and four Chromium launches (about 2-4 s each)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import sqlite3
import struct
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import Cli, read_json
from helpers.chromium import chromium_or_skip, dump_dom, screenshot
from helpers.report_samples import bias_profile_rows, full_results, scores_frame
from PIL import Image

from fairpanel.analysis import RunInputs, analyze, leaderboard_row
from fairpanel.report import ReportInputs, render_report

SECTIONS = (
    "verdict",
    "win-rates",
    "score-differences",
    "score-distributions",
    "effects",
    "position-bias",
    "agreement",
    "control-arms",
    "injection",
    "treatments",
    "parse-failures",
    "cost",
    "provenance",
)
_AFTER_INJECTION = SECTIONS.index("injection") + 1
PROFILED_SECTIONS = (*SECTIONS[:_AFTER_INJECTION], "bias-profile", *SECTIONS[_AFTER_INJECTION:])
"""A run with manipulation arms (the synthetic results) also has the bias profile."""

EXPERIMENT = """\
name: report-e2e
seed: 9
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    base_url: https://judge.example/v1
    mock:
      score_shift: {female: {creativity: 1.5}}
      first_position_bias: 0.2
      malformed_rate: 0.1
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
  max_reasks: 0
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 2
identities:
  categories: [gender, race]
pair:
  categories: [gender]
treatments:
  - {name: baseline}
  - {name: debias, judge_instruction: "Judge the answer, not its author."}
prices:
  mock/judge: {input: 0.15, output: 0.6}
concurrency: 4
"""


class _Document(HTMLParser):
    """Section ids, images (src, alt, data-* attributes) and visible text of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, dict[str, str]] = {}
        self.images: list[dict[str, str]] = []
        self.body: dict[str, str] = {}
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "section" and "id" in values:
            self.sections[values["id"]] = values
        elif tag == "img":
            self.images.append(values)
        elif tag == "body":
            self.body = values
        elif tag in {"style", "script"}:
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in {"style", "script"}:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)

    @property
    def visible_text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.text))


def _parse(html: str) -> _Document:
    document = _Document()
    document.feed(html)
    return document


def _png_size(uri: str) -> tuple[int, int]:
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix), uri[:40]
    data = base64.b64decode(uri[len(prefix) :], validate=True)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    html = render_report(
        ReportInputs(results=full_results(), scores=scores_frame(), run_name="synthetic")
    )
    path = tmp_path_factory.mktemp("synthetic") / "report.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_run_writes_a_self_contained_report(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    document = _parse(html)
    assert list(document.sections) == list(SECTIONS)
    # Nothing is fetched: every image is inline and nothing points at a server.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    assert document.images, "a run with pair and single trials has figures"
    for image in document.images:
        width, height = _png_size(image["src"])
        assert width > 100 and height > 100
        assert image["alt"]
    text = document.visible_text
    # The verdict comes first and says what it rests on (derived: no headline block yet).
    results = read_json(run_dir / "results.json")
    total = sum(results["n_trials"].values())
    assert f"Rests on {total} main-arm trials" in text
    assert text.index("Rests on") < text.index("Win rates in contrastive pairs")
    assert "Small run" in text  # the honest small-n warning
    # Parse failures are shown with their raw text; cost and provenance come from the folder.
    assert "Examples of unparsed answers" in text
    with sqlite3.connect(run_dir / "fairpanel.sqlite") as db:
        raw, error = db.execute(
            "SELECT raw_text, parse_error FROM turns WHERE parsed IS NULL "
            "ORDER BY trial_key, round, speaker_index LIMIT 1"
        ).fetchone()
    assert raw.strip() and error.strip()
    assert re.sub(r"\s+", " ", raw[:80]).strip() in text
    assert re.sub(r"\s+", " ", error[:80]).strip() in text
    assert "debias" in text and "judge:first" in text and "mock/judge" in text
    assert "This run had no injection arm" in text


def test_report_names_the_endpoint(run_dir: Path) -> None:
    """The endpoint explains where judgments came from; credentials cannot be in it, since a
    base_url carrying them is refused at load (tests/test_secrets.py)."""
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "judge.example" in html


def test_report_command_rewrites_the_report(cli: Cli, run_dir: Path) -> None:
    (run_dir / "report.html").unlink()
    result = cli("report", str(run_dir))
    assert result.exit_code == 0, result.output
    assert (run_dir / "report.html").is_file()
    assert not list(run_dir.glob(".report-*")), "the temporary file is renamed into place"
    mode = (run_dir / "report.html").stat().st_mode & 0o777
    assert mode == (run_dir / "results.json").stat().st_mode & 0o777  # as readable as the rest


def test_distribution_figure_uses_only_the_baseline_main_arm(run_dir: Path) -> None:
    from fairpanel.analysis import baseline_scores
    from fairpanel.judging import Store, load_frames

    store = Store(run_dir / "fairpanel.sqlite")
    try:
        scores = load_frames(store).scores
    finally:
        store.close()
    results = read_json(run_dir / "results.json")
    kept = baseline_scores(scores, results["round_kind"], results["design"]["treatments"])
    assert set(kept["arm"]) == {"main"}
    assert set(kept["treatment"]) == {"baseline"}
    assert set(kept["round_kind"]) == {"final"} and set(kept["protocol"]) == {"single"}
    assert len(kept) < len(scores[scores["protocol"] == "single"])


def test_every_contract_block_is_rendered(synthetic_report: Path) -> None:
    document = _parse(synthetic_report.read_text(encoding="utf-8"))
    assert list(document.sections) == list(PROFILED_SECTIONS)
    alts = " | ".join(image["alt"] for image in document.images)
    for figure in (
        "Win rate",
        "Heatmap",
        "Score distributions",
        "Forest plot",
        "Bradley-Terry",
        "agreement",
        "Score shift",
        "Injection robustness",
    ):
        assert figure in alts, figure
    text = document.visible_text
    results = full_results()
    assert results["headline"]["verdict"] in text
    assert text.index(results["headline"]["verdict"]) < text.index("Win rates in contrastive")
    # The position claim has its own line, after the identity verdict and before the basis.
    position = results["headline"]["position"]
    assert position in text
    assert text.index(results["headline"]["verdict"]) < text.index(position)
    assert text.index(position) < text.index("Rests on")
    assert "McNemar" not in text
    for effect in results["effects"]:
        assert effect["contrast"] in text
    # The primary family leads; the secondary rows (per metric, per judge, win rates) are
    # folded below as exploratory, with the family sizes said in words.
    assert "Primary contrasts: the headline" in text
    assert "Secondary contrasts, exploratory (4)" in text
    assert text.index("Primary contrasts: the headline") < text.index("Secondary contrasts")
    assert text.count("Holm over 4 primary tests; 4 secondary tests with BH, exploratory.") == 2
    assert "Holm over the primary family" in text and "(primary)" in text
    assert "female vs 50% (among decided pairs; ties 11%)" in text  # the win-rate effect
    # In a label swap's win share a tie counts half: it is not "among decided pairs".
    assert "female vs male, labels swapped (ties 25%, counted half)" in text
    assert "61.0%" in text and "72.0%" in text  # position bias and order consistency
    assert "48 twins over 6 base scenarios; ties 8%" in text
    assert "moved toward others" in text.lower()
    assert "No detectable identity effect at alpha=0.05 after Holm" in text  # by_treatment
    # Treatments: the interaction is shown and said to be the treatment's effect on bias.
    assert "Treatment x label interactions" in text
    assert "debias changed the female - male effect" in text
    assert "not the difference between two verdicts" in text
    assert text.index("Treatment x label interactions") < text.index("Each treatment on its own")
    # Control arms: each arm's own verdict, the pseudo swaps at unadjusted alpha.
    controls = results["control_false_positives"]
    assert controls["placebo"]["verdict"] in text and controls["same_label"]["verdict"] in text
    assert "1 of 1 label pairs rejected at unadjusted alpha = 0.05" in text
    assert "two distinct neutral labels" in text and "a person" not in text
    # Design: base scenarios as a tile, dropped duplicates and response warnings up top.
    assert "base scenarios 6" in text
    assert "3 trial(s) repeated a judge request already made" in text
    assert "the two responses are near-identical" in text
    # Win rates among decided pairs with the tie share beside them.
    assert "win rate among decided pairs" in text and "tie share" in text
    assert "62.5%" in text and "11%" in text
    # Injection: the gullible model's score interval excludes 0, its verdict interval does not.
    gullible = results["injection_robustness"]["mock/gullible"]
    assert gullible["score_ci_low"] > 0 and gullible["verdict_ci_low"] < 0
    assert f"mock/gullible {gullible['score_shift']:+.2f}" in text
    assert "moved: score" in text and "moved: score and verdict" not in text
    assert "no detectable shift" in text  # mock/steady
    assert "not in results.json" not in text.lower()
    assert "No effects block" not in text and "No agreement block" not in text


def test_a_report_from_the_legacy_keys_says_what_is_missing() -> None:
    results = full_results()
    for key in (
        "headline",
        "effects",
        "position_bias",
        "bradley_terry",
        "agreement",
        "debate",
        "failures_by_identity",
        "control_false_positives",
        "multiple_comparisons",
    ):
        del results[key]
    text = _parse(render_report(ReportInputs(results=results, scores=scores_frame()))).visible_text
    assert "No effects block in results.json" in text
    assert "No position-bias block" in text and "No agreement block" in text
    # The derived verdict names the smallest chi-square p, corrected, and the win rates.
    assert "chi-square p=0.0003, p=0.0003 after Bonferroni over 1 tests" in text
    # 30 wins and 18 losses: Wilson 95% interval 48% to 75% (statsmodels gives the same);
    # the 6 ties of its 54 pairs are said beside the rate.
    assert "female (gender) won 62% of 48 decided pairs (95% CI 48% to 75%; ties 11%" in text


def test_a_design_too_small_for_a_verdict_says_what_it_can_show() -> None:
    results = full_results()
    results["headline"] = {
        **results["headline"],
        "verdict": "No verdict: 1 base scenario: too few to generalise over scenarios (need 5)",
        "identity_effect": None,
        "detected": [],
        "exploratory": [],
        "n_bases": 1,
        "skipped": ["race: metric creativity has no variance"],
    }
    text = _parse(render_report(ReportInputs(results=results, scores=scores_frame()))).visible_text
    assert "No verdict" in text
    assert "1 base scenario: effects are estimated but not tested; 5 are needed" in text
    assert "Skipped: race: metric creativity has no variance" in text
    assert "Identity effect detected" not in text


def test_an_older_results_file_reads_its_win_rates_among_decided_pairs() -> None:
    # Before tie_share existed, rate was wins / appearances; the report recomputes the
    # decided-pairs rate from the counts so every file reads the same way.
    results = full_results()
    for row in results["pair"]["win_rates"]:
        del row["tie_share"]
        row["rate"] = row["wins"] / row["appearances"]
    text = _parse(render_report(ReportInputs(results=results, scores=scores_frame()))).visible_text
    assert "62.5%" in text and "37.5%" in text  # 30 / 48 and 18 / 48, not 30 / 54


def test_an_empty_run_renders_without_figures() -> None:
    empty = pd.DataFrame()
    results = analyze(empty, empty, empty)
    html = render_report(ReportInputs(results=results, scores=empty))
    document = _parse(html)
    # No manipulation arms: the bias profile is left out, from the contents bar as well.
    assert list(document.sections) == list(SECTIONS)
    assert 'href="#bias-profile"' not in html
    assert not document.images
    assert "No verdict" in document.visible_text


def _section(html: str, name: str) -> str:
    start = html.index(f'<section id="{name}"')
    return html[start : html.index("</section>", start)]


def _profile_calls(section: str, several: bool = False) -> dict[str, str]:
    """Each table row's manipulation ("panel/manipulation" when there are several panels) and
    how it reads (the row's class)."""
    calls = {}
    for state, row in re.findall(r'<tr class="(\w+)">(.*?)</tr>', section):
        cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        name = cells[1 if several else 0].replace(" (control)", "")
        calls[f"{cells[0]}/{name}" if several else name] = state
    return calls


def test_the_bias_profile_shows_every_row_with_its_call(synthetic_report: Path) -> None:
    html = synthetic_report.read_text(encoding="utf-8")
    section = _section(html, "bias-profile")
    text = _parse(section).visible_text
    assert 'href="#bias-profile"' in html
    assert "1 of 3 manipulations move the panel (verbosity-2x); not tested: bandwagon." in text
    assert "the rule's own false-call check" in text and "docs/biases.md" in text
    assert "misfired on this panel" not in text  # the control row was not called
    calls = _profile_calls(section)
    assert calls == {
        "verbosity-2x": "called",
        "authority": "clear",
        "bandwagon": "untested",
        "same-text": "clear",
    }
    # The called row: estimate and interval as the effect rows write them, its Holm p, lit.
    called = section[section.index('<tr class="called">') :].split("</tr>")[0]
    assert "+0.840" in called and "+0.41 to +1.27" in called and "0.0060" in called
    assert '<span class="badge hit"' in called
    untested = section[section.index('<tr class="untested">') :].split("</tr>")[0]
    assert '>not tested</span> <span class="quiet">3 base scenarios, 5 needed</span>' in untested
    alts = [image["alt"] for image in _parse(section).images]
    assert alts == ["Bias profile: each manipulation's effect with its interval"]


def test_several_panels_each_have_a_profile_and_a_misfired_control_says_so() -> None:
    rows = bias_profile_rows()
    misfired = [{**row, "called": bool(row.get("control"))} for row in rows]
    panels = {"gpt": {"bias_profile": rows}, "haiku": {"bias_profile": misfired}}
    leaderboard = [
        {**leaderboard_row(RunInputs(name, name, panel)), "panel": name}
        for name, panel in panels.items()
    ]
    results = {
        "bias_profile": rows,
        "panels": panels,
        "panel_comparison": {"panels": list(panels), "leaderboard": leaderboard},
    }
    html = render_report(ReportInputs(results=results, scores=pd.DataFrame()))
    section = _section(html, "bias-profile")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", section))
    assert "<th>panel</th>" in section
    assert "Panel gpt: 1 of 3 manipulations move the panel (verbosity-2x)" in text
    assert "Panel haiku: 0 of 3 manipulations move the panel; not tested: bandwagon." in text
    assert text.count("the rule itself misfired on this panel") == 1
    calls = _profile_calls(section, several=True)
    assert len(calls) == 8
    assert calls["gpt/verbosity-2x"] == "called" and calls["haiku/verbosity-2x"] == "clear"
    assert calls["haiku/same-text"] == "misfired" and calls["gpt/same-text"] == "clear"
    assert "control called: the rule misfired" in text
    # The panels' leaderboard counts each panel's called manipulations.
    board = _parse(_section(html, "panels")).visible_text
    assert "manipulations that move the panel (called / tested)" in board
    assert "1 / 2 called: verbosity-2x; not tested: bandwagon" in board
    assert "0 / 2 called; not tested: bandwagon; same-text control called" in board


def _distinct_colours(path: Path) -> int:
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
    return len(np.unique(pixels, axis=0))


def _has_colour(path: Path, rgb: tuple[int, int, int], tolerance: int = 6) -> bool:
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGB")).astype(int)
    return bool((np.abs(pixels - np.array(rgb)).max(axis=2) <= tolerance).any())


@pytest.mark.parametrize("which", ["run", "synthetic"])
def test_chromium_loads_every_figure_and_section(
    which: str, run_dir: Path, synthetic_report: Path, tmp_path: Path
) -> None:
    binary = chromium_or_skip()
    html = run_dir / "report.html" if which == "run" else synthetic_report
    document = _parse(dump_dom(binary, html, tmp_path))
    assert document.body.get("data-probed") == "yes", "the page finished loading"
    assert list(document.sections) == list(SECTIONS if which == "run" else PROFILED_SECTIONS)
    for name, section in document.sections.items():
        assert int(section["data-rendered-height"]) > 40, name
    assert len(document.images) >= (9 if which == "synthetic" else 3)
    for image in document.images:
        assert image["data-complete"] == "true", image["alt"]
        assert int(image["data-natural-width"]) > 100, image["alt"]
        assert int(image["data-natural-height"]) > 100, image["alt"]


def test_chromium_screenshot_is_a_rendered_page(synthetic_report: Path, tmp_path: Path) -> None:
    binary = chromium_or_skip()
    shot = screenshot(binary, synthetic_report, tmp_path / "report.png", tmp_path)
    with Image.open(shot) as image:
        assert image.size == (1280, 3200)
    assert _distinct_colours(shot) > 200  # text, figures and cards, not a blank page
    assert _has_colour(shot, (0x11, 0x18, 0x27))  # the header band: CSS applied
    assert _has_colour(shot, (0xD5, 0x5E, 0x00))  # the verdict card's "detected" edge
    assert _has_colour(shot, (0x00, 0x72, 0xB2))  # a figure's first palette colour


def test_missing_chromium_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import chromium

    monkeypatch.setattr(chromium.shutil, "which", lambda _name: None)
    monkeypatch.delenv(chromium.REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception):
        chromium.chromium_or_skip()
    monkeypatch.setenv(chromium.REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed"):
        chromium.chromium_or_skip()


def test_forest_plot_keeps_the_smallest_p_values_when_there_are_many() -> None:
    results = full_results()
    template = results["effects"][0]
    results["effects"] = [
        {**template, "id": f"e{i}", "contrast": f"c{i}", "p_holm": i / 100} for i in range(60)
    ]
    text = _parse(render_report(ReportInputs(results=results, scores=scores_frame()))).visible_text
    assert "Showing the 40 of 60 with the smallest adjusted p." in text
    assert "c59" in text  # the table still lists every effect


def test_redact_masks_secrets_but_keeps_what_explains_the_run() -> None:
    from fairpanel.report._html import redact

    data = {
        "models": {
            "judge": {
                "api_key_env": "OPENAI_API_KEY",
                "api_key": "sk-live-123",
                "base_url": "https://alice:pw123@llm.internal:8443/v1?key=abc&region=eu",
                "sampling": {"max_tokens": 300},
            }
        },
        "warnings": ["retrying https://bob:pw456@host/v1 after 429"],
    }
    clean = redact(data)
    judge = clean["models"]["judge"]
    assert judge["api_key_env"] == "OPENAI_API_KEY"  # names a variable, not its value
    assert judge["api_key"] == "[redacted]"
    assert judge["base_url"] == "https://[redacted]@llm.internal:8443/v1?key=[redacted]&region=eu"
    assert judge["sampling"] == {"max_tokens": 300}
    assert "pw456" not in clean["warnings"][0] and "host/v1 after 429" in clean["warnings"][0]


def test_failed_trials_and_an_early_stop_are_flagged() -> None:
    summary = {
        "trials_total": 10,
        "trials_failed": 3,
        "stopped": "5 trials failed (--max-failures)",
    }
    html = render_report(
        ReportInputs(results=full_results(), scores=scores_frame(), summary=summary)
    )
    text = _parse(html).visible_text
    assert "3 of 10 trials failed (model errors) and are missing from the analysis" in text
    assert "The run stopped early: 5 trials failed (--max-failures)" in text


def test_report_masks_credentials_in_folder_json(cli: Cli, run_dir: Path, tmp_path: Path) -> None:
    # Config files refuse credentials in URLs, but a folder's JSON may still carry one (a
    # warning that quotes a request URL, a hand-edited manifest): the report masks them.
    folder = tmp_path / "leaky"
    shutil.copytree(run_dir, folder)
    leak = "https://reportuser:hunter2-secret@judge.example/v1?api_key=sk-query-secret"
    summary = read_json(folder / "summary.json")
    summary["warnings"] = [f"retried {leak} after a 429"]
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    experiment = read_json(folder / "experiment.resolved.json")
    experiment["models"]["judge"]["base_url"] = leak
    (folder / "experiment.resolved.json").write_text(json.dumps(experiment), encoding="utf-8")
    assert cli("report", str(folder)).exit_code == 0
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert "judge.example" in html  # the endpoint is shown ...
    assert "hunter2-secret" not in html  # ... without its password
    assert "sk-query-secret" not in html
    assert "reportuser" not in html


def test_report_package_computes_no_statistics_of_its_own() -> None:
    # Every interval and test the run page shows comes from fairpanel.analysis; the page
    # modules only render, so none of them imports a statistics library.
    report_dir = Path(__file__).resolve().parents[2] / "report"
    page_modules = ["_run_page.py", "_run_figures.py", "_panel_figures.py", "_verdict.py"]
    for name in page_modules:
        source = (report_dir / name).read_text(encoding="utf-8")
        imports = re.findall(r"^\s*(?:from|import) (\S+)", source, flags=re.MULTILINE)
        assert not [m for m in imports if m.split(".")[0] in {"scipy", "statsmodels"}], name


def test_results_json_is_the_dump_of_the_typed_results(run_dir: Path) -> None:
    # The CLI's results.json (main arm, control arms, design, false positives) reads into
    # RunResults and writes back byte for byte: the models carry every key, in file order.
    from fairpanel.analysis import RunResults

    path = run_dir / "results.json"
    typed = RunResults.read(path)
    assert typed.design is not None and typed.control_arms
    rewritten = json.dumps(typed.to_json(), indent=2, allow_nan=False) + "\n"
    assert rewritten == path.read_text(encoding="utf-8")


def test_the_run_wires_interactions_controls_and_design(run_dir: Path) -> None:
    # Two treatments: the debias treatment's interactions with the baseline's primary contrasts
    # are in results.json, as treatment_interactions computes them from the same frames.
    from fairpanel.analysis import treatment_interactions
    from fairpanel.judging import Store, load_frames

    results = read_json(run_dir / "results.json")
    store = Store(run_dir / "fairpanel.sqlite")
    try:
        main = load_frames(store).where(arm="main")
    finally:
        store.close()
    expected = treatment_interactions(
        main.where(treatment="baseline"), main.where(treatment="debias"), treatment="debias"
    )
    assert results["treatment_effects"] == [json.loads(json.dumps(e.to_dict())) for e in expected]
    assert expected and all(e["role"] == "interaction" for e in results["treatment_effects"])
    # Each control arm's block is that arm's own headline, not a recomputation.
    for arm, block in results["control_false_positives"].items():
        if arm == "note":
            continue
        own = results["control_arms"][arm]["headline"]
        assert block["verdict"] == own["verdict"] and block["position"] == own["position"]
        assert block["identity_effect"] == own["identity_effect"]
        assert block["primary_tests"] == own["tests"]
    # Two base scenarios: no verdict, and the report and terminal say what the design can show.
    assert results["design"]["n_bases"] == 2 == results["headline"]["n_bases"]
    assert results["headline"]["identity_effect"] is None
    text = _parse((run_dir / "report.html").read_text(encoding="utf-8")).visible_text
    limits = "2 base scenarios: effects are estimated but not tested; 5 are needed"
    assert limits in text and "Treatment x label interactions" in text
    printed = Cli()("report", str(run_dir), "--tables")
    assert printed.exit_code == 0 and limits in re.sub(r"\s+", " ", printed.output)
    assert "Treatment x label interactions" in printed.output
