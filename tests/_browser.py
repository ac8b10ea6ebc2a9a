"""Headless Chromium for the tests that look at pages (the report, the documentation).

Shared by ``test_report_browser.py`` and ``test_pages_in_browser.py``: the binary (None where
none is installed: those tests skip), a recorder injected first into a page's ``<head>``
(``window.onerror``, failed resources, ``console.error``/``console.warn``), a probe that writes
what it saw into the DOM on ``load`` (read back through ``--dump-dom``), and :func:`probe`, which
does both for a page on disk and also returns the console lines of Chromium's own log
(``--enable-logging=stderr --v=0``), a second witness.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

__all__ = ["CHROMIUM", "PROBE", "RECORDER", "chromium", "console_errors", "probe", "screenshot"]

CHROMIUM = next(
    (
        path
        for path in (
            shutil.which("chromium"),
            shutil.which("chromium-browser"),
            shutil.which("google-chrome"),
            "/usr/bin/chromium",
        )
        if path and os.access(path, os.X_OK)
    ),
    None,
)

# Runs before anything else on the page: records every error it can see.
RECORDER = """<script>
window.__errors = [];
window.addEventListener("error", function (e) {
  var t = e.target;
  window.__errors.push(t && t !== window && t.tagName
    ? "resource failed: " + t.tagName + " " + String(t.src || t.href).slice(0, 80)
    : "script error: " + e.message);
}, true);
window.addEventListener("unhandledrejection", function (e) {
  window.__errors.push("unhandled rejection: " + e.reason);
});
["error", "warn"].forEach(function (level) {
  var original = console[level];
  console[level] = function () {
    window.__errors.push("console." + level + ": " + Array.prototype.join.call(arguments, " "));
    return original.apply(console, arguments);
  };
});
</script>"""

# Runs on load: writes what the test checks into the DOM, where --dump-dom can read it.
PROBE = """<script>
window.addEventListener("load", function () {
  var images = Array.prototype.map.call(document.images, function (img) {
    return {id: img.parentElement.id, complete: img.complete, width: img.naturalWidth,
            height: img.naturalHeight};
  });
  var sections = Array.prototype.map.call(document.querySelectorAll("section"),
                                          function (s) { return s.id; });
  var out = document.createElement("pre");
  out.id = "judgestats-probe";
  out.textContent = JSON.stringify({errors: window.__errors, images: images,
                                    sections: sections, title: document.title,
                                    text: document.body.innerText.length});
  document.body.appendChild(out);
});
</script>"""


def chromium(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        *arguments,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def _unescape(text: str) -> str:
    return (
        text.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    )


def probe(page: Path, tmp_path: Path) -> tuple[dict, list[str]]:
    """Open ``page`` with the recorder and probe injected; return the probe and the console log.

    The instrumented copy is written next to ``page`` (so relative links resolve as they do for
    the page itself) and removed afterwards.
    """
    text = page.read_text(encoding="utf-8")
    instrumented = page.with_name(page.stem + ".__probe__.html")
    instrumented.write_text(
        re.sub(r"<head>", lambda _: "<head>" + RECORDER, text, count=1).replace(
            "</body>", PROBE + "</body>", 1
        ),
        encoding="utf-8",
    )
    try:
        run = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", instrumented.as_uri())
    finally:
        instrumented.unlink()
    assert run.returncode == 0, run.stderr[-2000:]
    match = re.search(r'<pre id="judgestats-probe"[^>]*>(.*?)</pre>', run.stdout, re.S)
    assert match is not None, "the page's load event never ran: " + run.stdout[:500]
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return json.loads(_unescape(match.group(1))), console


#: What a console line of Chromium's log says when a script failed (every level logs as INFO).
_FAILURE = re.compile(r'"(Uncaught|Failed to load|Refused to|Error|TypeError|ReferenceError)')


def console_errors(console: list[str]) -> list[str]:
    """The console lines of Chromium's log that report a failure (not the page's own logging)."""
    return [line for line in console if _FAILURE.search(line.split("]", 1)[-1])]


def screenshot(page: Path, shot: Path, tmp_path: Path, size: tuple[int, int] = (1280, 1800)):
    """Save a screenshot of ``page`` to ``shot``; return its PNG bytes."""
    shot.parent.mkdir(parents=True, exist_ok=True)
    run = chromium(
        tmp_path,
        f"--window-size={size[0]},{size[1]}",
        "--virtual-time-budget=3000",
        f"--screenshot={shot}",
        page.as_uri(),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return shot.read_bytes()
