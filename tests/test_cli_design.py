"""`judgestats estimate|posterior|crosscheck --design random`: a labelled random subsample.

Expected numbers are computed here from the item-level labels (PPI / PPI++ by their formulas,
Angelopoulos, Duchi & Zrnic; Lee et al. (ICML 2026) Table 2 row iii), from the delta-method
variance of Lee et al. (ICML 2026) eq. 10 (class-balance test), or by brute-force integration of
the random-design likelihood (posterior). Lee et al. (ICML 2026) is the later version of
arXiv 2511.21140.
"""

import json
import math

import numpy as np
import pytest
from _references import fisher_two_sided_p

from judgestats.cli import main

#: Labelled items (human Y, judge Yhat) and the judge's verdicts on the unlabelled items.
HUMAN = np.array([1] * 9 + [0] * 7 + [1, 0, 1, 1])
JUDGE_LABELLED = np.array([1] * 7 + [0] * 2 + [0] * 5 + [1] * 2 + [1, 1, 0, 1])
JUDGE_UNLABELLED = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1] * 4 + [0, 0, 1, 0, 1])

COUNTS = ["--k", "600", "--n", "1000", "--k0", "70", "--m0", "100", "--k1", "90", "--m1", "100"]


def run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_random_design_csv(path, human, judge_labelled, judge_unlabelled):
    """Every row a test item; a human label on the labelled ones (interleaved with the others)."""
    rows = ["set,judge,human"]
    unlabelled = list(judge_unlabelled)
    for y, yhat in zip(human, judge_labelled, strict=True):
        rows.append(f"test,{yhat},{y}")
        if unlabelled:
            rows.append(f"test,{unlabelled.pop()},")
    rows += [f"test,{yhat}," for yhat in unlabelled]
    path.write_text("\n".join(rows) + "\n")
    return path


def hand_ppi(y, yhat_l, yhat_u, lam, z=1.959963984540054):
    """theta_lam = lam mean(Yhat_u) + mean(Y - lam Yhat_l), se^2 = lam^2 Var(Yhat_u)/N
    + Var(Y - lam Yhat_l)/m (divisors N and m)."""
    estimate = lam * yhat_u.mean() + (y - lam * yhat_l).mean()
    se = math.sqrt(lam**2 * yhat_u.var() / yhat_u.size + (y - lam * yhat_l).var() / y.size)
    return estimate, estimate - z * se, estimate + z * se


def hand_ppi_pp_lambda(y, yhat_l, yhat_u):
    """Cov(Y, Yhat_l) / ((1 + m/N) Var(Yhat_l u Yhat_u)), clipped to [0, 1] (ppi-python 0.2.3)."""
    cov = np.mean((y - y.mean()) * (yhat_l - yhat_l.mean()))
    var_all = np.var(np.concatenate([yhat_l, yhat_u]), ddof=1)
    return float(np.clip(cov / ((1 + y.size / yhat_u.size) * var_all), 0.0, 1.0))


@pytest.fixture
def labels_file(tmp_path):
    return write_random_design_csv(tmp_path / "random.csv", HUMAN, JUDGE_LABELLED, JUDGE_UNLABELLED)


def test_labels_file_counts_the_unlabelled_test_items_and_the_labelled_cells(labels_file, capsys):
    code, out, err = run(
        capsys, ["estimate", "--labels", str(labels_file), "--design", "random", "--json"]
    )
    assert code == 0 and err == ""
    report = json.loads(out)
    assert report["inputs"] == {
        "k": int(JUDGE_UNLABELLED.sum()),
        "n": JUDGE_UNLABELLED.size,
        "k0": int(np.sum((HUMAN == 0) & (JUDGE_LABELLED == 0))),
        "m0": int(np.sum(HUMAN == 0)),
        "k1": int(np.sum((HUMAN == 1) & (JUDGE_LABELLED == 1))),
        "m1": int(np.sum(HUMAN == 1)),
        "design": "random",
    }


def test_estimate_adds_ppi_and_ppi_pp_computed_from_the_labels(labels_file, capsys):
    code, out, _ = run(
        capsys, ["estimate", "--labels", str(labels_file), "--design", "random", "--json"]
    )
    assert code == 0
    extra = json.loads(out)["random_design"]
    y, yl, yu = (a.astype(float) for a in (HUMAN, JUDGE_LABELLED, JUDGE_UNLABELLED))
    estimate, low, high = hand_ppi(y, yl, yu, 1.0)
    assert extra["ppi"]["lam"] == 1.0
    assert (extra["ppi"]["estimate"], extra["ppi"]["low"], extra["ppi"]["high"]) == pytest.approx(
        (estimate, low, high), abs=1e-12
    )
    lam = hand_ppi_pp_lambda(y, yl, yu)
    assert 0.0 < lam < 1.0  # the tuned weight is interior for these labels
    estimate, low, high = hand_ppi(y, yl, yu, lam)
    assert extra["ppi_pp"]["lam"] == pytest.approx(lam, abs=1e-12)
    assert (
        extra["ppi_pp"]["estimate"],
        extra["ppi_pp"]["low"],
        extra["ppi_pp"]["high"],
    ) == pytest.approx((estimate, low, high), abs=1e-12)
    assert "random sample of the test population" in extra["assumption"]


