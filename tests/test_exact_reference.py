"""The exact engine against the independent brute-force reference in tests/reference/.

The reference (``tests/reference/brute_force.py``, values in ``posterior_reference.json``, made by
``tests/reference/make_reference.py``) shares no code with ``judgestats.bayes``; its values are
converged to ~1e-8, so the engine is held to 1e-4 (absolute) on quantiles, means and the 95%
shortest theta interval, over a grid of hard cases (weak judges with huge n, tiny arms, perfect
calibration, estimates at 0 and 1, p-hat outside [1 - q0, q1], untruncated and non-uniform priors,
one-class calibration sets).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _script_modules import load_file

REF_DIR = Path(__file__).resolve().parent / "reference"
JSON_PATH = REF_DIR / "posterior_reference.json"
VARS = ("theta", "q0", "q1", "youden", "p")
TOL = 1e-4


def _load(name: str):
    """Import a module of tests/reference by path (tests/ is not a package)."""
    return load_file(REF_DIR / f"{name}.py", f"_judgestats_reference_{name}")


DOC = json.loads(JSON_PATH.read_text())
CASES = {c["id"]: c for c in DOC["cases"]}
LEVELS = DOC["levels"]
_POSTERIORS: dict[str, object] = {}


def _posterior(cid: str):
    if cid in _POSTERIORS:
        return _POSTERIORS[cid]
    from judgestats import JudgeData
    from judgestats.bayes.exact import ExactPosterior
    from judgestats.bayes.priors import Prior

    c = CASES[cid]["case"]
    # an empty calibration arm is legal for a random labelled sample; the engine is given the
    # stratified model's prior, so it computes exactly the reference's posterior
    design = "random" if min(c["m0"], c["m1"]) == 0 else "stratified"
    data = JudgeData(
        k=c["k"], n=c["n"], k0=c["k0"], m0=c["m0"], k1=c["k1"], m1=c["m1"], design=design
    )
    prior = Prior(
        theta=tuple(c["theta"]),
        q0=tuple(c["q0"]),
        q1=tuple(c["q1"]),
        better_than_chance=c["truncate"],
    )
    post = ExactPosterior(data, prior)
    _POSTERIORS[cid] = post
    return post


def _ids(cid_var):
    return "-".join(cid_var) if isinstance(cid_var, tuple) else cid_var


CASE_VAR = [(cid, var) for cid in CASES for var in VARS]


# -- the reference itself ------------------------------------------------------------------------
def test_reference_covers_the_hard_cases():
    assert len(CASES) >= 30
    assert LEVELS == [0.025, 0.5, 0.975]


@pytest.mark.parametrize("cid", list(CASES))
def test_reference_is_converged(cid):
    """Resolution doubling moved nothing by more than 1e-6; the normaliser integrated in five
    different orders agrees."""
    entry = CASES[cid]
    huge = entry["case"]["n"] >= 10**8
    for var in VARS:
        if huge and var == "p":
            continue  # p's posterior is ~n^(-1/2) wide there; see test_huge_n_p_is_the_kernel
        limit = 2e-5 if huge else 1e-6  # still 5x below the engine tolerance, 1e-4
        assert entry["convergence"][var] < limit, (var, entry["convergence"][var])
    if not huge:  # the p normaliser of the reference is not resolved at n >= 1e8
        assert entry["mass_rel_spread"] < 1e-7


@pytest.mark.parametrize("cid", [cid for cid in CASES if CASES[cid]["case"]["n"] >= 10**8])
def test_huge_n_p_is_the_kernel(cid):
    """At n >= 1e8 the kernel is far sharper than the calibration's spread of p, so p's posterior
    is Beta(k + 1, n - k + 1) to a small fraction of its own width (independent of both the
    engine and the brute force)."""
    c = CASES[cid]["case"]
    from scipy import stats

    kernel = stats.beta(c["k"] + 1, c["n"] - c["k"] + 1)
    levels = np.array(CASES[cid]["levels"])
    engine = np.asarray(_posterior(cid).quantile(levels, var="p"))
    np.testing.assert_allclose(engine, kernel.ppf(levels), atol=0.05 * kernel.std())


def test_reference_matches_the_script():
    """Every case in the JSON is the case of that id in make_reference.py (no drift)."""
    make = _load("make_reference")
    script = {cid: case.to_dict() for cid, case, _ in make.CASES}
    for cid, entry in CASES.items():
        assert entry["case"] == script.get(cid), cid


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["tiny_m1_n1", "jeffreys_tiny"])
def test_brute_force_live_matches_json(cid):
    """Recompute two cheap cases with the brute force now (coarse resolution, a few seconds)."""
    bf = _load("brute_force")
    entry = CASES[cid]
    case = bf.Case.from_dict(entry["case"])
    live = bf.Reference(case, bf.COARSE).summary()
    for var in VARS:
        want = entry["summary"][var]
        got = live[var]
        assert got["quantiles"] == pytest.approx(want["quantiles"], abs=1e-6), var
        assert got["mean"] == pytest.approx(want["mean"], abs=1e-6), var
    assert live["theta"]["hdi95"] == pytest.approx(entry["summary"]["theta"]["hdi95"], abs=1e-6)


# -- the engine against the reference ------------------------------------------------------------
@pytest.mark.parametrize(("cid", "var"), CASE_VAR, ids=_ids)
def test_exact_quantiles_match_reference(cid, var):
    post = _posterior(cid)
    want = CASES[cid]["summary"][var]["quantiles"]
    got = [float(x) for x in post.quantile(LEVELS, var=var)]
    assert got == pytest.approx(want, abs=TOL), f"{cid} {var}: got {got}, reference {want}"


@pytest.mark.parametrize(("cid", "var"), CASE_VAR, ids=_ids)
def test_exact_mean_matches_reference(cid, var):
    post = _posterior(cid)
    want = CASES[cid]["summary"][var]["mean"]
    got = float(post.mean(var))
    assert got == pytest.approx(want, abs=TOL), f"{cid} {var}: got {got}, reference {want}"


@pytest.mark.parametrize("cid", list(CASES))
def test_exact_hdi_matches_reference(cid):
    post = _posterior(cid)
    want = CASES[cid]["summary"]["theta"]["hdi95"]
    got = [float(x) for x in post.interval(0.95, kind="hdi")]
    assert got == pytest.approx(want, abs=TOL), f"{cid}: got {got}, shortest interval {want}"


# -- the vectorised path (shared calibration groups) against the reference ---------------------
def _group_rows(cid: str):
    """The reference dataset and its test-count neighbours: one calibration group."""
    from judgestats.bayes._terms import rows_for
    from judgestats.bayes.priors import Prior

    c = CASES[cid]["case"]
    ks = np.unique(np.clip(c["k"] + np.array([0, 1, -1, 2, -2, 3, -3]), 0, c["n"]))
    counts = [np.full(ks.size, float(c[name])) for name in ("n", "k0", "m0", "k1", "m1")]
    prior = Prior(
        theta=tuple(c["theta"]),
        q0=tuple(c["q0"]),
        q1=tuple(c["q1"]),
        better_than_chance=c["truncate"],
    )
    return rows_for(ks.astype(float), *counts, prior), int(np.flatnonzero(ks == c["k"])[0])


def _batch_cases() -> list[str]:
    from judgestats.bayes._batch import batch_ready

    return [cid for cid in CASES if batch_ready(_group_rows(cid)[0])]


BATCH_CASES = _batch_cases()


def test_most_reference_cases_take_the_vectorised_path():
    assert len(BATCH_CASES) >= 25, BATCH_CASES


@pytest.mark.parametrize("cid", BATCH_CASES)
def test_vectorised_path_matches_reference(cid):
    """The shared-calibration rule serves the dataset and agrees with the reference."""
    from judgestats.bayes._batch import group_marginals, stack
    from judgestats.bayes._quadrature import theta_range as _theta_range

    rows, target = _group_rows(cid)
    low, high = _theta_range(rows)
    parts, index = group_marginals(rows, float(low.min()), float(high.max()))
    position = np.flatnonzero(index == target)
    if position.size == 0:
        # left to the per-dataset engine only where test and calibration conflict: p-hat
        # outside what the calibration's plug-in estimates allow, [1 - q0-hat, q1-hat]
        c = CASES[cid]["case"]
        p_hat, low_p, high_p = c["k"] / c["n"], 1 - c["k0"] / c["m0"], c["k1"] / c["m1"]
        assert not low_p <= p_hat <= high_p, cid
        return
    for density, block_rows in stack(parts):
        here = np.flatnonzero(block_rows == position[0])
        if here.size:
            one = density.take(here)
    want = CASES[cid]["summary"]["theta"]
    got = one.quantile(np.array([LEVELS]))[0]
    assert got == pytest.approx(want["quantiles"], abs=TOL), f"{cid}: {got} vs {want}"
    got_hdi = [float(x[0]) for x in one.shortest(0.95)]
    assert got_hdi == pytest.approx(want["hdi95"], abs=TOL), f"{cid}: {got_hdi} vs {want}"
