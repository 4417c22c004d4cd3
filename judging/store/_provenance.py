"""What produced a run, written into its folder before the first call.

``experiment.resolved.json`` is the config as the run understood it (defaults filled in,
paths resolved) and ``manifest.json`` the interpreter, package versions, models and seed, so
anyone re-reading a run folder later knows what made it. Panel and study runs write the same
two files; only what their manifests list differs.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["MANIFEST_FILE", "RESOLVED_CONFIG_FILE", "environment", "write_provenance"]

RESOLVED_CONFIG_FILE = "experiment.resolved.json"
MANIFEST_FILE = "manifest.json"


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def environment(packages: Iterable[str]) -> dict[str, Any]:
    """The manifest's interpreter, platform and versions of ``packages`` (None if missing)."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in packages},
    }


def write_provenance(
    out_dir: Path, resolved: Mapping[str, Any], manifest: Mapping[str, Any]
) -> None:
    """Write the resolved config and the manifest into ``out_dir``."""
    (out_dir / RESOLVED_CONFIG_FILE).write_text(
        json.dumps(resolved, indent=2) + "\n", encoding="utf-8"
    )
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
