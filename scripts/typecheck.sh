#!/usr/bin/env bash
# mypy --strict over the fairpanel package. The subpackages live in top-level folders that
# setuptools maps into `fairpanel.*`; mypy cannot follow that mapping through an editable
# install, so we give it a tree of symlinks with the installed shape.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tree="$root/.typecheck"
python="${PYTHON:-python}"
# A relative interpreter path must survive the cd below.
[[ "$python" == */* ]] && python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")"
rm -rf "$tree"
mkdir -p "$tree/fairpanel"
for f in "$root"/fairpanel/*; do ln -s "$f" "$tree/fairpanel/"; done
for pkg in agents scenarios personas judging analysis report studies; do ln -s "$root/$pkg" "$tree/fairpanel/$pkg"; done
cd "$tree"
exec "$python" -m mypy --config-file "$root/pyproject.toml" -p fairpanel "$@"
