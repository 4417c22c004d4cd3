"""A run's results do not depend on timing: the same experiment run at concurrency 1 and 32
writes byte-identical results.json and compare.json, and the same report.html but for its
timestamp.

Trials are stored in the order they finish, which concurrency changes; every read that feeds
the results must therefore order its rows itself."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

import fairpanel
from fairpanel.run_folder import compare, write_comparison

_EXPERIMENT = """\
name: {name}
models:
  judge:
    id: mock/judge
    mock: {{score_shift: {{female: {{clarity: {shift}}}}}, noise: 2, dither: true}}
panel:
  judges: [domain_expert, clarity_editor, creativity_reviewer]
  model: judge
  discussion_rounds: 1
responder:
  model: mock/responder
scenarios:
  bases: [fitness-coaching, nursing-care-plan, software-incident-response, emergency-triage,
          portfolio-advice]
  derived_per_base: 2
identities:
  categories: [gender]
arms:
  injection: true
  manipulations: [bandwagon, {{kind: verbosity, ratio: 2}}]
concurrency: {concurrency}
"""

_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")
_CONCURRENCY = re.compile(r"&#34;concurrency&#34;: \d+")
_WALL_TIME = re.compile(r'(wall time</div><div class="value">)[^<]*')
"""What is run-specific in a page: when it was written, how long the run took, and the
experiment file it shows (whose concurrency is what differs here)."""


def _page(path: Path) -> str:
    text = _STAMP.sub("<written>", path.read_text(encoding="utf-8"))
    text = _WALL_TIME.sub(r"\1<wall time>", text)
    return _CONCURRENCY.sub("<concurrency>", text)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Path]:
    """Two experiments (planted shifts 0 and 1), each run at concurrency 1 and 32."""
    root = tmp_path_factory.mktemp("same-results")
    folders = {}
    for name, shift in (("steady", 0), ("shifted", 1)):
        for concurrency in (1, 32):
            folder = root / f"concurrency-{concurrency}"  # the same run names in both
            folder.mkdir(exist_ok=True)
            source = folder / f"{name}.yaml"
            source.write_text(
                _EXPERIMENT.format(name=name, shift=shift, concurrency=concurrency),
                encoding="utf-8",
            )
            folders[name, concurrency] = fairpanel.run(source, folder / name).run_dir
    return folders


def _reversed_copy(run_dir: Path, copy: Path) -> Path:
    """``run_dir`` copied to ``copy`` with its trials and turns stored in the reverse order,
    then reported again."""
    shutil.copytree(run_dir, copy)
    with sqlite3.connect(copy / "fairpanel.sqlite") as db:
        for table in ("trials", "turns"):
            db.execute(f"CREATE TEMP TABLE held AS SELECT * FROM {table} ORDER BY rowid DESC")
            db.execute(f"DELETE FROM {table}")
            db.execute(f"INSERT INTO {table} SELECT * FROM held ORDER BY rowid")
            db.execute("DROP TABLE held")
    fairpanel.report_run(copy)
    return copy


@pytest.mark.parametrize("name", ["steady", "shifted"])
def test_results_and_report_are_the_same_at_any_concurrency(
    runs: dict[tuple[str, int], Path], name: str
) -> None:
    one, many = runs[name, 1], runs[name, 32]
    reordered = _reversed_copy(many, many.parent.parent / "reversed" / name)
    results = (one / "results.json").read_bytes()
    assert b"bias_profile" in results and b"injection_robustness" in results
    assert str(one.parent).encode() not in results  # no path to normalise
    for other in (many, reordered):
        assert results == (other / "results.json").read_bytes()
        assert _page(one / "report.html") == _page(other / "report.html")


def test_compare_is_the_same_at_any_concurrency(
    runs: dict[tuple[str, int], Path], tmp_path: Path
) -> None:
    written = []
    for concurrency in (1, 32):
        comparison = compare([runs["steady", concurrency], runs["shifted", concurrency]])
        out = tmp_path / str(concurrency)
        write_comparison(comparison, out)
        text = (out / "compare.json").read_text(encoding="utf-8")
        for name in ("steady", "shifted"):  # the folders' own paths, if they appear
            text = text.replace(str(runs[name, concurrency]), f"<{name}>")
        written.append((text, _page(out / "compare.html")))
    assert written[0] == written[1]
    assert json.loads(written[0][0])["pairing"]
