"""K-class verdicts: the counts, the matrix Rogan-Gladen closed form and its functionals.

References are independent of the code under test: the binary closed form (``judgestats.estimate``,
itself checked against the paper's reference code) at K = 2; hand-solved systems; numerical
Jacobians and Hessians of the estimator (finite differences of ``numpy.linalg.solve``) for the
delta-method covariance and the second-order bias; the KKT conditions of the simplex projection.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from judgestats import JudgeData, JudgeStatsWarning, estimate, rogan_gladen_variance
from judgestats.kclass import KClassData, KClassEstimate, kclass_estimate
from judgestats.kclass.functionals import check_weights
from judgestats.kclass.matrix import (
    delta_covariance,
    second_order_term,
    simplex_projection,
)

Z95 = 1.959963984540054

#: Binary counts chosen to break the method: weak judges, tiny arms, huge n, estimates at 0 and
#: 1 and beyond, p-hat outside the judge's range, the paper's example.
HARD_BINARY = [
    (400, 1000, 140, 200, 180, 200),
    (3, 10, 5, 8, 4, 7),
    (99_990, 100_000, 30, 50, 44, 50),
    (0, 5, 3, 3, 2, 2),
    (5, 5, 2, 3, 2, 2),
    (52_000, 100_000, 62, 100, 58, 100),  # weak judge (J = 0.2), huge n
    (1, 2000, 9, 10, 9, 10),  # estimate far below 0
    (1999, 2000, 19, 20, 18, 20),  # estimate above 1
    (37, 1_000_000, 199, 200, 150, 200),
    (500_000, 1_000_000, 11, 20, 10, 19),  # J barely positive
]


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return func(*args, **kwargs)


# ------------------------------------------------------------------------------------------------
# K = 2 is the binary closed form
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("counts", HARD_BINARY)
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.999])
def test_two_classes_reproduce_the_binary_estimate_and_interval(counts, level):
    k, n, k0, m0, k1, m1 = counts
    binary = _quiet(
        estimate, JudgeData(k=k, n=n, k0=k0, m0=m0, k1=k1, m1=m1), confidence_level=level
    )
    data = KClassData(
        ("incorrect", "correct"), test=[n - k, k], confusion=[[k0, m0 - k0], [m1 - k1, k1]]
    )
    est = _quiet(kclass_estimate, data, confidence_level=level)
    assert est.shares[1] == pytest.approx(binary.theta, abs=1e-12)
    assert est.shares_raw[1] == pytest.approx(binary.theta_raw, abs=1e-12, rel=1e-12)
    correct = est.share("correct")
    assert correct.low == pytest.approx(binary.ci.low, abs=1e-12)
    assert correct.high == pytest.approx(binary.ci.high, abs=1e-12)
    # the other share is the mirror image, and "projected" is the binary "clipped"
    incorrect = est.share("incorrect")
    assert incorrect.low == pytest.approx(1 - binary.ci.high, abs=1e-12)
    assert incorrect.high == pytest.approx(1 - binary.ci.low, abs=1e-12)
    assert ("projected" in est.flags) == ("clipped" in binary.flags)
    assert ("zero_width" in est.flags) == ("zero_width" in binary.flags)
    assert ("small_class_calibration" in est.flags) == ("small_calibration" in binary.flags)


@pytest.mark.parametrize("counts", HARD_BINARY)
def test_two_classes_covariance_is_the_binary_delta_variance(counts):
    k, n, k0, m0, k1, m1 = counts
    variance = rogan_gladen_variance(k / n, k0 / m0, k1 / m1, n, m0, m1)
    data = KClassData.from_judge_data(JudgeData(k=k, n=n, k0=k0, m0=m0, k1=k1, m1=m1))
    cov = _quiet(kclass_estimate, data).covariance
    assert cov[1, 1] == pytest.approx(variance, rel=1e-12, abs=1e-15)
    assert cov[0, 0] == pytest.approx(variance, rel=1e-12, abs=1e-15)
    assert cov[0, 1] == pytest.approx(-variance, rel=1e-12, abs=1e-15)


def test_judge_data_round_trip():
    binary = JudgeData(k=7, n=20, k0=3, m0=5, k1=4, m1=6, design="random")
    data = KClassData.from_judge_data(binary)
    assert data.test.tolist() == [13, 7]
    assert data.confusion.tolist() == [[3, 2], [2, 4]]
    assert data.design == "random"
    assert data.to_judge_data() == binary


# ------------------------------------------------------------------------------------------------
# K >= 3 against hand derivations and numerical calculus
# ------------------------------------------------------------------------------------------------
def test_symmetric_judge_solved_by_hand():
    # C = 0.1 + 0.7 I, so p_j = 0.1 + 0.7 pi_j and pi_j = (p_j - 0.1) / 0.7
    data = KClassData(
        ("A", "B", "tie"), test=[50, 30, 20], confusion=[[80, 10, 10], [10, 80, 10], [10, 10, 80]]
    )
    est = kclass_estimate(data)
    expected = [(0.5 - 0.1) / 0.7, (0.3 - 0.1) / 0.7, (0.2 - 0.1) / 0.7]
    np.testing.assert_allclose(est.shares, expected, rtol=0, atol=1e-14)
    assert est.flags == ()


def _multinomial_cov(probs, total):
    return (np.diag(probs) - np.outer(probs, probs)) / total


def _numeric_jacobian(func, x, step=1e-6):
    base = func(x)
    out = np.empty((base.size, x.size))
    for index in range(x.size):
        up, down = x.copy(), x.copy()
        up[index] += step
        down[index] -= step
        out[:, index] = (func(up) - func(down)) / (2 * step)
    return out


CASES_3_5 = [
    # (test counts, confusion counts): a pairwise judge, a weak one, a 5-point rubric
    ([420, 380, 200], [[50, 4, 6], [5, 48, 7], [6, 5, 29]]),
    ([3000, 2500, 4500], [[9, 3, 6], [2, 8, 6], [5, 5, 10]]),
    (
        [120, 300, 900, 1500, 700],
        [
            [12, 5, 2, 1, 0],
            [3, 20, 6, 1, 0],
            [1, 4, 30, 8, 2],
            [0, 1, 6, 40, 9],
            [0, 0, 2, 7, 25],
        ],
    ),
]


@pytest.mark.parametrize(("test", "confusion"), CASES_3_5)
def test_delta_covariance_equals_numerical_jacobian_sandwich(test, confusion):
    test = np.asarray(test, float)
    confusion = np.asarray(confusion, float)
    size = test.size
    n, m = test.sum(), confusion.sum(axis=1)
    p, rates = test / n, confusion / m[:, None]

    def shares(x):
        return np.linalg.solve(x[size:].reshape(size, size).T, x[:size])

    x = np.concatenate([p, rates.ravel()])
    jac = _numeric_jacobian(shares, x)
    blocks = [_multinomial_cov(p, n)] + [_multinomial_cov(rates[i], m[i]) for i in range(size)]
    inputs = np.zeros((x.size, x.size))
    offset = 0
    for block in blocks:
        inputs[offset : offset + size, offset : offset + size] = block
        offset += size
    expected = jac @ inputs @ jac.T
    got = delta_covariance(shares(x), p, rates, np.asarray(n), m)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)
    est = _quiet(
        kclass_estimate,
        KClassData(tuple("ABCDE"[:size]), test=test.astype(int), confusion=confusion.astype(int)),
    )
    np.testing.assert_allclose(est.covariance, expected, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize(("test", "confusion"), CASES_3_5)
def test_second_order_term_is_half_the_hessian_contracted_with_the_calibration_noise(
    test, confusion
):
    test = np.asarray(test, float)
    confusion = np.asarray(confusion, float)
    size = test.size
    m = confusion.sum(axis=1)
    p, rates = test / test.sum(), confusion / m[:, None]
    shares = np.linalg.solve(rates.T, p)
    step = 1e-4
    bias = np.zeros(size)
    for i in range(size):
        cov = _multinomial_cov(rates[i], m[i])
        for a, b in itertools.product(range(size), repeat=2):

            def at(da, db, i=i, a=a, b=b):
                moved = rates.copy()
                moved[i, a] += da
                moved[i, b] += db
                return np.linalg.solve(moved.T, p)

            hessian = (at(step, step) - at(step, -step) - at(-step, step) + at(-step, -step)) / (
                4 * step * step
            )
            bias += 0.5 * hessian * cov[a, b]
    v = second_order_term(shares, rates, m)
    np.testing.assert_allclose(np.linalg.solve(rates.T, v), bias, rtol=1e-4, atol=1e-9)


def test_binary_shift_is_eq7_of_the_paper():
    # eq. (7): d-theta = 2 z^2 (-(1 - theta) q0 (1 - q0) / m0 + theta q1 (1 - q1) / m1),
    # evaluated on the smoothed values of eq. (6), written out by hand here
    k, n, k0, m0, k1, m1 = 400, 1000, 140, 200, 180, 200
    z2 = Z95**2
    p = (k + z2 / 2) / (n + z2)
    q0, q1 = (k0 + 1) / (m0 + 2), (k1 + 1) / (m1 + 2)
    theta = (p + q0 - 1) / (q0 + q1 - 1)
    shift = 2 * z2 * (-(1 - theta) * q0 * (1 - q0) / (m0 + 2) + theta * q1 * (1 - q1) / (m1 + 2))
    rates = np.array([[q0, 1 - q0], [1 - q1, q1]])
    v = second_order_term(np.array([1 - theta, theta]), rates, np.array([m0 + 2.0, m1 + 2.0]))
    got = 2 * z2 * (rates.T @ v)
    assert got[1] == pytest.approx(shift, abs=1e-15)
    assert got[0] == pytest.approx(-shift, abs=1e-15)


@pytest.mark.parametrize(
    ("test", "confusion"),
    [
        ([430, 310, 260], [[52, 3, 5], [6, 45, 9], [4, 3, 33]]),
        ([30, 90, 200, 400, 280], np.diag([30] * 5) + np.diag([1] * 4, 1) + np.diag([2] * 4, -1)),
    ],
)
def test_kclass_interval_written_out_by_hand(test, confusion):
    # K >= 3: centre = the unsmoothed solution of C-hat^T pi = p-hat plus 2 z^2 C~^T v~, and the
    # covariance, the smoothing (z^2/K per test class, 2/K per calibration cell) and v~ are
    # written out here from the module's equations with plain numpy
    test, confusion = np.asarray(test, float), np.asarray(confusion, float)
    size = test.size
    z2 = Z95**2
    start = np.linalg.solve((confusion / confusion.sum(1)[:, None]).T, test / test.sum())
    n_t, m_t = test.sum() + z2, confusion.sum(1) + 2
    p_t = (test + z2 / size) / n_t
    c_t = (confusion + 2 / size) / m_t[:, None]
    inv = np.linalg.inv(c_t)
    pi_t = inv.T @ p_t
    v = sum(pi_t[i] / m_t[i] * c_t[i] * (inv[:, i] - 1) for i in range(size))
    centre = start + 2 * z2 * (c_t.T @ v)
    middle = np.diag(p_t) - np.outer(p_t, p_t)
    inner = middle / n_t + sum(
        pi_t[i] ** 2 * (np.diag(c_t[i]) - np.outer(c_t[i], c_t[i])) / m_t[i] for i in range(size)
    )
    cov = inv.T @ inner @ inv
    classes = tuple(f"c{i}" for i in range(size))
    est = kclass_estimate(
        KClassData(classes, test=test.astype(int), confusion=confusion.astype(int))
    )
    for a in [np.eye(size)[0], np.eye(size)[-1], np.arange(1.0, size + 1)]:
        half = Z95 * math.sqrt(a @ cov @ a)
        got = est.functional(a)
        assert got.low == pytest.approx(max(a.min(), a @ centre - half), abs=1e-12)
        assert got.high == pytest.approx(min(a.max(), a @ centre + half), abs=1e-12)


def test_functional_is_affine_in_the_weights():
    data = KClassData(
        ("A", "B", "tie"), test=[420, 380, 200], confusion=[[50, 4, 6], [5, 48, 7], [6, 5, 29]]
    )
    est = kclass_estimate(data)
    base = est.functional([1.0, 0.0, 0.5])
    shifted = est.functional([3.0, 2.0, 2.5])  # + 2 on every class: the shares sum to 1
    scaled = est.functional([2.0, 0.0, 1.0])
    assert shifted.estimate == pytest.approx(base.estimate + 2, abs=1e-12)
    assert shifted.low == pytest.approx(base.low + 2, abs=1e-12)
    assert shifted.high == pytest.approx(base.high + 2, abs=1e-12)
    assert scaled.low == pytest.approx(2 * base.low, abs=1e-12)
    assert scaled.high == pytest.approx(2 * base.high, abs=1e-12)
    # the win rate with ties as half is that functional; shares of two classes add up
    win = est.win_rate("A", tie="tie")
    assert (win.estimate, win.low, win.high) == pytest.approx(
        (base.estimate, base.low, base.high), abs=1e-15
    )
    assert est.share(["A", "B"]).estimate == pytest.approx(est.shares[0] + est.shares[1], abs=1e-15)
    assert est.share(["A", "B"]).estimate == pytest.approx(1 - est.shares[2], abs=1e-15)


def test_mean_score_of_numeric_classes():
    data = KClassData(
        (1, 2, 3, 4, 5),
        test=[120, 300, 900, 1500, 700],
        confusion=CASES_3_5[2][1],
    )
    est = _quiet(kclass_estimate, data)
    score = est.mean_score()
    assert score.estimate == pytest.approx(float(np.dot([1, 2, 3, 4, 5], est.shares)), abs=1e-12)
    assert 1 <= score.low < score.estimate < score.high <= 5
    top = est.share([4, 5])
    assert top.estimate == pytest.approx(est.shares[3] + est.shares[4], abs=1e-15)


def test_interval_truncated_to_the_functional_range():
    # nearly every test item judged "A": the A share's interval reaches past 1 before truncation
    data = KClassData(
        ("A", "B", "C"), test=[999, 1, 0], confusion=[[9, 1, 0], [1, 8, 1], [0, 2, 8]]
    )
    est = _quiet(kclass_estimate, data)
    assert "projected" in est.flags
    share_a = est.share("A")
    assert share_a.high == 1.0
    assert est.shares.min() >= 0.0 and est.shares.sum() == pytest.approx(1.0, abs=1e-15)
    win = est.functional([2.0, -1.0, 0.0])
    assert win.high <= 2.0 and win.low >= -1.0


# ------------------------------------------------------------------------------------------------
# the simplex projection
# ------------------------------------------------------------------------------------------------
def test_projected_estimate_lies_inside_every_interval():
    # a share far below 0: the projection moves the other shares by about 0.012, more than the
    # half-width of their intervals with n = 100,000 and 3,000 calibration items per class
    data = KClassData(
        ("A", "B", "C"),
        test=[2000, 60000, 38000],
        confusion=10 * np.array([[900, 50, 50], [50, 900, 50], [50, 50, 900]]),
    )
    for interval in ("lang_reiczigel", "wald"):
        est = _quiet(kclass_estimate, data, interval=interval)
        assert "projected" in est.flags
        assert est.shares_raw[0] < -0.01
        for a in [*np.eye(3), [1.0, 0.0, 0.5], [1.0, 2.0, 3.0]]:
            row = est.functional(a)
            assert row.low <= row.estimate <= row.high
        b = est.share("B")
        # widened only on the side where the estimate fell out: the upper end is the interval's
        assert b.estimate == pytest.approx(est.shares[1], abs=1e-15)
        assert b.low == b.estimate < b.high


def test_simplex_projection_satisfies_its_optimality_conditions():
    rng = np.random.default_rng(11)
    for size in (2, 3, 5):
        x = rng.normal(scale=0.7, size=(2000, size))
        x += (1 - x.sum(axis=1, keepdims=True)) / size  # on the plane sum = 1, like the estimator
        proj = simplex_projection(x)
        assert np.abs(proj.sum(axis=1) - 1).max() < 1e-12
        assert proj.min() >= 0.0
        # KKT: x - proj is the same tau on the support, and x <= tau off it
        tau = np.where(proj > 0, x - proj, np.nan)
        spread = np.nanmax(tau, axis=1) - np.nanmin(tau, axis=1)
        assert spread.max() < 1e-12
        level = np.nanmean(tau, axis=1)[:, None]
        assert np.all(np.where(proj == 0, x - level, -1.0) <= 1e-12)
    inside = np.array([0.2, 0.3, 0.5])
    np.testing.assert_array_equal(simplex_projection(inside), inside)
    np.testing.assert_allclose(simplex_projection(np.array([-0.2, 1.2])), [0.0, 1.0])
    np.testing.assert_allclose(simplex_projection(np.array([0.7, 0.5, -0.2])), [0.6, 0.4, 0.0])


# ------------------------------------------------------------------------------------------------
# the counts
# ------------------------------------------------------------------------------------------------
def test_from_labels_counts_by_hand_and_leaves_inputs_alone():
    test = np.array(["A", "tie", "B", "A", "A"], dtype=object)
    human = ["A", "B", "tie", "tie"]
    judge = ["A", "B", "A", "tie"]
    before = test.copy()
    data = KClassData.from_labels(test, human, judge, classes=["A", "B", "tie"])
    assert data.test.tolist() == [3, 1, 1]
    assert data.confusion.tolist() == [[1, 0, 0], [0, 1, 0], [1, 0, 1]]
    np.testing.assert_array_equal(test, before)
    assert data.n == 5 and data.m.tolist() == [1, 1, 2]
    inferred = KClassData.from_labels([1, 2, 2], [1, 2, 3], [1, 3, 3])
    assert inferred.classes == (1, 2, 3)
    assert inferred.test.tolist() == [1, 2, 0]


def test_from_items_counts_a_frame():
    frame = pd.DataFrame(
        {
            "id": [f"q{i}" for i in range(8)],
            "judge": ["A", "B", "tie", "A", "A", "B", "tie", "tie"],
            "human": [None, None, None, "A", "B", "B", "A", "tie"],
        }
    )
    frame.attrs["source"] = "pairs.csv"
    data = KClassData.from_items(frame, classes=("A", "B", "tie"))
    assert data.test.tolist() == [1, 1, 1]
    # true A judged A (q3) and tie (q6); true B judged A (q4) and B (q5); true tie judged tie (q7)
    assert data.confusion.tolist() == [[1, 0, 1], [1, 1, 0], [0, 0, 1]]


def test_from_items_rejects_an_empty_true_class_under_the_stratified_design():
    frame = pd.DataFrame(
        {"id": ["a", "b", "c"], "judge": ["A", "B", "A"], "human": [None, "A", "B"]}
    )
    with pytest.raises(ValueError, match=r"true class 'tie'"):
        KClassData.from_items(frame, classes=("A", "B", "tie"))


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"classes": ("A",), "test": [1], "confusion": [[1]]}, ValueError, "at least two"),
        (
            {"classes": ("A", "A"), "test": [1, 1], "confusion": [[1, 0], [0, 1]]},
            ValueError,
            "twice",
        ),
        ({"classes": "AB", "test": [1, 1], "confusion": [[1, 0], [0, 1]]}, TypeError, "`classes`"),
        (
            {"classes": (True, False), "test": [1, 1], "confusion": [[1, 0], [0, 1]]},
            TypeError,
            "`classes`",
        ),
        (
            {"classes": ("A", "B"), "test": [1, 1, 1], "confusion": [[1, 0], [0, 1]]},
            ValueError,
            "`test`",
        ),
        ({"classes": ("A", "B"), "test": [1, 1], "confusion": [[1, 0]]}, ValueError, "`confusion`"),
        (
            {"classes": ("A", "B"), "test": [1, -1], "confusion": [[1, 0], [0, 1]]},
            ValueError,
            "`test`",
        ),
        (
            {"classes": ("A", "B"), "test": [1, 0.5], "confusion": [[1, 0], [0, 1]]},
            ValueError,
            "`test`",
        ),
        (
            {"classes": ("A", "B"), "test": [0, 0], "confusion": [[1, 0], [0, 1]]},
            ValueError,
            "`test`",
        ),
        ({"classes": ("A", "B"), "test": [1, 1], "confusion": [[1, 0], [0, 0]]}, ValueError, "'B'"),
        (
            {
                "classes": ("A", "B"),
                "test": [1, 1],
                "confusion": [[0, 0], [0, 0]],
                "design": "random",
            },
            ValueError,
            "`confusion`",
        ),
        (
            {"classes": ("A", "B"), "test": [1, 1], "confusion": [[1, 0], [0, 1]], "design": "x"},
            ValueError,
            "design",
        ),
    ],
)
def test_bad_counts_raise_naming_the_argument(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        KClassData(**kwargs)


def test_labels_outside_the_declared_classes_are_named():
    with pytest.raises(ValueError, match=r"`calib_judge`.*'draw' \(2x\).*\['A', 'B', 'tie'\]"):
        KClassData.from_labels(
            ["A"], ["A", "B", "A"], ["A", "draw", "draw"], classes=["A", "B", "tie"]
        )
    with pytest.raises(ValueError, match="`test_judge`"):
        KClassData.from_labels(["1"], [1, 2], [1, 2], classes=[1, 2])  # "1" is not 1
    with pytest.raises(ValueError, match="missing value"):
        KClassData.from_labels(["A", None], ["A", "B"], ["A", "B"])
    with pytest.raises(ValueError, match="same calibration items"):
        KClassData.from_labels(["A"], ["A", "B"], ["A"])
    with pytest.raises(TypeError, match="cannot be ordered"):
        KClassData.from_labels(["A"], [1, "B"], [1, "B"])


# ------------------------------------------------------------------------------------------------
# errors of the estimator and the functionals
# ------------------------------------------------------------------------------------------------
def test_not_diagonally_dominant_is_refused():
    # items of true class A are judged B (0.3) more often than items of class B are (0.2)
    data = KClassData(("A", "B", "C"), test=[5, 3, 2], confusion=[[5, 3, 2], [6, 2, 2], [1, 1, 8]])
    with pytest.raises(ValueError, match=r"not diagonally dominant.*class 'A' are judged 'B'"):
        kclass_estimate(data)
    # at K = 2 the rule is q0 + q1 > 1, as for the binary estimate
    weak = KClassData.from_judge_data(JudgeData(k=5, n=10, k0=4, m0=10, k1=5, m1=10))
    with pytest.raises(ValueError, match="q0 \\+ q1 > 1"):
        kclass_estimate(weak)
    with pytest.raises(ValueError):
        estimate(weak.to_judge_data())


def test_singular_or_orientation_reversing_confusion_is_refused():
    # every column's diagonal dominates, yet the determinant is negative: found by a search over
    # random confusion matrices (the rule alone does not make C invertible for K >= 4)
    rates = np.array(
        [
            [0.302, 0.311, 0.087, 0.300],
            [0.289, 0.362, 0.337, 0.012],
            [0.078, 0.332, 0.579, 0.011],
            [0.216, 0.014, 0.398, 0.372],
        ]
    )
    assert np.linalg.det(rates) < 0
    confusion = np.rint(rates * 1000).astype(int)
    data = KClassData(tuple("ABCD"), test=[10, 10, 10, 10], confusion=confusion)
    with pytest.raises(ValueError, match="singular or reverses orientation"):
        kclass_estimate(data)


def test_empty_true_class_of_a_random_design_is_refused():
    data = KClassData(
        ("A", "B", "C"),
        test=[5, 3, 2],
        confusion=[[5, 0, 0], [0, 4, 0], [0, 0, 0]],
        design="random",
    )
    assert data.empty_classes == ("C",)
    with pytest.raises(ValueError, match="true class 'C'.*posterior"):
        kclass_estimate(data)


def test_estimator_argument_errors():
    data = KClassData(
        ("A", "B", "tie"), test=[420, 380, 200], confusion=[[50, 4, 6], [5, 48, 7], [6, 5, 29]]
    )
    with pytest.raises(TypeError, match="`data`"):
        kclass_estimate(JudgeData(k=1, n=2, k0=1, m0=1, k1=1, m1=1))
    with pytest.raises(ValueError, match="`confidence_level`"):
        kclass_estimate(data, confidence_level=1.5)
    with pytest.raises(ValueError, match="`interval`"):
        kclass_estimate(data, interval="exact")
    est = kclass_estimate(data)
    with pytest.raises(ValueError, match=r"`weights`.*one weight per class \(3"):
        est.functional([1, 0])
    with pytest.raises(ValueError, match=r"`weights` names 'C'|`weights` holds values"):
        est.functional({"C": 1})
    with pytest.raises(ValueError, match="same weight"):
        est.functional([1, 1, 1])
    with pytest.raises(TypeError, match="`weights`"):
        est.functional("A")
    with pytest.raises(ValueError, match="finite"):
        est.functional([1, math.nan, 0])
    with pytest.raises(ValueError, match="`win`"):
        est.win_rate("draw")
    with pytest.raises(ValueError, match="different classes"):
        est.win_rate("A", tie="A")
    with pytest.raises(ValueError, match="`scores`"):
        est.mean_score()
    with pytest.raises(ValueError, match="every class"):
        est.share(["A", "B", "tie"])
    np.testing.assert_array_equal(check_weights(("A", "B"), {"B": 2}), [0.0, 2.0])


# ------------------------------------------------------------------------------------------------
# the result contract
# ------------------------------------------------------------------------------------------------
def test_result_contract_and_flags():
    data = KClassData(
        ("A", "B", "tie"), test=[420, 380, 200], confusion=[[12, 4, 6], [5, 18, 7], [6, 5, 29]]
    )
    with pytest.warns(JudgeStatsWarning, match="fewer than 30"):
        est = kclass_estimate(data)
    assert isinstance(est, KClassEstimate)
    assert est.flags == ("projected", "small_class_calibration")
    frame = est.summary()
    assert list(frame.index) == ["A", "B", "tie"]
    assert list(frame.columns) == ["naive", "estimate", "low", "high", "width", "m"]
    np.testing.assert_allclose(frame["naive"], [0.42, 0.38, 0.2])
    np.testing.assert_allclose(frame["estimate"].sum(), 1.0)
    assert (frame["low"] <= frame["estimate"]).all() and (frame["estimate"] <= frame["high"]).all()
    as_dict = est.to_dict()
    assert set(as_dict["shares"]) == {"A", "B", "tie"}
    assert "small_class_calibration" in as_dict["flags"]
    import json

    json.dumps(as_dict)
    assert "<table" in est._repr_html_()
    text = str(est)
    assert "tie" in text and "warning:" in text
    wald = _quiet(kclass_estimate, data, interval="wald")
    assert wald.flags == ("projected",)  # the rough-normal flag belongs to the adjusted interval
    np.testing.assert_array_equal(wald.shares, est.shares)


def test_plot_returns_axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    data = KClassData(
        ("A", "B", "tie"), test=[420, 380, 200], confusion=[[50, 4, 6], [5, 48, 7], [6, 5, 29]]
    )
    ax = kclass_estimate(data).plot()
    assert ax.get_title()
