# Convenience targets; scripts/check.sh is the source of truth.
.PHONY: check test lint typecheck format

check:
	bash scripts/check.sh

test:
	.venv/bin/python -m pytest -q

lint:
	.venv/bin/python -m ruff check .

format:
	.venv/bin/python -m ruff format .

typecheck:
	PYTHON=.venv/bin/python bash scripts/typecheck.sh
