#!/usr/bin/env bash
# Everything CI checks, in one command: lint, format, strict types, tests.
# Uses the project's virtualenv (.venv) unless PYTHON points at another interpreter.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
python="${PYTHON:-$root/.venv/bin/python}"
echo "== ruff check"; "$python" -m ruff check .
echo "== ruff format --check"; "$python" -m ruff format --check .
echo "== mypy --strict"; PYTHON="$python" bash scripts/typecheck.sh
echo "== pytest"; "$python" -m pytest -q -p no:cacheprovider "$@"
