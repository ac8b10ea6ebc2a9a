"""Stratified calibration: the result contract, warnings once, and the light import."""

from __future__ import annotations

import json

import matplotlib
import pandas as pd
import pytest
from _stratified_data import easy_hard, quiet

import judgestats as jc
from judgestats.results import FLAG_MESSAGES, Result
from judgestats.stratified import (
    PooledBias,
    stratified_estimate,
)

matplotlib.use("Agg")


# ---------------------------------------------------------------------------------------------
# the result contract
# ---------------------------------------------------------------------------------------------
def test_result_contract(capsys):
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    data = easy_hard(m0=(20, 20), m1=(20, 20))
    result = quiet(stratified_estimate, data)
    assert isinstance(result, Result) and isinstance(result.diagnostic, PooledBias)
    assert {"small_stratum_calibration", "pooled_biased"} <= set(result.flags)
    for item in (result, result.diagnostic, result.pooled, *result.by_stratum):
        assert set(item.flags) <= set(FLAG_MESSAGES)
        json.loads(json.dumps(item.to_dict()))
        capsys.readouterr()
        frame = item.summary()
        assert isinstance(frame, pd.DataFrame) and len(frame)
        assert capsys.readouterr() == ("", "")
        ax = item.plot()
        assert isinstance(ax, Axes)
        _, own = plt.subplots()
        assert item.plot(ax=own) is own
        plt.close("all")
        assert item._repr_html_().startswith('<div class="judgestats-result">')
        assert str(item).strip()
    frame = result.summary()
    assert list(frame.index) == ["easy", "hard", "overall (stratified)", "pooled (unstratified)"]
    assert frame.loc["overall (stratified)", "estimate"] == result.theta
    assert frame["n"].tolist() == [800, 200, 1000, 1000]
    as_dict = result.to_dict()
    assert set(as_dict["strata"]) == {"easy", "hard"} and set(as_dict["flags"]) == set(result.flags)
    assert result.stratum("hard") is result.by_stratum[1]
    with pytest.raises(KeyError, match="`name`"):
        result.stratum("medium")


def test_flags_warn_once():
    data = easy_hard(m0=(100, 100), m1=(100, 100))
    with pytest.warns(jc.JudgeStatsWarning) as record:
        stratified_estimate(data)
    assert len(record) == 1


def test_import_judgestats_stratified_stays_light():
    import subprocess
    import sys

    code = (
        "import sys, judgestats.stratified; "
        "print(any(m in sys.modules for m in ('pandas', 'matplotlib', 'scipy.stats', 'pymc')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
