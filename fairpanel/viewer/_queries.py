"""What the viewer's endpoints answer: a page of trials, a filter's counts, one trial's whole
debate, a search; each an indexed query on the side file, never a read of every trial.

Filters are the page's hash keys (docs/transcripts.md), combined with "and". Each thread reads
through its own read-only connection to the side file, with the store attached read-only: the
trials' texts come from the store itself, fifty at a time.
"""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairpanel.viewer._index import FLIPPED, MOVED, PARSE, read_only
from fairpanel.viewer._search import SearchIndex, task_of

__all__ = ["FILTERS", "OUTCOMES", "PAGE_SIZE", "SELECTS", "Reader"]

PAGE_SIZE = 50
OUTCOMES = {"flipped": FLIPPED, "moved": MOVED, "parse": PARSE}
SELECTS = (
    "category", "identity", "arm", "treatment", "panel", "judge", "protocol", "status", "outcome",
)  # fmt: skip
"""The filters chosen from a list, in the form's order."""
FILTERS = (*SELECTS, "q", "trial", "page")
_COLUMNS = ("category", "arm", "treatment", "panel", "protocol", "status")
_TRIAL = (
    "n, key, protocol, status, panel, arm, treatment, category, scenario, model, identA, identB, "
    "authA, authB, respA, respB, winner, out, labelTwin, orderTwin"
)
_NUMBERS = struct.Struct("<13d")
METRIC_NAMES = ("creativity", "accuracy", "efficiency", "reliability")


def _score(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 2)


