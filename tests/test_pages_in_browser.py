"""Seen, not only built: the report and the documentation's main pages in headless Chromium.

Each page is opened from disk with the recorder of ``_browser.py`` (script errors, failed
resources, ``console.error``/``console.warn``) and Chromium's own console log as a second witness,
must show no error and decode every image, and is saved as a screenshot: under
``$JUDGESTATS_SCREENSHOTS`` when that names a folder (to look at them), else under the test's
temporary directory. The documentation is built into a temporary folder first, as the docs build
does (``sphinx -W``); without sphinx or chromium the tests skip and say why.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _browser import CHROMIUM, console_errors, probe, screenshot

from judgestats.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: The documentation's main pages: the front page, getting started, one guide page, the API.
DOC_PAGES = ("index", "getting_started", "guide/report", "api/index")
FLAGGED = ["--k", "50", "--n", "1000", "--k0", "9", "--m0", "12", "--k1", "10", "--m1", "12"]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium binary (Debian package `chromium`; scripts/install_chromium.sh "
    "installs it)",
)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where the screenshots go: $JUDGESTATS_SCREENSHOTS, else a temporary folder."""
    given = os.environ.get("JUDGESTATS_SCREENSHOTS")
    return Path(given) if given else tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def docs_html(tmp_path_factory) -> Path:
    """The documentation, built with warnings as errors into a temporary folder."""
    missing = [
        name
        for name in ("sphinx", "pydata_sphinx_theme", "myst_nb")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        pytest.skip(f"the docs extra is not installed ({', '.join(missing)} missing)")
    out = tmp_path_factory.mktemp("docs_html")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def _look(page: Path, name: str, shots: Path, tmp_path: Path) -> dict:
    """Probe ``page`` (no error, every image decoded) and save its screenshot as ``name``."""
    found, console = probe(page, tmp_path)
    assert found["errors"] == [], found["errors"]
    assert console_errors(console) == []
    for image in found["images"]:  # a broken or undecodable image has no natural size
        assert image["complete"] and image["width"] > 0, image
    data = screenshot(page, shots / f"{name}.png", tmp_path)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a blank page compresses to a few kB
    return found


@pytest.mark.parametrize("name", DOC_PAGES)
def test_docs_page_renders_without_errors(name, docs_html, shots, tmp_path):
    page = docs_html / f"{name}.html"
    assert page.is_file(), f"the docs build has no {name}.html"
    found = _look(page, "docs_" + name.replace("/", "_"), shots, tmp_path)
    assert "judgestats" in found["title"]
    assert found["text"] > 500


def test_flagged_report_renders_without_errors(shots, tmp_path):
    path = tmp_path / "flagged_report.html"
    assert main(["report", *FLAGGED, "--output", str(path)]) == 0
    found = _look(path, "report_flagged", shots, tmp_path)
    assert {image["id"] for image in found["images"]} == {"figure-theta", "figure-judge"}
    assert all(image["width"] > 100 for image in found["images"])


def test_console_witness_catches_a_failing_script(tmp_path):
    """The second witness is not blind: an uncaught error in a page is reported."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><head><title>x</title></head><body><p>x</p>"
        "<script>console.log('fine'); undefinedFunction();</script></body></html>",
        encoding="utf-8",
    )
    found, console = probe(page, tmp_path)
    assert any("undefinedFunction" in error for error in found["errors"])
    errors = console_errors(console)
    assert len(errors) == 1 and "undefinedFunction" in errors[0]
