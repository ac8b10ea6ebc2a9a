"""Rich display in notebooks: ``_repr_html_`` of the result classes (content and escaping)."""

import warnings
import xml.etree.ElementTree as ET

import pytest

import judgestats as jc
from judgestats.exceptions import JudgeStatsWarning

PAPER = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
# q0-hat + q1-hat - 1 = 0.1 + 0.15 - 1 < 0: the posterior flags calibration_contradicts_prior,
# whose message holds "q0 + q1 > 1"
CONTRADICTION = jc.JudgeData(k=400, n=1000, k0=2, m0=20, k1=3, m1=20)


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return function(*args, **kwargs)


def parse(markup):
    """The fragment as an element tree: fails unless every tag is closed and text escaped."""
    root = ET.fromstring(markup)
    assert root.tag == "div" and root.get("class") == "judgestats-result"
    return root


def rows(root):
    """{row header: [cells]} of the fragment's table body."""
    out = {}
    for tr in root.iter("tr"):
        cells = ["".join(cell.itertext()) for cell in tr]
        out[cells[0]] = cells[1:]
    return out


def test_judgedata():
    root = parse(PAPER._repr_html_())
    table = rows(root)
    # p = 400/1000, q0 = 140/200, q1 = 180/200, J = 0.7 + 0.9 - 1
    assert table["test set: judged correct"] == ["400 of 1000", "0.4000"]
    assert table["calibration: specificity q0"] == ["140 of 200", "0.7000"]
    assert table["calibration: sensitivity q1"] == ["180 of 200", "0.9000"]
    assert table["Youden's J = q0 + q1 - 1"] == ["", "0.6000"]
    assert "design stratified" in root.find("table/caption").text


def test_estimate_rows_and_flags():
    root = parse(jc.estimate(PAPER)._repr_html_())
    table = rows(root)
    assert table["method"] == ["estimate", "low", "high", "width"]
    # Lee et al. v1 eq. 4: (0.4 + 0.7 - 1) / 0.6 = 1/6; the interval as the CLI prints it
    assert table["Rogan-Gladen + Lang-Reiczigel"][0] == "0.1667"
    assert table["Rogan-Gladen + Lang-Reiczigel"][1:3] == ["0.0564", "0.2627"]
    assert table["naive (p-hat, Wald)"][0] == "0.4000"
    assert root.find("ul") is None  # no flags
    # p-hat = 0.05 < 1 - q0 = 0.3: clipped to 0, with the flag's key and message
    clipped = quiet(jc.estimate, jc.JudgeData(k=50, n=1000, k0=140, m0=200, k1=180, m1=200))
    root = parse(clipped._repr_html_())
    assert rows(root)["Rogan-Gladen + Lang-Reiczigel"][0] == "0.0000"
    keys = [li.find("code").text for li in root.iter("li")]
    assert "clipped" in keys


def test_estimate_matches_the_printed_report():
    est = jc.estimate(PAPER, confidence_level=0.9)
    table = rows(parse(est._repr_html_()))
    printed = next(line for line in str(est).splitlines() if "Lang-Reiczigel" in line)
    assert printed.split()[-4:] == table["Rogan-Gladen + Lang-Reiczigel"]
    assert "90% intervals" in est._repr_html_()


def test_posterior_summary_and_escaped_flags():
    post = jc.posterior(PAPER)
    table = rows(parse(post._repr_html_()))
    assert table[""] == ["mean", "median", "ETI low", "ETI high", "HDI low", "HDI high"]
    eti = post.ci(0.95, "eti", "q0")
    assert table["q0"][2:4] == [f"{eti.low:.4f}", f"{eti.high:.4f}"]
    assert set(table) == {"", "theta", "q0", "q1", "youden"}
    markup = quiet(jc.posterior, CONTRADICTION)._repr_html_()
    assert "q0 + q1 &gt; 1" in markup and "q0 + q1 > 1" not in markup
    root = parse(markup)
    assert "calibration_contradicts_prior" in [li.find("code").text for li in root.iter("li")]


def test_crosscheck_rows_and_notes():
    check = jc.crosscheck(PAPER)
    root = parse(check._repr_html_())
    table = rows(root)
    assert set(table) == {
        "method",
        "naive p-hat + Wald",
        "Rogan-Gladen + Lang-Reiczigel",
        "posterior median + equal-tailed",
        "posterior mode + HDI",
    }
    assert table["Rogan-Gladen + Lang-Reiczigel"][0] == "0.1667"
    assert "agree" in "".join(root.find("ul").itertext())
    # no closed form: the row shows n/a and the note says why
    root = parse(quiet(jc.crosscheck, CONTRADICTION)._repr_html_())
    assert rows(root)["Rogan-Gladen + Lang-Reiczigel"] == ["n/a"] * 4
    assert "no_closed_form" in [li.find("code").text for li in root.iter("li")]


def test_comparison_rows_and_verdict():
    a = jc.JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = jc.JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    result = quiet(jc.compare, a, b)
    root = parse(result._repr_html_())
    table = rows(root)
    # theta_A by hand (Lee et al. v1 eq. 4): (0.7 + 0.85 - 1) / (0.85 + 0.9 - 1) = 0.55 / 0.75
    assert table["theta_A"][0] == f"{0.55 / 0.75:.4f}"
    # theta_B: (0.6 + 0.84 - 1) / (0.84 + 0.91 - 1) = 0.44 / 0.75
    assert table["theta_B"][0] == f"{0.44 / 0.75:.4f}"
    assert table["theta_A - theta_B"][0] == f"{0.11 / 0.75:.4f}"
    items = {li.find("code").text: "".join(li.itertext()) for li in root.iter("li")}
    assert "verdict" in items and result.verdict in items["verdict"]


def test_crosscheck_notes_are_escaped():
    # the posterior's calibration_contradicts_prior sentence holds "q0 + q1 > 1"
    check = quiet(jc.crosscheck, CONTRADICTION)
    markup = check._repr_html_()
    assert "q0 + q1 &gt; 1" in markup and "q0 + q1 > 1" not in markup
    keys = [li.find("code").text for li in parse(markup).iter("li")]
    assert set(check.flags) <= set(keys)


def test_plan_and_human_only_tables():
    from judgestats.planning import compare_human_only

    plan = jc.optimal_allocation(400, 0.4, 0.7, 0.9)
    table = rows(parse(plan._repr_html_()))
    assert table[plan.rule] == [str(plan.m0), str(plan.m1), "400", f"{plan.width:.4f}"]
    human = compare_human_only(200, 0.4, 0.7, 0.9)
    table = rows(parse(human._repr_html_()))
    # theta = (0.4 + 0.7 - 1) / 0.6 = 1/6; humans only: sd sqrt(theta (1 - theta) / 200)
    assert table["humans only, m test items"][0] == f"{(1 / 6 * 5 / 6 / 200) ** 0.5:.4f}"


@pytest.mark.parametrize(
    "make",
    [
        lambda: PAPER,
        lambda: jc.estimate(PAPER),
        lambda: jc.posterior(PAPER),
        lambda: jc.crosscheck(PAPER),
        lambda: jc.crosscheck(PAPER).recommended,
        lambda: jc.optimal_allocation(400, 0.4, 0.7, 0.9),
    ],
)
def test_every_display_is_a_compact_fragment(make):
    markup = make()._repr_html_()
    assert "<html" not in markup and "<script" not in markup and "<style" not in markup
    assert len(markup) < 4000