class Reader:
    """The queries, on one read-only connection per thread."""

    def __init__(self, index_path: Path, store_path: Path, search: SearchIndex) -> None:
        self.index_path, self.store_path, self.search = index_path, store_path, search
        self._local = threading.local()

    def db(self) -> sqlite3.Connection:
        found: sqlite3.Connection | None = getattr(self._local, "db", None)
        if found is None:
            found = read_only(self.index_path)
            found.execute(
                "ATTACH DATABASE ? AS run", (f"{self.store_path.resolve().as_uri()}?mode=ro",)
            )
            self._local.db, self._local.filled = found, set()
        return found

    def _search_hits(self, query: str) -> None:
        """Fill this thread's ``temp.hits`` with the trials that ``query`` finds, once."""
        db = self.db()
        filled: set[str] = self._local.filled
        if query in filled:
            return
        if len(filled) >= 8:
            db.execute("DELETE FROM temp.hits")
            filled.clear()
        self.search.fill(db, query)
        filled.add(query)

    def where(self, filters: Mapping[str, str]) -> tuple[str, list[Any]]:
        """The SQL condition selecting ``filters``' trials, and its parameters."""
        parts: list[str] = ["1"]
        params: list[Any] = []
        for name in _COLUMNS:
            if filters.get(name):
                parts.append(f"{name} = ?")
                params.append(filters[name])
        if filters.get("identity"):
            parts.append("(identA = ? OR identB = ?)")
            params += [filters["identity"]] * 2
        if filters.get("judge"):
            parts.append("n IN (SELECT n FROM trial_judge WHERE judge = ?)")
            params.append(filters["judge"])
        if filters.get("outcome"):
            parts.append("(out & ?) != 0")
            params.append(OUTCOMES.get(filters["outcome"], 0))
        if filters.get("trial"):
            prefix = filters["trial"].lower()
            parts.append("substr(key, 1, ?) = ?")
            params += [len(prefix), prefix]
        if filters.get("q"):
            self._search_hits(filters["q"])
            parts.append("n IN (SELECT n FROM temp.hits WHERE q = ?)")
            params.append(filters["q"])
        return " AND ".join(parts), params

    def count(self, filters: Mapping[str, str]) -> int:
        sql, params = self.where(filters)
        return int(
            self.db().execute(f"SELECT count(*) FROM trial WHERE {sql}", params).fetchone()[0]
        )

    def keys(self, filters: Mapping[str, str]) -> dict[str, Any]:
        """How many trials ``filters`` select, and the keys of its page of them."""
        matches = self.count(filters)
        pages = max(1, math.ceil(matches / PAGE_SIZE))
        try:
            page = min(pages, max(1, int(filters.get("page") or 1)))
        except ValueError:
            page = 1
        sql, params = self.where(filters)
        rows = self.db().execute(
            f"SELECT n, key FROM trial WHERE {sql} ORDER BY n LIMIT ? OFFSET ?",
            [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
        )
        found = rows.fetchall()
        return {
            "matches": matches, "page": page, "pages": pages,
            "n": [int(n) for n, _ in found], "keys": [str(key) for _, key in found],
        }  # fmt: skip

    def page(self, filters: Mapping[str, str]) -> dict[str, Any]:
        """One page of ``filters``' trials, each whole (``trial``), and how many match."""
        found = self.keys(filters)
        trials = [self.trial(n) for n in found.pop("n")]
        del found["keys"]
        return {**found, "total": self.total(), "trials": trials}

    def total(self) -> int:
        return int(self.db().execute("SELECT count(*) FROM trial").fetchone()[0])

    def counts(self, filters: Mapping[str, str]) -> dict[str, Any]:
        """How many trials match ``filters``, and for each list filter how many would match
        with each of its values chosen instead (the others kept)."""
        by: dict[str, dict[str, int]] = {}
        db = self.db()
        for name in SELECTS:
            others = {k: v for k, v in filters.items() if k not in (name, "page")}
            sql, params = self.where(others)
            if name in _COLUMNS:
                rows = db.execute(
                    f"SELECT {name}, count(*) FROM trial WHERE {sql} AND {name} IS NOT NULL "
                    f"GROUP BY {name}",
                    params,
                ).fetchall()
            elif name == "identity":
                rows = db.execute(
                    f"SELECT v, count(DISTINCT n) FROM (SELECT n, identA v FROM trial WHERE {sql} "
                    f"UNION ALL SELECT n, identB FROM trial WHERE {sql}) WHERE v IS NOT NULL "
                    "GROUP BY v",
                    params * 2,
                ).fetchall()
            elif name == "judge":
                rows = db.execute(
                    "SELECT judge, count(*) FROM trial_judge WHERE n IN "
                    f"(SELECT n FROM trial WHERE {sql}) GROUP BY judge",
                    params,
                ).fetchall()
            else:
                outcome_sql = f"SELECT count(*) FROM trial WHERE {sql} AND (out & ?) != 0"
                rows = [
                    (outcome, db.execute(outcome_sql, [*params, bit]).fetchone()[0])
                    for outcome, bit in OUTCOMES.items()
                ]
            by[name] = {str(value): int(count) for value, count in rows}
        return {"matches": self.count(filters), "by": by}

    def options(self) -> dict[str, list[str]]:
        """Every value each list filter can take."""
        db = self.db()
        found = {
            name: [str(v) for (v,) in db.execute(
                f"SELECT DISTINCT {name} FROM trial WHERE {name} IS NOT NULL ORDER BY 1")]
            for name in _COLUMNS
        }  # fmt: skip
        found["identity"] = [
            str(v)
            for (v,) in db.execute(
                "SELECT v FROM (SELECT identA v FROM trial UNION SELECT identB FROM trial) "
                "WHERE v IS NOT NULL ORDER BY 1"
            )
        ]
        found["judge"] = [
            str(v) for (v,) in db.execute("SELECT DISTINCT judge FROM trial_judge ORDER BY 1")
        ]
        found["outcome"] = list(OUTCOMES)
        return found

    def trial_by_key(self, key: str) -> dict[str, Any] | None:
        row = self.db().execute("SELECT n FROM trial WHERE key = ?", (key,)).fetchone()
        return None if row is None else self.trial(int(row[0]))

    def _row(self, n: int) -> dict[str, Any]:
        row = self.db().execute(f"SELECT {_TRIAL} FROM trial WHERE n = ?", (n,)).fetchone()
        return dict(zip([c.strip() for c in _TRIAL.split(",")], row, strict=True))

    def _twin(self, n: int | None) -> dict[str, Any] | None:
        if n is None:
            return None
        row = self._row(n)
        return {k: row[k] for k in ("identA", "identB", "respA", "respB", "winner")} | {
            "key": row["key"][:16],
            "fullKey": row["key"],
        }

    def trial(self, n: int) -> dict[str, Any]:
        """Trial ``n`` as the page draws it: its design, task, candidates, every judge turn,
        the consensus, and its twins' labels, answers and winners."""
        db = self.db()
        row = self._row(n)
        consensus_text, error = db.execute(
            "SELECT consensus, error FROM run.trials WHERE key = ?", (row["key"],)
        ).fetchone()
        consensus = json.loads(consensus_text) if consensus_text else None
        task = db.execute(
            "SELECT c.request FROM run.responses r JOIN run.calls c ON c.key = r.call_key "
            "WHERE r.scenario_id = ? ORDER BY r.response_index LIMIT 1",
            (row["scenario"],),
        ).fetchone()
        candidates = []
        for side in ("respA", "respB"):
            text = db.execute(
                "SELECT text FROM run.responses WHERE scenario_id = ? AND response_index = ? "
                "AND model = ?",
                (row["scenario"], row[side], row["model"]),
            ).fetchone()
            candidates.append(None if text is None else str(text[0]))
        single = row["protocol"] == "single"
        turns = []
        for round_, kind, judge, raw, reason, perr, attempts, numbers in db.execute(
            "SELECT round, round_kind, judge, raw_text, json_extract(parsed, '$.reason'), "
            "parse_error, attempts, numbers FROM run.turns WHERE trial_key = ? "
            "ORDER BY round, speaker_index",
            (row["key"],),
        ):
            values = _NUMBERS.unpack(numbers) if numbers else (math.nan,) * 13
            scores = [*values[1:5], *[math.nan] * 4] if single else list(values[5:13])
            turns.append({
                "round": round_, "kind": kind, "judge": judge, "raw": raw,
                "reason": None if reason is None else str(reason), "perr": perr,
                "attempts": attempts, "verdict": None if math.isnan(values[0]) else int(values[0]),
                "scores": [_score(v) for v in scores],
            })  # fmt: skip
        return {
            **{k: v for k, v in row.items() if k not in ("labelTwin", "orderTwin")},
            "fullKey": row["key"], "key": row["key"][:16], "error": error,
            "task": task_of(task[0]) if task else "",
            "candA": candidates[0], "candB": candidates[1],
            "cscores": (consensus or {}).get("scores"), "turns": turns,
            "labelTwin": self._twin(row["labelTwin"]), "orderTwin": self._twin(row["orderTwin"]),
        }  # fmt: skip