def test_counts_and_labels_give_the_same_report(labels_file, capsys):
    _, from_labels, _ = run(
        capsys, ["estimate", "--labels", str(labels_file), "--design", "random"]
    )
    counts = json.loads(
        run(capsys, ["estimate", "--labels", str(labels_file), "--design", "random", "--json"])[1]
    )["inputs"]
    argv = [f"--{name}={counts[name]}" for name in ("k", "n", "k0", "m0", "k1", "m1")]
    code, from_counts, _ = run(capsys, ["estimate", *argv, "--design", "random"])
    # the same report, but for the last line: the cross-check command of each one's own inputs
    *report_counts, pointer_counts = from_counts.rstrip("\n").splitlines()
    *report_labels, pointer_labels = from_labels.rstrip("\n").splitlines()
    assert code == 0 and report_counts == report_labels
    assert pointer_counts.endswith("judgestats crosscheck " + " ".join(argv) + " --design random")
    assert pointer_labels.endswith(f"--labels {labels_file} --design random")
    assert (
        "random design: 20 labelled items drawn from the test population, 45 unlabelled"
        in from_counts
    )
    assert "PPI++ (lambda = " in from_counts


def test_text_report_rows_for_ppi(capsys):
    # k/n = 0.6, labelled cells (1,1)=90, (1,0)=10, (0,1)=30, (0,0)=70 of m = 200:
    # PPI estimate = 0.6 + (10 - 30) / 200 = 0.5 (Lee et al. (ICML 2026) Table 2 row iii)
    code, out, _ = run(capsys, ["estimate", *COUNTS, "--design", "random"])
    assert code == 0
    ppi_row = next(line for line in out.splitlines() if line.startswith("  PPI (lambda = 1.00)"))
    assert float(ppi_row.split()[4]) == pytest.approx(0.5, abs=5e-5)
    # the same columns as the Rogan-Gladen row: the estimate ends at the same character
    rg_row = next(line for line in out.splitlines() if "Rogan-Gladen + Lang-Reiczigel" in line)
    assert len(ppi_row.split("0.5000")[0]) == len(rg_row.split("0.5000")[0])
    assert "consistent with no shift" in out


def test_class_balance_shift_is_warned_in_every_command(capsys):
    # labelled m1/m = 60/200 = 0.3, test Rogan-Gladen (0.6 + 0.7 - 1) / 0.6 = 0.5
    shifted = [
        "--k",
        "600",
        "--n",
        "1000",
        "--k0",
        "98",
        "--m0",
        "140",
        "--k1",
        "54",
        "--m1",
        "60",
        "--design",
        "random",
    ]
    # J = k1 + m0 - k0 = 96 of the 200 labelled items judged correct, 600 of the 1000 test items
    difference, p_value = 96 / 200 - 600 / 1000, fisher_two_sided_p(96, 200, 600, 1000)
    assert difference == pytest.approx(96 / 200 - 0.6) and p_value < 0.05
    for command in ("estimate", "posterior", "crosscheck"):
        code, out, _ = run(capsys, [command, *shifted, "--json"])
        assert code == 0
        balance = json.loads(out)["random_design"]["class_balance"]
        assert balance["statistic"] == pytest.approx(difference, rel=1e-12)
        assert balance["p_value"] == pytest.approx(p_value, rel=1e-10)
        assert set(balance["flags"]) == {"class_balance_shift"}
        code, out, _ = run(capsys, [command, *shifted])
        assert "warning: the labelled items' accuracy m1/m = 0.3000" in out


