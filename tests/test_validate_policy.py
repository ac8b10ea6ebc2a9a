"""One validation policy for options across modules (DESIGN.md, "Error and warning policy").

A value of the wrong type is a TypeError, a value of the right type that is not allowed is a
ValueError; the same mistake gets the same exception and message shape everywhere
(``judgestats._validate.check_positive_int`` and ``check_choice``).
"""

from __future__ import annotations

import numpy as np
import pytest

import judgestats as jc
import judgestats.simulate

A = jc.JudgeData(60, 100, 40, 50, 45, 50)
B = jc.JudgeData(55, 100, 40, 50, 45, 50)
CELL = dict(theta=0.5, q0=0.8, q1=0.8, n=20, m0=5, m1=5)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (
            lambda v: jc.simulate.coverage("naive", **CELL, reps=v),
            "reps",
        ),
        (
            lambda v: jc.compare(A, B, method="bootstrap", bootstrap={"n_resamples": v}),
            "n_resamples",
        ),
        (
            lambda v: jc.posterior(A, method="nuts", draws=v),
            "draws",
        ),
    ],
)
def test_positive_integer_options_share_one_policy(call, name):
    with pytest.raises(TypeError, match=f"`{name}` must be a positive integer, got '4'"):
        call("4")
    with pytest.raises(TypeError, match=f"`{name}` must be a positive integer, got True"):
        call(True)
    for bad in (2.5, 0, -3):
        with pytest.raises(ValueError, match=rf"`{name}` \({bad}\) must be a positive integer"):
            call(bad)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (
            lambda v: jc.simulate.coverage(v, **CELL, reps=2),
            "method",
        ),
        (
            lambda v: jc.compare(A, B, method=v),
            "method",
        ),
        (lambda v: jc.posterior(A, method=v), "method"),
        (lambda v: jc.estimate(A, interval=v), "interval"),
        (lambda v: jc.optimal_allocation(200, 0.3, 0.7, 0.9, n=1000, method=v), "method"),
    ],
)
def test_choice_options_share_one_policy(call, name):
    with pytest.raises(TypeError, match=f"`{name}` must be a string, one of"):
        call(3)
    with pytest.raises(ValueError, match=rf"`{name}` \('bogus'\) must be one of"):
        call("bogus")


def _kclass_data():
    from judgestats.kclass import KClassData

    return KClassData(("A", "B"), test=[60, 40], confusion=[[40, 10], [5, 45]])


@pytest.mark.parametrize(
    ("call", "name", "none_allowed"),
    [
        (lambda v: jc.rogan_gladen(0.4, 0.7, 0.9, clip=v), "clip", False),
        (lambda v: jc.simulate.coverage("naive", **CELL, reps=2, exact=v), "exact", False),
        (lambda v: jc.simulate.coverage("naive", **CELL, reps=2, progress=v), "progress", True),
        (lambda v: jc.posterior(A, progressbar=v), "progressbar", True),
        (lambda v: jc.required_calibration(0.2, 0.4, 0.8, 0.9, progress=v), "progress", True),
        (
            lambda v: __import__("judgestats.kclass").kclass.kclass_posterior(
                _kclass_data(), progressbar=v
            ),
            "progressbar",
            True,
        ),
        (lambda v: __import__("judgestats.io").io.load_json("x.json", lines=v), "lines", True),
    ],
)
def test_true_false_options_share_one_policy(call, name, none_allowed):
    allowed = "True, False or None" if none_allowed else "True or False"
    for bad in ("no", 0, 1, "False"):
        with pytest.raises(TypeError, match=f"`{name}` must be {allowed}, got {bad!r}"):
            call(bad)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda m: jc.rogan_gladen(m, 0.7, 0.9), "p"),
        (lambda m: jc.guaranteed_ci(m, 1000, 140, 200, 180, 200), "k"),
        (lambda m: jc.JudgeData.from_labels(m, [1, 0], [1, 0]), "test_judge"),
        (lambda m: jc.JudgeData.from_labels([1, 0, 1], m, [1, 0, 1]), "calib_human"),
        (
            lambda m: __import__("judgestats.kclass").kclass.KClassData(
                ("A", "B"), test=m, confusion=[[40, 10], [5, 45]]
            ),
            "test",
        ),
    ],
)
def test_masked_arrays_are_refused_not_silently_unmasked(call, name):
    import numpy as np

    masked = np.ma.array([0.4, 1.0], mask=[False, True])
    with pytest.raises(TypeError, match=f"`{name}` is a numpy masked array"):
        call(masked)


def _hundred(name, value):
    """100 distinct values of a grid parameter around ``value`` (a grid repeats none)."""
    if name in ("n", "m0", "m1"):
        return [int(value) + i for i in range(100)]
    return list(np.linspace(value - 0.05, value + 0.05, 100))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: jc.simulate.coverage("naive", **CELL, reps=10**12), r"`reps` \(1000000000000\)"),
        (lambda: jc.posterior(A, draws=10**12), r"`draws` \(1000000000000\) must be at most"),
        (lambda: jc.posterior(A, draws=10**6, chains=100), r"`draws` x `chains`"),
        (
            lambda: __import__("judgestats.kclass").kclass.kclass_posterior(
                _kclass_data(), proposals=10**12
            ),
            r"`proposals` \(1000000000000\) must be at most",
        ),
        (
            lambda: jc.compare(A, B, method="bootstrap", bootstrap={"n_resamples": 10**12}),
            r"`n_resamples` \(1000000000000\) must be at most",
        ),
        (
            lambda: jc.simulate.simulate_counts(
                **{**CELL, "theta": np.linspace(0.1, 0.9, 1000)}, reps=10**5
            ),
            r"`reps` \(100,000\) x the grid's 1,000 cells",
        ),
        (
            lambda: jc.simulate.coverage(
                "naive", **{name: _hundred(name, v) for name, v in CELL.items()}, reps=2
            ),
            r"the parameter grid has 100 \(theta\) x .* cells, more than",
        ),
        (
            lambda: jc.simulate.coverage(
                "lang_reiczigel", **{**CELL, "n": 10**9, "m0": 10**9}, exact=True
            ),
            r"`exact=True` would sum over .* datasets at n = 1e\+09",
        ),
    ],
)
def test_huge_sizes_are_refused_before_any_allocation(call, match):
    with pytest.raises(ValueError, match=match):
        call()
