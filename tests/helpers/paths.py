"""Where the repository's own files are, for tests that read examples, docs or data."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = REPO_ROOT / "examples"
DOCS = REPO_ROOT / "docs"