def brute_force_theta_eti(k, n, k0, m0, k1, m1, prob=0.95, size=400):
    """Random-design posterior of theta on a midpoint grid: theta^m1 (1 - theta)^m0 (labelled
    class count) x q1^k1 (1 - q1)^(m1 - k1) x q0^k0 (1 - q0)^(m0 - k0) x p^k (1 - p)^(n - k),
    uniform priors on theta and on the triangle q0 + q1 > 1."""
    grid = (np.arange(size) + 0.5) / size
    q0, q1 = np.meshgrid(grid, grid, indexing="ij")
    calib = (
        k0 * np.log(q0) + (m0 - k0) * np.log1p(-q0) + k1 * np.log(q1) + (m1 - k1) * np.log1p(-q1)
    )
    calib = np.where(q0 + q1 > 1, np.exp(calib - calib.max()), 0.0)
    theta_grid = (np.arange(4 * size) + 0.5) / (4 * size)
    density = np.empty(theta_grid.size)
    for i, t in enumerate(theta_grid):
        p = t * q1 + (1 - t) * (1 - q0)
        density[i] = t**m1 * (1 - t) ** m0 * np.sum(calib * p**k * (1 - p) ** (n - k))
    cdf = np.concatenate([[0.0], np.cumsum(density)])
    cdf /= cdf[-1]
    edges = np.linspace(0, 1, theta_grid.size + 1)
    alpha = (1 - prob) / 2
    return tuple(np.interp([alpha, 1 - alpha], cdf, edges))


@pytest.mark.slow
def test_posterior_uses_the_random_design_model(capsys):
    counts = {"k": 6, "n": 15, "k0": 4, "m0": 6, "k1": 5, "m1": 6}
    argv = [f"--{name}={value}" for name, value in counts.items()]
    code, out, _ = run(capsys, ["posterior", *argv, "--design", "random", "--json", "--seed", "1"])
    assert code == 0
    report = json.loads(out)
    low, high = brute_force_theta_eti(**counts)
    assert report["variables"]["theta"]["eti"] == pytest.approx([low, high], abs=2e-3)
    # ignoring the labelled class count (the stratified model) gives another interval
    code, out, _ = run(capsys, ["posterior", *argv, "--json", "--seed", "1"])
    stratified = json.loads(out)["variables"]["theta"]["eti"]
    assert abs(stratified[0] - low) > 0.01
    assert "random_design" not in json.loads(out)


def test_class_balance_without_shift_has_no_flag_in_json(capsys):
    # labelled m1/m = 100/200 = 0.5 = test Rogan-Gladen (0.6 + 0.7 - 1) / (0.7 + 0.9 - 1), so the
    # judged-correct shares agree too: J/m - k/n = 0
    code, out, _ = run(capsys, ["estimate", *COUNTS, "--design", "random", "--json"])
    assert code == 0
    balance = json.loads(out)["random_design"]["class_balance"]
    assert balance["statistic"] == pytest.approx(0.0, abs=1e-12)
    assert balance["flags"] == {}


def test_crosscheck_text_explains_the_extra_information(capsys):
    code, out, _ = run(capsys, ["crosscheck", *COUNTS, "--design", "random"])
    assert code == 0
    assert "the posterior also uses the labelled class count, m1 ~ Bin(m, theta)" in out
    assert "the posterior assumes: " in out


def test_stratified_default_has_no_random_design_section(capsys):
    code, out, _ = run(capsys, ["estimate", *COUNTS])
    assert code == 0 and "random design" not in out and "PPI" not in out


def test_calibration_rows_are_rejected_under_the_random_design(tmp_path, capsys):
    path = tmp_path / "stratified.csv"
    path.write_text("set,judge,human\ntest,1,\ntest,0,\ncalibration,1,1\ncalibration,0,0\n")
    code, out, err = run(capsys, ["estimate", "--labels", str(path), "--design", "random"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "calibration" in err


@pytest.mark.slow
def test_random_design_without_labelled_correct_items_is_legal_and_flagged(tmp_path, capsys):
    """A random sample may hold one class only: the posterior exists (q1 from its prior)."""
    path = write_random_design_csv(tmp_path / "r.csv", [0, 0, 0], [0, 1, 0], [1, 0, 1, 1])
    for method in ("exact", "nuts"):
        code, out, err = run(
            capsys,
            [
                "posterior",
                "--labels",
                str(path),
                "--design",
                "random",
                "--method",
                method,
                "--draws",
                "100",
                "--chains",
                "2",
                "--seed",
                "1",
            ],
        )
        assert code == 0, err
        assert "one true class only" in out


def test_unknown_design_is_a_user_error(capsys):
    code, _, err = run(capsys, ["estimate", *COUNTS, "--design", "clustered"])
    assert code == 2
    assert "clustered" in err and "stratified" in err and "random" in err


def test_help_documents_counts_under_the_random_design(capsys):
    code, out, _ = run(capsys, ["estimate", "--help"])
    assert code == 0
    assert "--design {stratified,random}" in out
    assert "UNLABELLED" in out
