"""Headless Chromium for report tests: the DOM after load (with each image's decoded size
recorded by a small probe script) and a screenshot. No network, a fresh profile per call."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REQUIRE_ENV = "FAIRPANEL_REQUIRE_CHROMIUM"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
TIMEOUT_S = 90

# Recorded into the DOM on load: each image's decoded size and each section's rendered height.
PROBE = """<script>
window.addEventListener("load", () => {
  for (const img of document.images) {
    img.dataset.naturalWidth = img.naturalWidth;
    img.dataset.naturalHeight = img.naturalHeight;
    img.dataset.complete = img.complete;
  }
  for (const section of document.querySelectorAll("section[id]")) {
    section.dataset.renderedHeight = Math.round(section.getBoundingClientRect().height);
  }
  document.body.dataset.probed = "yes";
});
</script>"""


def chromium_or_skip() -> str:
    """The chromium binary; skip when absent unless FAIRPANEL_REQUIRE_CHROMIUM=1 (CI)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"chromium is not installed and {REQUIRE_ENV}=1")
    pytest.skip("chromium is not installed")


def _run(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [binary, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def dump_dom(binary: str, html: Path, workdir: Path, fragment: str = "") -> str:
    """The DOM of ``html`` (opened at ``#fragment`` when given) after load, as serialised by
    Chromium, with the probe's data."""
    probed = workdir / f"probed-{html.name}"
    text = html.read_text(encoding="utf-8")
    probed.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    # Virtual time lets the load event (and the probe) finish before the DOM is dumped.
    result = _run(
        binary,
        workdir / "profile-dom",
        "--virtual-time-budget=5000",
        "--dump-dom",
        probed.as_uri() + (f"#{fragment}" if fragment else ""),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def screenshot(binary: str, html: Path, out: Path, workdir: Path, height: int = 3200) -> Path:
    result = _run(
        binary,
        workdir / "profile-shot",
        f"--window-size=1280,{height}",
        f"--screenshot={out}",
        html.as_uri(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert out.is_file(), result.stderr[-2000:]
    return out


def dump_url(binary: str, url: str, workdir: Path, budget_ms: int = 5000) -> str:
    """The DOM of the page at ``url`` (a loopback server's) once its script has drawn, as
    serialised by Chromium; virtual time waits for the page's requests."""
    result = _run(
        binary, workdir / "profile-url", f"--virtual-time-budget={budget_ms}", "--dump-dom", url
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout
