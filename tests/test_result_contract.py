"""Every public function that returns a result returns a ``judgestats.results.Result``.

The contract (``judgestats.results``): ``flags`` is a tuple of keys of the one catalogue
``FLAG_MESSAGES``; ``to_dict()`` is JSON-safe; ``summary()`` returns a DataFrame and prints
nothing; ``plot(ax=None)`` returns the Axes; ``_repr_html_()`` returns markup; ``str()`` is the
printed report.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest

import judgestats as jc
from judgestats.kclass import KClassData, kclass_estimate
from judgestats.planning import compare_human_only
from judgestats.results import FLAG_MESSAGES, Result
from judgestats.stratified import StratifiedData, stratified_estimate

matplotlib.use("Agg")

PAPER = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
# a random labelled sample of 100 items: 60 truly correct (54 judged correct), 40 truly
# incorrect (28 judged incorrect); 1000 unlabelled items, 660 judged correct. Rogan-Gladen:
# (0.66 + 0.7 - 1) / (0.7 + 0.9 - 1) = 0.6, the labelled class balance m1 / m: no shift
RANDOM = jc.JudgeData(k=660, n=1000, k0=28, m0=40, k1=54, m1=60, design="random")


def random_design_labels() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 0/1 arrays behind RANDOM: human and judge labels of the sample, the test verdicts."""
    human = np.array([1] * 60 + [0] * 40)
    judge = np.array([1] * 54 + [0] * 6 + [0] * 28 + [1] * 12)
    test = np.array([1] * 660 + [0] * 340)
    return human, judge, test


def items(*, repeat: bool = False) -> pd.DataFrame:
    """A tiny items frame: two models, 40 test and 30 labelled items each.

    ``repeat=True`` judges every item of model "a" twice (ids repeat: the clustered path).
    """
    rows = []
    for model, k, k0, k1 in (("a", 24, 12, 13), ("b", 18, 11, 12)):
        verdicts = [1] * k + [0] * (40 - k) + [0] * k0 + [1] * (15 - k0) + [1] * k1
        verdicts += [0] * (15 - k1)
        labels = [None] * 40 + [0] * 15 + [1] * 15
        for i, (judge, human) in enumerate(zip(verdicts, labels, strict=True)):
            rows.append({"id": f"{model}{i}", "judge": judge, "human": human, "model": model})
            if repeat and model == "a":
                rows.append({"id": f"{model}{i}", "judge": judge, "human": human, "model": model})
    frame = pd.DataFrame(rows)
    frame["judge"] = frame["judge"].astype("Int64")
    frame["human"] = frame["human"].astype("Int64")
    frame.attrs["source"] = "tiny.csv"
    return frame


def quiet(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return function(*args, **kwargs)


#: Results whose classes other changes of issue 14 convert to the contract (compare ->
#: Comparison, shift_estimators -> ShiftEstimates, class_balance_test, ppi): listed all the same.
CONVERTED_ELSEWHERE = ("compare", "shift_estimators", "class_balance_test", "ppi")

CALLS: dict[str, Callable[[], Any]] = {
    "estimate": lambda: jc.estimate(PAPER),
    "posterior": lambda: jc.posterior(PAPER, method="exact", random_seed=0),
    "crosscheck": lambda: jc.crosscheck(PAPER, random_seed=0),
    "crosscheck.recommended": lambda: jc.crosscheck(PAPER, random_seed=0).recommended,
    "ppi": lambda: jc.ppi(*random_design_labels()),
    "shift_estimators": lambda: jc.shift_estimators(RANDOM),
    "class_balance_test": lambda: jc.class_balance_test(RANDOM),
    "compare": lambda: jc.compare(
        PAPER, jc.JudgeData(k=450, n=1000, k0=150, m0=200, k1=170, m1=200)
    ),
    "allocate_calibration": lambda: jc.allocate_calibration(
        200, 0.4, q0_pilot=0.7, q1_pilot=0.9, m_pilot=40
    ),
    "optimal_allocation": lambda: jc.optimal_allocation(200, 0.4, 0.7, 0.9, n=1000),
    "required_calibration": lambda: jc.required_calibration(0.2, 0.4, 0.7, 0.9),
    "estimate_items": lambda: jc.estimate_items(items()),
    "estimate_items clustered": lambda: jc.estimate_items(items(repeat=True)),
    "estimate_items by": lambda: jc.estimate_items(items(), by="model", null=0.5),
    "estimate_items by, clustered": lambda: jc.estimate_items(items(repeat=True), by="model"),
    "crosscheck_items": lambda: jc.crosscheck_items(items(), by="model", random_seed=0),
    "compare_human_only": lambda: compare_human_only(200, 0.4, 0.7, 0.9, n=1000),
    "stratified_estimate": lambda: stratified_estimate(
        StratifiedData.from_counts({"a": PAPER, "b": jc.JudgeData(300, 500, 80, 100, 90, 100)})
    ),
    "kclass_estimate": lambda: kclass_estimate(
        KClassData(
            ("A", "B", "tie"), test=[420, 380, 200], confusion=[[12, 4, 6], [5, 18, 7], [6, 5, 29]]
        )
    ),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_every_result_keeps_the_contract(name, capsys):
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    result = quiet(CALLS[name])
    assert isinstance(result, Result), type(result).__name__
    assert isinstance(type(result).title, str) and type(result).title
    assert isinstance(result.flags, tuple)
    assert set(result.flags) <= set(FLAG_MESSAGES), result.flags
    assert len(result.flag_messages) == len(result.flags)
    json.dumps(result.to_dict())
    capsys.readouterr()
    frame = result.summary()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    assert capsys.readouterr() == ("", "")  # a summary returns data and never prints
    ax = result.plot()
    assert isinstance(ax, Axes)
    _, own = plt.subplots()
    assert result.plot(ax=own) is own  # draws on the Axes it is given
    plt.close("all")
    markup = result._repr_html_()
    assert isinstance(markup, str) and markup.startswith('<div class="judgestats-result">')
    assert str(result).strip()


def test_flags_that_fire_are_registered_keys():
    # p-hat = 0.05 < 1 - q0 = 0.3 (clipped estimate) with calibration arms of 10 items: the
    # estimate, posterior and cross-check all carry flags, and every one is a catalogue key
    data = jc.JudgeData(k=5, n=100, k0=7, m0=10, k1=9, m1=10)
    results = [quiet(jc.estimate, data), quiet(jc.posterior, data), quiet(jc.crosscheck, data)]
    flags = [flag for result in results for flag in result.flags]
    assert {"clipped", "small_calibration", "boundary"} <= set(flags)
    assert set(flags) <= set(FLAG_MESSAGES)


def test_the_catalogue_holds_every_module_catalogue():
    from judgestats.bayes.diagnostics import FLAGS as POSTERIOR_FLAGS
    from judgestats.planning import PLAN_FLAGS
    from judgestats.recommendation import FLAGS as CROSSCHECK_FLAGS

    for catalogue in (POSTERIOR_FLAGS, CROSSCHECK_FLAGS, PLAN_FLAGS):
        assert set(catalogue) <= set(FLAG_MESSAGES)
