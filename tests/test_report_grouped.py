"""The grouped report: judgestats.report_items and `judgestats report --by`."""

from __future__ import annotations

import html
import math
import re

import pandas as pd
import pytest

import judgestats as jc
from judgestats.cli import main
from judgestats.datasets import data_files

GROUPED = data_files()["example_grouped_items.csv"]
ITEMS = [
    "--items",
    GROUPED,
    "--judge-column",
    "verdict",
    "--human-column",
    "human_label",
    "--positive",
    "C",
    "--epoch",
    "1",
]
MODELS = ("model-a", "model-b", "model-c")


def run(capsys, argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def cli_rows():
    """The group rows of `judgestats crosscheck --by model`, split into cells, by model."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["crosscheck", *map(str, ITEMS), "--by", "model"]) == 0
    lines = buffer.getvalue().splitlines()
    rows = {line.split()[0]: line.split() for line in lines if line.strip().startswith(MODELS)}
    assert set(rows) == set(MODELS)
    return rows, lines


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grouped")
    for name in ("report.html", "report.md"):
        assert (
            main(["report", *map(str, ITEMS), "--by", "model", "--output", str(folder / name)]) == 0
        )
    return folder


def test_html_shows_each_group_as_the_cli_prints_it(written, cli_rows):
    page = (written / "report.html").read_text(encoding="utf-8")
    rows, lines = cli_rows
    for model, cells in rows.items():
        expected = (
            f'<tr><th scope="row">{model}</th>'
            + "".join(f"<td>{html.escape(c)}</td>" for c in cells[1:])
            + "</tr>"
        )
        assert expected in page
    statement = next(line.strip() for line in lines if "intervals simultaneous" in line)
    assert statement.startswith("intervals simultaneous over 3 groups")
    assert html.escape(statement) in page


def test_markdown_shows_each_group_as_the_cli_prints_it(written, cli_rows):
    text = (written / "report.md").read_text(encoding="utf-8")
    rows, _ = cli_rows
    for cells in rows.values():
        assert "| " + " | ".join(cells) + " |" in text
    # figures written next to the document, one per group, and linked by relative name
    for index in (1, 2, 3):
        png = written / f"report_group{index}_theta.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"](report_group{index}_theta.png)" in text


def test_order_of_the_sections(written):
    page = (written / "report.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section id="([^"]+)"', page)
    assert sections == ["groups", "group-1", "group-2", "group-3", "flags", "reproducibility"]
    figures = re.findall(
        r'<figure id="figure-(group\d)_theta"><img src="data:image/png;base64,', page
    )
    assert figures == ["group1", "group2", "group3"]
    assert "<script" not in page


def test_each_group_section_at_the_adjusted_level(written):
    page = (written / "report.html").read_text(encoding="utf-8")
    # 1 - 0.05 / 3 = 0.98333...: each group's interval table is at that level
    assert page.count("judgestats cross-check (98.3333% intervals; posterior by exact)") == 3
    text = (written / "report.md").read_text(encoding="utf-8")
    for model in MODELS:
        assert f"## Group {MODELS.index(model) + 1}: model = {model}" in text


def test_group_section_numbers_equal_the_crosscheck_of_that_group(written):
    text = (written / "report.md").read_text(encoding="utf-8")
    raw = pd.read_csv(GROUPED)
    group = raw[(raw["epoch"] == 1) & (raw["model"] == "model-b")]
    judge, human = group["verdict"] == "C", group["human_label"]
    test, zero, one = human.isna(), human == "I", human == "C"
    data = jc.JudgeData(
        int(judge[test].sum()),
        int(test.sum()),
        int((~judge[zero]).sum()),
        int(zero.sum()),
        int(judge[one].sum()),
        int(one.sum()),
    )
    with pytest.warns(jc.JudgeStatsWarning, match="small_calibration"):
        checked = jc.crosscheck(data, confidence_level=1 - 0.05 / 3, random_seed=0)
    section = text.split("## Group 2: model = model-b")[1].split("## Group 3")[0]
    assert f"{data.k} of {data.n} judged correct (p-hat = {data.p:.4f})" in section
    median, low, high = checked.rows["posterior_eti"]
    assert (
        f"| posterior median + equal-tailed | {median:.4f} | "
        f"{low:.4f} | {high:.4f} | {high - low:.4f} |" in section
    )


def test_flags_and_reproducibility(written):
    text = (written / "report.md").read_text(encoding="utf-8")
    flags = text.split("## Flags (")[1].split("## Reproducibility")[0]
    assert "- model = model-b: `intervals_disagree` (cross-check)" in flags
    repro = text.split("## Reproducibility")[1]
    assert "--by model" in repro and "--epoch 1" in repro
    assert "correction holm" in repro and "random seed | 0 |" in repro


def test_errors_write_nothing(tmp_path, capsys):
    target = tmp_path / "r.html"
    for argv, fragment in [
        (
            [
                "report",
                "--items",
                GROUPED,
                "--judge-column",
                "verdict",
                "--human-column",
                "human_label",
                "--positive",
                "C",
                "--by",
                "model",
                "--output",
                target,
            ],
            "occur more than once within the group",
        ),
        (
            ["report", *ITEMS, "--by", "model", "--null", "0.5", "--output", target],
            "--null applies to `judgestats estimate --by` only",
        ),
        (
            ["report", *ITEMS, "--by", "model", "--output", tmp_path / "r.txt"],
            "cannot tell the format",
        ),
        (["report", *ITEMS, "--by", "size", "--output", target], "`by` ('size')"),
    ]:
        code, out, err = run(capsys, argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert fragment in err
    assert list(tmp_path.iterdir()) == []


def frame(counts: dict[str, tuple[int, ...]]) -> pd.DataFrame:
    rows = []
    for model, (k, n, k0, m0, k1, m1) in counts.items():
        judge = [1] * k + [0] * (n - k) + [0] * k0 + [1] * (m0 - k0) + [1] * k1 + [0] * (m1 - k1)
        human = [math.nan] * n + [0.0] * m0 + [1.0] * m1
        rows += [
            {"id": f"i{i}", "judge": j, "human": h, "model": model}
            for i, (j, h) in enumerate(zip(judge, human, strict=True))
        ]
    return pd.DataFrame(rows)


def test_api_group_without_a_cross_check_and_escaping(tmp_path):
    items = frame(
        {"<script>x</script>": (30, 60, 12, 15, 13, 15), "one_class": (30, 60, 0, 0, 13, 15)}
    )
    report = jc.report_items(items, by="model")
    assert report.sections[1] is None and list(report.figures) == ["group1_theta"]
    page = report.to_html()
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "No cross-check: the group has no labelled item of one true class" in page
    paths = report.save(tmp_path / "r.md")
    assert [p.name for p in paths] == ["r.md", "r_group1_theta.png"]
    embedded = report.to_markdown()
    assert "](data:image/png;base64," in embedded
    assert report.command == "judgestats.report_items(items, by=['model'], random_seed=0)"
    assert "judgestats.report\\_items(items, by=\\['model'\\], random\\_seed=0)" in embedded


def test_api_errors():
    items = frame({"a": (30, 60, 12, 15, 13, 15)})
    with pytest.raises(TypeError, match=r"`random_seed` \(1.5\)"):
        jc.report_items(items, by="model", random_seed=1.5)
    with pytest.raises(ValueError, match=r"`prob`"):
        jc.report_items(items, by="model", prob=0.0)
    with pytest.raises(ValueError, match=r"`correction` \('x'\)"):
        jc.report_items(items, by="model", correction="x")
    assert {"report_items", "GroupedReport"} <= set(jc.__all__)
