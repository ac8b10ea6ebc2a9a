"""The papers' figures: their numbers against the papers' statements and hand formulas."""

import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from judgestats import plots  # noqa: E402
from judgestats.cli import main  # noqa: E402

Z95 = 1.959963984540054


def test_fig2_turning_point_is_three_quarters():
    # Lee et al. v1 Fig. 2: with q0 = 0.7, q1 = 0.9, E[p-hat] overestimates theta below 0.75 and
    # underestimates it above; eq. (9): E[p-hat] - theta = (q0 + q1 - 2) theta + 1 - q0
    assert plots.naive_bias(0.75) == pytest.approx(0.0, abs=1e-15)
    assert plots.naive_bias(0.2) == pytest.approx(-0.4 * 0.2 + 0.3)
    assert plots.naive_bias(0.7) > 0 > plots.naive_bias(0.8)


def _lr_length_infinite_n(p, q0, q1, m0, m1):
    # Lee et al. v1 eqs. (5)-(7) with n -> infinity: p~ = p, no test-set variance
    z2 = Z95**2
    q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    th = (p + q0t - 1) / (q0t + q1t - 1)
    dth = 2 * z2 * (-(1 - th) * q0t * (1 - q0t) / (m0 + 2) + th * q1t * (1 - q1t) / (m1 + 2))
    se = math.sqrt(
        (1 - th) ** 2 * q0t * (1 - q0t) / (m0 + 2) + th**2 * q1t * (1 - q1t) / (m1 + 2)
    ) / (q0t + q1t - 1)
    low, high = max(0, th + dth - Z95 * se), min(1, th + dth + Z95 * se)
    return high - low


def test_fig3_length_by_hand_and_the_200_items_statement():
    ds = plots.interval_length([0.3, 0.5], m=np.arange(100, 301, 10))
    assert float(ds.symmetric.sel(p_hat=0.5, m=120)) == pytest.approx(
        _lr_length_infinite_n(0.5, 0.7, 0.9, 120, 120), abs=1e-12
    )
    # Lee et al. (ICML 2026) Sec. 4.2: at p-hat = 0.3 an interval shorter than 0.1 needs m ~ 200
    # per arm
    short = ds.m.values[ds.symmetric.sel(p_hat=0.3).values < 0.1]
    assert 170 <= short.min() <= 200
    # the adaptive allocation (solid) is never longer than the symmetric one (dashed) here
    assert (ds.adaptive <= ds.symmetric + 1e-12).all()


def test_fig7_biases_under_shift_by_hand():
    # theta_P = 0.5, q0 = 0.7, q1 = 0.9. Expected biases (Lee et al. (ICML 2026) Table 2):
    # (i) p - theta = 0.1; (ii) theta_Q - theta_P; (iii) (theta_Q - theta_P)(2 - q0 - q1);
    # (v) Rogan-Gladen: about 0 (unbiased up to O(1/m))
    theta_q = np.array([0.25, 0.5, 0.75])
    bias = plots.shift_bias(theta_q, reps=3000, random_seed=1)
    se_naive = math.sqrt(0.6 * 0.4 / 1000 / 3000)
    assert np.allclose(bias.sel(estimator="naive"), 0.1, atol=5 * se_naive)
    assert np.allclose(bias.sel(estimator="calibration_only"), theta_q - 0.5, atol=0.005)
    assert np.allclose(bias.sel(estimator="difference"), (theta_q - 0.5) * 0.4, atol=0.005)
    assert np.abs(bias.sel(estimator="misclassification_adjusted")).max() < 0.01
    cond = bias.sel(estimator="conditional_calibration").values
    assert cond[0] < -0.05 and abs(cond[1]) < 0.01 and cond[2] > 0.05


def test_fig5_study_covers_and_adaptive_allocation_is_shorter_away_from_the_middle():
    study = plots.coverage_study("001", reps=400, random_seed=3)
    assert ((study["adjusted"].coverage > 0.94) & (study["adjusted"].coverage < 0.98)).all()
    assert int(study["single_run"].m0) == 100
    # Lee et al. v1 Sec. 5: shorter intervals with Algorithm 1 away from theta ~ 0.557
    ratio = study["adaptive"].width_mean / study["adjusted_mc"].width_mean
    assert float(ratio.sel(theta=0.1)) < 0.97 and float(ratio.sel(theta=0.95)) < 0.97
    fig = plots.plot_coverage_study(study=study)
    assert len(fig.axes) == 3


def test_plots_return_axes():
    assert plots.plot_bias(m=None).get_xlabel() == "true accuracy θ"
    assert len(plots.plot_interval_length().lines) == 9  # 4 dashed, 4 solid, the 0.1 line
    assert len(plots.plot_shift(reps=20).lines) == 6
    assert len(plots.plot_human_regions((None, 0.9)).axes) == 2


def test_cli_figures_writes_a_file(tmp_path, capsys):
    out = tmp_path / "human.png"
    assert main(["figures", "human", "--output", str(out)]) == 0
    assert out.stat().st_size > 1000
    assert main(["figures", "shift", "--output", str(out), "--reps", "0"]) == 2
    assert "--reps (0) must be at least 1" in capsys.readouterr().err
    assert main(["figures", "5", "--output", str(out)]) == 2
    assert main(["figures", "2", "--output", str(tmp_path / "no" / "x.png")]) == 2
