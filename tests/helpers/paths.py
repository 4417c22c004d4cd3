"""Where the repository's own files are, for tests that read examples, docs or data."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = REPO_ROOT / "examples"
DOCS = REPO_ROOT / "docs"


def shared_data(relative: str) -> Path | None:
    """``shared/data/<relative>`` beside the clone (or beside a folder holding it, for a
    worktree), where the upstream copies of the shipped data sets live; None on a clean clone,
    where the tests check the shipped copies against pinned digests instead."""
    for folder in REPO_ROOT.parents:
        candidate = folder / "shared" / "data" / relative
        if candidate.exists():
            return candidate
    return None
