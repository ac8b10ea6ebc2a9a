"""The faster exact paths (issue 27) give the results of the engine before that work.

``tests/fixtures/exact_speed/reference.npz`` holds the 95% equal-tailed and shortest theta
intervals computed by the engine at commit e2a9aa3 (``tests/reference/make_exact_speed_fixture.py``)
over calibration groups served by the shared table and lone datasets served by the per-dataset
rule: weak judges near chance, arms of 1-5 items, n from 1 to 10**6, estimates at 0 and 1, and a
small coverage study. Every interval end must agree within 1e-9.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from _script_modules import load_file

import judgestats as jc
from judgestats.bayes.exact import exact_interval

REF = Path(__file__).resolve().parent / "reference" / "make_exact_speed_fixture.py"
TOL = 1e-9


def _fixture():
    module = load_file(REF, "_judgestats_exact_speed_fixture")
    return module, np.load(module.OUT)


MODULE, REFERENCE = _fixture()


def test_fixture_inputs_are_the_scripts():
    counts = np.concatenate([MODULE.datasets(), MODULE.study()])
    np.testing.assert_array_equal(REFERENCE["counts"], counts)


@pytest.mark.parametrize(("kind", "workers"), [("eti", 1), ("hdi", 2)])
def test_exact_interval_matches_the_engine_before(kind, workers):
    low, high = exact_interval(*REFERENCE["counts"].T, prob=0.95, kind=kind, workers=workers)
    np.testing.assert_allclose(
        np.stack([low, high], axis=1), REFERENCE[f"batch_{kind}"], rtol=0, atol=TOL
    )


def test_posterior_ci_matches_the_engine_before():
    counts = REFERENCE["counts"]
    names = ("k", "n", "k0", "m0", "k1", "m1")
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        for i in MODULE.singles(counts):
            data = jc.JudgeData(**dict(zip(names, map(int, counts[i]), strict=True)))
            try:
                post = jc.posterior(data)
            except ValueError:
                got.append([np.nan] * 4)
                continue
            got.append([*post.ci(0.95, "eti"), *post.ci(0.95, "hdi")])
    np.testing.assert_allclose(np.array(got), REFERENCE["single"], rtol=0, atol=TOL)
