"""The report (HTML and Markdown): the CLI's numbers, escaping, files, errors, reproducibility."""

import base64
import dataclasses
import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import judgestats as jc
from judgestats.cli import main

PAPER = dict(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
COUNTS = ["--k", "400", "--n", "1000", "--k0", "140", "--m0", "200", "--k1", "180", "--m1", "200"]
# m0 = m1 = 12 < 30 and p-hat = 0.05 < 1 - q0-hat: clipped, small calibration, several notes
FLAGGED = dict(k=50, n=1000, k0=9, m0=12, k1=10, m1=12)
# q0-hat + q1-hat - 1 = 0.1 + 0.15 - 1 < 0: no closed form at all
NO_CORRECTION = dict(k=400, n=1000, k0=2, m0=20, k1=3, m1=20)


def counts(values):
    return [word for name, value in values.items() for word in (f"--{name}", str(value))]


def run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class Tables(HTMLParser):
    """Rows of every <table>, keyed by its class: {class: [[cell text, ...], ...]}."""

    def __init__(self):
        super().__init__()
        self.tables, self.current, self.row, self.cell = {}, None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.current = self.tables.setdefault(dict(attrs).get("class", ""), [])
        elif tag == "tr" and self.current is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.current.append(self.row)
            self.row = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def tables(page):
    parser = Tables()
    parser.feed(page)
    return parser.tables


def cli_rows(out, labels):
    """{label: [number strings]} from the CLI's fixed-width table lines."""
    rows = {}
    for line in out.splitlines():
        for label in labels:
            if line.strip().startswith(label + " ") or line.strip() == label:
                rows[label] = line.strip()[len(label) :].split()
    return rows


CROSSCHECK_LABELS = (
    "naive p-hat + Wald",
    "Rogan-Gladen + Lang-Reiczigel",
    "posterior median + equal-tailed",
    "posterior mode + HDI",
)


@pytest.fixture(scope="module")
def paper_report():
    return jc.report(jc.JudgeData(**PAPER))


# ---------------------------------------------------------------------------------------------
# the numbers are the CLI's
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("values, level", [(PAPER, "0.95"), (FLAGGED, "0.9")])
def test_html_shows_what_the_cli_prints(values, level, tmp_path, capsys):
    data_args = [*counts(values), "--confidence-level", level]
    code, crosscheck_out, _ = run(capsys, ["crosscheck", *data_args])
    assert code == 0
    code, posterior_out, _ = run(capsys, ["posterior", *data_args])
    assert code == 0
    path = tmp_path / "r.html"
    assert run(capsys, ["report", *data_args, "--output", str(path)])[0] == 0
    page = path.read_text(encoding="utf-8")
    found = tables(page)

    # the cross-check table: every row, every number, as `judgestats crosscheck` prints it
    expected = cli_rows(crosscheck_out, CROSSCHECK_LABELS)
    assert len(expected) == 4
    shown = {row[0]: row[1:] for row in found["intervals"][1:]}
    # plus the recommended interval where it is none of those rows (the headline is a row)
    label, *numbers = re.search(
        r"recommended: (.+?) (\S+) \((\S+), (\S+)\), \S+ interval", crosscheck_out
    ).groups()
    if label not in expected:
        width = f"{float(numbers[2]) - float(numbers[1]):.4f}"
        expected[label] = [*numbers, width]
    assert shown == expected
    # judge quality: mean, median, ETI and HDI of theta, q0, q1, J as `judgestats posterior`
    expected = cli_rows(posterior_out, ("theta", "q0", "q1", "youden"))
    shown = {row[0].split()[0].replace("J", "youden"): row[2:] for row in found["posterior"][1:]}
    assert shown == expected
    # the inputs line and the posterior checks, word for word
    test_line = re.search(r"test set\s+: (.*)", crosscheck_out).group(1)
    assert ["test set", test_line] in found["inputs"]
    checks = re.search(r"checks: (.*)", posterior_out).group(1)
    assert html.escape(checks) in page
    # every note of the cross-check, with its advice
    for note in re.findall(r"note: (.*)", crosscheck_out):
        assert html.escape(note) in page
    assert f"judgestats cross-check ({100 * float(level):g}% intervals; posterior by exact)" in page


def test_numbers_match_the_hand_computed_estimate(paper_report):
    # Lee et al. v1 eq. 4: theta = (p + q0 - 1) / (q0 + q1 - 1) = (0.4 + 0.7 - 1) / 0.6 = 1/6
    row = paper_report.interval_rows()[1]
    assert row[:2] == ("Rogan-Gladen + Lang-Reiczigel", "0.1667")
    # naive row: p-hat = 0.4, Wald half-width 1.959964 * sqrt(0.4 * 0.6 / 1000) = 0.030364
    assert paper_report.interval_rows()[0][1:] == ("0.4000", "0.3696", "0.4304", "0.0607")
    # the calibration column: q0 = 140/200, q1 = 180/200, J = 0.6
    assert [row[1] for row in paper_report.posterior_rows()] == ["", "0.7000", "0.9000", "0.6000"]


def test_report_agrees_with_the_public_api(paper_report):
    data = jc.JudgeData(**PAPER)
    est = jc.estimate(data)
    post = jc.posterior(data, random_seed=0)
    assert paper_report.interval_rows()[1][2:4] == (f"{est.ci.low:.4f}", f"{est.ci.high:.4f}")
    eti = post.ci(0.95, "eti", "q1")
    q1_row = paper_report.posterior_rows()[2]
    assert q1_row[4:6] == (f"{eti.low:.4f}", f"{eti.high:.4f}")


def test_no_closed_form_is_reported_not_raised(tmp_path, capsys):
    code, out, err = run(
        capsys, ["report", *counts(NO_CORRECTION), "--output", str(tmp_path / "r.html")]
    )
    assert code == 0 and err == ""
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    rows = {row[0]: row[1:] for row in tables(page)["intervals"][1:]}
    assert rows["Rogan-Gladen + Lang-Reiczigel"] == ["n/a"] * 4
    assert "no_closed_form" in page and "calibration_contradicts_prior" in page


# ---------------------------------------------------------------------------------------------
# content and escaping
# ---------------------------------------------------------------------------------------------
def test_every_section_and_both_figures_are_present(paper_report):
    page = paper_report.to_html()
    for section in (
        "recommendation",
        "inputs",
        "estimates",
        "judge-quality",
        "flags",
        "reproducibility",
    ):
        assert f'<section id="{section}">' in page
    images = re.findall(r'<img src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 2
    for encoded in images:
        assert base64.b64decode(encoded)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "No flags" in page  # the paper's example raises none
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


def test_text_is_escaped(tmp_path):
    nasty = '<script>alert("x")</script>|*_.csv'
    rep = jc.report(jc.JudgeData(**NO_CORRECTION), source=nasty, command="judgestats & <b>")
    page = rep.to_html()
    assert "<script" not in page and "<b>" not in page
    assert html.escape(nasty) in page and "judgestats &amp; &lt;b&gt;" in page
    # flag messages hold "q0 + q1 > 1": escaped too
    assert "q0 + q1 &gt; 1" in page
    # Markdown: every "<" is backslash-escaped (literal text in CommonMark), and so are the
    # characters that would end a table cell or start emphasis
    markdown = rep.to_markdown()
    assert re.search(r"(?<!\\)<", markdown) is None
    assert r'\<script\>alert("x")\</script\>\|\*\_.csv' in markdown


def test_flags_carry_their_advice(tmp_path):
    rep = jc.report(jc.JudgeData(**FLAGGED))
    keys = [key for _, key, _ in rep.flag_rows()]
    assert {"small_calibration", "boundary"} <= set(keys)
    assert "clipped" in keys  # the closed form's own flags are listed too
    assert len(keys) == len(set(keys))  # a flag both the cross-check and the estimate raise: once
    page = rep.to_html()
    assert f"Flags ({len(keys)})" in page
    for _, _, message in rep.flag_rows():
        assert html.escape(message) in page


def test_recommended_interval_leads_when_the_crosscheck_offers_one(paper_report):
    class Recommended:
        estimate, low, high, method, level = 0.17, 0.06, 0.27, "guaranteed", 0.95
        reason = "the narrowest interval that covers here"

    class WithRecommendation:
        def __init__(self, inner):
            self._inner = inner
            self.recommended = Recommended()

        def __getattr__(self, name):
            return getattr(self._inner, name)

    rep = dataclasses.replace(paper_report, crosscheck=WithRecommendation(paper_report.crosscheck))
    head, notes = rep.recommendation()
    assert head == "Report 0.1700 (0.0600, 0.2700): guaranteed, 95% interval."
    assert notes[0] == ("reason", "the narrowest interval that covers here")
    assert notes[1:] == (list(paper_report.crosscheck.messages.items()) or notes[1:2])
    assert html.escape(head) in rep.to_html()
    # without one, the cross-check's own notes lead
    rep = dataclasses.replace(
        paper_report, crosscheck=dataclasses.replace(paper_report.crosscheck, recommended=None)
    )
    head, notes = rep.recommendation()
    assert head.startswith("The cross-check below compares")
    assert notes == (list(paper_report.crosscheck.messages.items()) or notes)


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------
def test_markdown_file_links_figures_written_next_to_it(tmp_path, capsys):
    path = tmp_path / "appendix.md"
    code, out, _ = run(capsys, ["report", *COUNTS, "--output", str(path)])
    assert code == 0 and "markdown" in out
    text = path.read_text(encoding="utf-8")
    for name in ("theta", "judge"):
        assert f"](appendix_{name}.png)" in text
        assert (tmp_path / f"appendix_{name}.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "appendix.md",
        "appendix_judge.png",
        "appendix_theta.png",
    ]
    # the same numbers as the CLI, in pipe tables
    code, crosscheck_out, _ = run(capsys, ["crosscheck", *COUNTS])
    for label, numbers in cli_rows(crosscheck_out, CROSSCHECK_LABELS).items():
        assert f"| {label} | {' | '.join(numbers)} |" in text


def test_markdown_can_embed_its_figures(tmp_path, capsys):
    path = tmp_path / "one.markdown"
    assert run(capsys, ["report", *COUNTS, "--output", str(path), "--embed-figures"])[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["one.markdown"]
    assert path.read_text(encoding="utf-8").count("](data:image/png;base64,") == 2


def test_format_option_overrides_the_extension(tmp_path, capsys):
    path = tmp_path / "report.txt"
    assert run(capsys, ["report", *COUNTS, "--output", str(path), "--format", "html"])[0] == 0
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# ---------------------------------------------------------------------------------------------
# reproducibility
# ---------------------------------------------------------------------------------------------
def test_reproducibility_block_of_the_cli(tmp_path, capsys):
    path = tmp_path / "r.html"
    argv = ["report", *COUNTS, "--output", str(path), "--seed", "7", "--prior-theta", "2", "3"]
    assert run(capsys, argv)[0] == 0
    rows = dict(tables(path.read_text(encoding="utf-8"))["reproducibility"])
    assert rows["judgestats version"] == jc.__version__
    assert rows["random seed"] == "7"
    assert rows["command"] == (
        "judgestats report " + " ".join(COUNTS) + f" --output {path} --seed 7 --prior-theta 2 3"
    )
    assert rows["prior"].startswith("theta ~ Beta(2, 3), q0 ~ Beta(1, 1)")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", rows["created"])


def test_python_call_in_the_report_reproduces_it(paper_report):
    rows = dict(paper_report.reproducibility_rows())
    again = eval(rows["command"], {"judgestats": jc})  # noqa: S307 - our own string
    assert again.interval_rows() == paper_report.interval_rows()
    assert rows["random seed"] == "0"


# ---------------------------------------------------------------------------------------------
# errors: one line, exit code 2, nothing written
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--output", "r.pdf"], "cannot tell the format of"),
        (["--output", "missing/r.html"], "its folder does not exist"),
        (["--output", "r.html", "--confidence-level", "1.5"], "`confidence_level` (1.5)"),
        (["--output", "r.html", "--k", "1200"], "`k` (1200) must not exceed `n` (1000)"),
        (["--output", "r.html", "--format", "pdf"], "invalid choice"),
    ],
)
def test_cli_errors_write_nothing(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    arguments = [word for word in COUNTS]
    if "--k" in argv:  # replace the count, do not repeat it
        arguments[1] = argv[argv.index("--k") + 1]
        argv = [w for i, w in enumerate(argv) if w != "--k" and argv[i - 1] != "--k"]
    code, out, err = run(capsys, ["report", *arguments, *argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert list(tmp_path.iterdir()) == []


def test_cli_error_in_a_label_file_writes_nothing(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("set,judge,human\ntest,1,\ntest,maybe,\ncalibration,1,1\n")
    code, out, err = run(
        capsys, ["report", "--labels", str(labels), "--output", str(tmp_path / "r.html")]
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert str(labels) in err and "maybe" in err
    assert [p.name for p in tmp_path.iterdir()] == ["labels.csv"]


def test_cli_output_that_is_a_folder(tmp_path, capsys):
    (tmp_path / "r.html").mkdir()
    code, _, err = run(capsys, ["report", *COUNTS, "--output", str(tmp_path / "r.html")])
    assert code == 2 and "is a folder" in err


def test_failed_write_leaves_nothing(paper_report, tmp_path, monkeypatch):
    import os

    real = os.fdopen
    calls = []

    def failing(*args, **kwargs):  # the third file (the second figure) cannot be written
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(os, "fdopen", failing)
    with pytest.raises(OSError, match="No space"):
        paper_report.save(tmp_path / "r.md")
    assert list(tmp_path.iterdir()) == []


def test_api_errors(paper_report, tmp_path):
    data = jc.JudgeData(**PAPER)
    with pytest.raises(TypeError, match="`data` must be a JudgeData"):
        jc.report(PAPER)
    with pytest.raises(ValueError, match="`prob`"):
        jc.report(data, prob=1.5)
    with pytest.raises(TypeError, match=r"`random_seed` \('a'\)"):
        jc.report(data, random_seed="a")
    with pytest.raises(ValueError, match=r"`format` \('pdf'\) must be 'html' or 'markdown'"):
        paper_report.save(tmp_path / "r.html", format="pdf")
    with pytest.raises(ValueError, match="cannot tell the format"):
        paper_report.save(tmp_path / "r.docx")
    with pytest.raises(ValueError, match="folder does not exist"):
        paper_report.save(tmp_path / "no" / "r.html")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# the public API and import cost
# ---------------------------------------------------------------------------------------------
def test_report_is_public():
    assert {"report", "Report"} <= set(jc.__all__)
    assert callable(jc.report) and isinstance(jc.report(jc.JudgeData(**PAPER)), jc.Report)


def test_matplotlib_loads_only_when_a_figure_is_drawn():
    code = (
        "import sys, judgestats as jc\n"
        "rep = jc.report(jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))\n"
        "before = 'matplotlib' in sys.modules\n"
        "rep.to_html()\n"
        "print(before, 'matplotlib' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent,
    )
    assert out.stdout.split() == ["False", "True"]


def test_report_takes_the_inputs_of_the_other_commands(tmp_path, capsys):
    """An item table (--items) gives the same report numbers as `judgestats crosscheck`."""
    table = tmp_path / "items.csv"
    # 6 test items, 3 judged correct; calibration: 4 truly-incorrect (3 judged I), 4
    # truly-correct (3 judged C)
    rows = (
        ["id,verdict,human_label"]
        + [f"t{i},{v}," for i, v in enumerate("CCCIII")]
        + [
            f"c{i},{v},{h}"
            for i, (v, h) in enumerate(["II", "II", "II", "CI", "CC", "CC", "CC", "IC"])
        ]
    )
    table.write_text("\n".join(rows) + "\n")
    data_args = [
        "--items",
        str(table),
        "--judge-column",
        "verdict",
        "--human-column",
        "human_label",
        "--positive",
        "C",
    ]
    code, crosscheck_out, err = run(capsys, ["crosscheck", *data_args])
    assert code == 0, err
    assert "3 of 6 judged correct" in crosscheck_out and "3/4 = 0.7500" in crosscheck_out
    path = tmp_path / "r.html"
    assert run(capsys, ["report", *data_args, "--output", str(path)])[0] == 0
    found = tables(path.read_text(encoding="utf-8"))
    expected = cli_rows(crosscheck_out, CROSSCHECK_LABELS)
    assert {row[0]: row[1:] for row in found["intervals"][1:]} == expected
    assert ["source file", str(table)] in found["inputs"]


def test_saved_files_follow_the_umask(paper_report, tmp_path):
    """Files are readable as any new file would be (mkstemp alone would make them 0600)."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        written = paper_report.save(tmp_path / "r.md")
    finally:
        os.umask(old)
    assert {stat.S_IMODE(os.stat(path).st_mode) for path in written} == {0o644}


# ---------------------------------------------------------------------------------------------
# the random design: PPI and PPI++ as `judgestats estimate --design random` prints them
# ---------------------------------------------------------------------------------------------
RANDOM = {"k": 206, "n": 320, "k0": 20, "m0": 24, "k1": 46, "m1": 56}


def test_random_design_report_shows_ppi_as_the_cli_prints_it(tmp_path, capsys):
    code, out, _ = run(capsys, ["estimate", *counts(RANDOM), "--design", "random"])
    assert code == 0
    cli = {
        m.group(1).strip(): m.group(2).split()
        for m in re.finditer(r"^  (PPI\+* \(lambda = [0-9.]+\))(.*)$", out, re.M)
    }
    assert len(cli) == 2
    path = tmp_path / "r.html"
    assert (
        run(capsys, ["report", *counts(RANDOM), "--design", "random", "--output", str(path)])[0]
        == 0
    )
    page = path.read_text(encoding="utf-8")
    assert {row[0]: row[1:] for row in tables(page)["ppi"][1:]} == cli
    for line in ("PPI and PPI++ assume", "class balance: labelled m1/m"):
        cli_line = next(x.strip() for x in out.splitlines() if line in x)
        assert html.escape(cli_line) in page
    markdown = jc.report(jc.JudgeData(**RANDOM, design="random")).to_markdown()
    assert "## Random design: PPI and PPI++ (95% intervals)" in markdown
    for label, values in cli.items():
        assert f"| {label} | {' | '.join(values)} |" in markdown


def test_stratified_report_has_no_ppi_section(paper_report):
    assert paper_report.random_design is None
    assert "Random design" not in paper_report.to_html()
