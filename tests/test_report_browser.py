"""The HTML report in a real headless browser (Debian's ``chromium``; ``.ci/run`` installs it).

The report is written by the CLI, then opened twice from disk: once with a small recorder
injected (``window.onerror``, failed resources, ``console.error``/``console.warn``), whose
findings -- errors, every image's decoded size, the sections present -- are written into the DOM
on the ``load`` event and read back through ``--dump-dom``; Chromium's own log
(``--enable-logging=stderr``) is scanned for console messages as a second witness. Then a
screenshot is taken under the test's temporary directory.
"""

import json
import re

import pytest
from _browser import CHROMIUM, PROBE, RECORDER, chromium

from judgestats.cli import main

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium binary (Debian package `chromium`; .ci/run installs "
    "it with apt-get when it is missing)",
)

COUNTS = ["--k", "400", "--n", "1000", "--k0", "140", "--m0", "200", "--k1", "180", "--m1", "200"]


@pytest.fixture(scope="module")
def html_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    path = folder / "report.html"
    assert main(["report", *COUNTS, "--output", str(path)]) == 0
    return path


def test_report_renders_without_errors_and_with_figures(html_report, tmp_path):
    page = html_report.read_text(encoding="utf-8")
    assert "<script" not in page  # the report itself runs no code
    instrumented = tmp_path / "instrumented.html"
    instrumented.write_text(
        page.replace("<head>", "<head>" + RECORDER, 1).replace("</body>", PROBE + "</body>", 1),
        encoding="utf-8",
    )
    run = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", instrumented.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    match = re.search(r'<pre id="judgestats-probe">(.*?)</pre>', run.stdout, re.S)
    assert match is not None, "the page's load event never ran: " + run.stdout[:500]
    probe = json.loads(
        match.group(1)
        .replace("&quot;", '"')
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
    )
    assert probe["errors"] == []
    # Chromium's log: any console message at all (the report itself logs nothing)
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    assert probe["title"] == "judgestats report"
    assert probe["sections"] == [
        "recommendation",
        "inputs",
        "estimates",
        "judge-quality",
        "flags",
        "reproducibility",
    ]
    assert {image["id"] for image in probe["images"]} == {"figure-theta", "figure-judge"}
    for image in probe["images"]:  # decoded: a PNG that failed to decode has size 0
        assert image["complete"] and image["width"] > 100 and image["height"] > 100
    assert probe["text"] > 1000


def test_recorder_sees_a_broken_page(tmp_path):
    """The probe itself can fail: a page with a script error and a broken image is caught."""
    broken = tmp_path / "broken.html"
    broken.write_text(
        "<!DOCTYPE html><html><head>" + RECORDER + "</head><body><section "
        'id="x"><img src="data:image/png;base64,AAAA"></section>'
        "<script>undefinedFunction();</script>" + PROBE + "</body></html>",
        encoding="utf-8",
    )
    run = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", broken.as_uri())
    match = re.search(r'<pre id="judgestats-probe">(.*?)</pre>', run.stdout, re.S)
    probe = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert any("undefinedFunction" in error for error in probe["errors"])
    assert any(error.startswith("resource failed: IMG") for error in probe["errors"])
    assert probe["images"][0]["width"] == 0


def test_screenshot(html_report, tmp_path):
    shot = tmp_path / "report.png"
    run = chromium(
        tmp_path, "--window-size=1200,2400", f"--screenshot={shot}", html_report.as_uri()
    )
    assert run.returncode == 0, run.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 2400)
    assert len(data) > 20_000  # a blank page compresses to a few kB


def test_grouped_report_renders_without_errors(tmp_path):
    """`judgestats report --by`: the table across groups, one section and figure per group."""
    from judgestats.datasets import data_files

    path = tmp_path / "grouped.html"
    assert (
        main(
            [
                "report",
                "--items",
                str(data_files()["example_grouped_items.csv"]),
                "--judge-column",
                "verdict",
                "--human-column",
                "human_label",
                "--positive",
                "C",
                "--epoch",
                "1",
                "--by",
                "model",
                "--output",
                str(path),
            ]
        )
        == 0
    )
    page = path.read_text(encoding="utf-8")
    assert "<script" not in page
    instrumented = tmp_path / "instrumented.html"
    instrumented.write_text(
        page.replace("<head>", "<head>" + RECORDER, 1).replace("</body>", PROBE + "</body>", 1),
        encoding="utf-8",
    )
    run = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", instrumented.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    match = re.search(r'<pre id="judgestats-probe">(.*?)</pre>', run.stdout, re.S)
    assert match is not None, "the page's load event never ran: " + run.stdout[:500]
    probe = json.loads(
        match.group(1)
        .replace("&quot;", '"')
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
    )
    assert probe["errors"] == []
    assert [line for line in run.stderr.splitlines() if ":CONSOLE" in line] == []
    assert probe["sections"] == [
        "groups",
        "group-1",
        "group-2",
        "group-3",
        "flags",
        "reproducibility",
    ]
    assert [image["id"] for image in probe["images"]] == [
        "figure-group1_theta",
        "figure-group2_theta",
        "figure-group3_theta",
    ]
    for image in probe["images"]:
        assert image["complete"] and image["width"] > 100 and image["height"] > 100
