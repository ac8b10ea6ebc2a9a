"""Every public result's ``to_dict()`` is strict JSON, with NaN and infinities as ``null``.

DESIGN.md's result contract: ``json.dumps(result.to_dict(), allow_nan=False)`` works and
``json.loads`` gives the same data back. Each result of ``test_result_contract.CALLS`` (every
public function that returns a result) is checked as computed, on degenerate inputs whose
numbers do not exist (one labelled class, a judge no better than chance, an unreachable target
width), and with every float field replaced by nan, +inf or -inf. The one conversion is
:func:`judgestats._json.to_json`; the command line's ``--json`` output is parsed strictly too.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_result_contract import CALLS, items, quiet

import judgestats as jc
from judgestats._json import json_number, to_json
from judgestats.results import ConfidenceInterval

#: One labelled class only (m0 = 0): q0 and every closed-form row are NaN.
ONE_CLASS = jc.JudgeData(k=50, n=100, k0=0, m0=0, k1=18, m1=20, design="random")
#: q0 + q1 - 1 = 0: no correction exists, the closed-form rows of the cross-check are NaN.
CHANCE = jc.JudgeData(k=50, n=100, k0=10, m0=20, k1=10, m1=20)
#: k = 0 of 1e9 with a perfect judge: the exact posterior refuses it, the posterior rows are NaN.
NO_POSTERIOR = jc.JudgeData(k=0, n=10**9, k0=20, m0=20, k1=20, m1=20)


def _no_class_0_in_b() -> Any:
    frame = items()
    drop = (frame["model"] == "b") & (frame["human"] == 0)
    frame["human"] = frame["human"].where(~drop).astype("Int64")
    return frame


DEGENERATE: dict[str, Callable[[], Any]] = {
    "shift_estimators, one class": lambda: jc.shift_estimators(ONE_CLASS),
    "posterior, one class": lambda: jc.posterior(ONE_CLASS, method="exact", random_seed=0),
    "crosscheck, one class": lambda: jc.crosscheck(ONE_CLASS, random_seed=0),
    "crosscheck, no better than chance": lambda: jc.crosscheck(CHANCE, random_seed=0),
    "crosscheck, posterior unavailable": lambda: jc.crosscheck(NO_POSTERIOR, random_seed=0),
    "required_calibration, unreachable": lambda: jc.required_calibration(0.001, 0.4, 0.7, 0.9),
    "allocate_calibration, weak judge": lambda: jc.allocate_calibration(
        200, 0.4, q0_pilot=0.5, q1_pilot=0.52, m_pilot=40
    ),
    "estimate_items by, a group without class 0": lambda: jc.estimate_items(
        _no_class_0_in_b(), by="model"
    ),
    "crosscheck_items, a group without class 0": lambda: jc.crosscheck_items(
        _no_class_0_in_b(), by="model", random_seed=0
    ),
}

ALL_CALLS = {**CALLS, **DEGENERATE}


def _strict_round_trip(value: dict[str, Any]) -> None:
    text = json.dumps(value, allow_nan=False)
    assert json.loads(text) == json.loads(json.dumps(to_json(value), allow_nan=False))
    assert json.loads(text) == value or _equal_as_json(json.loads(text), value)


def _equal_as_json(parsed: Any, value: Any) -> bool:
    """Equal once tuples are lists (JSON has one sequence type)."""
    if isinstance(value, dict):
        return parsed.keys() == value.keys() and all(
            _equal_as_json(parsed[k], value[k]) for k in value
        )
    if isinstance(value, (list, tuple)):
        return len(parsed) == len(value) and all(map(_equal_as_json, parsed, value))
    return parsed == value


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return {name: quiet(call) for name, call in ALL_CALLS.items()}


@pytest.mark.parametrize("name", list(ALL_CALLS))
def test_to_dict_is_strict_json_and_round_trips(results, name):
    _strict_round_trip(results[name].to_dict())


def test_the_degenerate_inputs_do_hold_non_finite_numbers(results):
    # the cases above are only a test if the result holds NaN: check that they do
    chance = results["crosscheck, no better than chance"]
    assert math.isnan(chance.rows["rogan_gladen"].estimate)
    assert chance.to_dict()["rows"]["rogan_gladen"]["estimate"] is None
    no_posterior = results["crosscheck, posterior unavailable"]
    assert math.isnan(no_posterior.rows["posterior_eti"].low)
    assert no_posterior.to_dict()["rows"]["posterior_eti"]["low"] is None
    shift = results["shift_estimators, one class"]
    assert any(math.isnan(row.estimate) for row in shift.rows.values())


_POISON = (math.nan, math.inf, -math.inf)

#: Fields that are the inputs or settings of a computation (a level, a size, a pilot rate), not
#: numbers it reports: a non-finite value there is refused upstream, so it is left as it is.
_SETTINGS = {"confidence_level", "interval_level", "level", "prob", "n", "m", "p", "q0", "q1"}


def _poisoned(result: Any) -> Any:
    """A copy of ``result`` whose float fields (and interval ends) are nan, +inf, -inf in turn."""
    out = copy.copy(result)
    values = itertools.cycle(_POISON)
    for field in dataclasses.fields(out):
        value = getattr(out, field.name)
        if field.name in _SETTINGS:
            continue
        if isinstance(value, ConfidenceInterval):
            new: Any = ConfidenceInterval(next(values), next(values))
        elif isinstance(value, float):
            new = next(values)
        else:
            continue
        object.__setattr__(out, field.name, new)
    return out


@pytest.mark.parametrize("name", list(ALL_CALLS))
def test_non_finite_fields_become_null(results, name):
    result = results[name]
    if not dataclasses.is_dataclass(result):
        pytest.skip(f"{type(result).__name__} is not a dataclass")
    _strict_round_trip(_poisoned(result).to_dict())


def test_to_json_converts_numpy_and_non_finite_numbers():
    value = {
        "a": np.float64(0.5),
        "b": np.array([[1.0, np.nan], [np.inf, -np.inf]]),
        "c": (np.int64(3), np.bool_(True), None, "x"),
        2: {"nested": [float("nan"), np.float32(0.25)]},
    }
    assert to_json(value) == {
        "a": 0.5,
        "b": [[1.0, None], [None, None]],
        "c": [3, True, None, "x"],
        "2": {"nested": [None, 0.25]},
    }
    assert [json_number(v) for v in (1, np.nan, np.inf, -np.inf, None)] == [
        1.0,
        None,
        None,
        None,
        None,
    ]
    json.dumps(to_json(value), allow_nan=False)


def _refuse(constant: str) -> None:
    raise ValueError(f"not strict JSON: {constant}")


def test_cli_crosscheck_json_is_strict_for_a_judge_no_better_than_chance(capsys):
    # q0 = q1 = 10/20: no Rogan-Gladen estimate exists; its row and the largest difference were
    # printed as bare NaN, which a strict parser rejects. They are null now.
    from judgestats.cli import main

    argv = ["crosscheck", "--k", "50", "--n", "100", "--k0", "10", "--m0", "20"]
    assert main([*argv, "--k1", "10", "--m1", "20", "--json"]) == 0
    parsed = json.loads(capsys.readouterr().out, parse_constant=_refuse)
    assert parsed["rows"]["rogan_gladen"] == {
        "estimate": None,
        "low": None,
        "high": None,
        "width": None,
    }
    assert parsed["max_difference"] is None
    assert parsed["rows"]["posterior_eti"]["estimate"] is not None  # the posterior still exists
