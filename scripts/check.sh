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
# The tests that run the local model go one at a time after the rest: llama.cpp slows about
# tenfold when another process takes a core. The rest share the two cores (pytest-xdist).
# pytest exits 5 when a selection leaves one half without tests; that is not a failure.
pytest_half() {
  local status=0
  "$python" -m pytest -q -p no:cacheprovider "$@" || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 5 ] || exit "$status"
}
echo "== pytest, without the local model (2 workers)"; pytest_half -m "not smollm" -n 2 "$@"
echo "== pytest, the local model"; pytest_half -m smollm "$@"
