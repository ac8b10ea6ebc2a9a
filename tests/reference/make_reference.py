"""Compute the brute-force reference posterior for a grid of hard cases.

Writes ``tests/reference/posterior_reference.json`` (after every case, so a partial run is usable):
for each case the counts, the prior, and for each of theta, q0, q1, youden, p the quantiles at
0.025 / 0.5 / 0.975 and the mean (theta also the 95% shortest interval), computed at the FINE
resolution of ``brute_force``; ``convergence`` holds, per variable, the largest absolute change of
any of those numbers between the COARSE and FINE resolutions (FINE doubles every Gauss-Legendre node
count and tightens the adaptive Chebyshev tolerance), and ``mass_rel_spread`` the relative spread of
the posterior normaliser as integrated in the five different orders (one per variable).

It also checks the reference against a plain importance sampler (prior x calibration-Beta draws,
weights L(p)) on two easy cases and stores that comparison under ``mc_check``.

Usage (from the repository root)::

    .venv/bin/python tests/reference/make_reference.py            # everything (~20 min, 1 core)
    .venv/bin/python tests/reference/make_reference.py --resume   # keep cases already in the JSON
    .venv/bin/python tests/reference/make_reference.py --only readme weak_j104_n2e4
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

try:
    from . import brute_force as bf
except ImportError:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import brute_force as bf

OUT = Path(__file__).resolve().parent / "posterior_reference.json"

C = bf.Case
J = (0.5, 0.5)  # Jeffreys

# (id, case, reason)
CASES: list[tuple[str, bf.Case, str]] = [
    ("readme", C(400, 1000, 140, 200, 180, 200), "README example (q0 median ~0.697)"),
    (
        "weak_j104_n2e4",
        C(9600, 20000, 6, 10, 5, 10),
        "weak judge (q0+q1 ~1.04 at the plug-in) with large n; an old engine gave median 0.5513",
    ),
    (
        "weak_j105_m60",
        C(5200, 10000, 30, 60, 33, 60),
        "weak judge, m=60 per arm, n=1e4 (theta median ~0.4847)",
    ),
    (
        "weak_j111_n1e6",
        C(480_000, 10**6, 55, 100, 56, 100),
        "weak judge q0+q1 ~1.11 with n=1e6: likelihood 2000x narrower than the calibration",
    ),
    (
        "weak_j102_n1e5",
        C(50_000, 10**5, 51, 100, 51, 100),
        "weakest judge q0+q1 ~1.02, n=1e5, p-hat at the chance line",
    ),
    (
        "weak_j120_n1e5_m20",
        C(43_000, 10**5, 12, 20, 12, 20),
        "weak judge q0+q1 ~1.2, small arms m=20, n=1e5",
    ),
    ("tiny_m1_n1", C(1, 1, 1, 1, 1, 1), "one item everywhere: everything is prior-dominated"),
    (
        "tiny_m1_n1e3",
        C(700, 1000, 1, 1, 0, 1),
        "one calibration item per arm (the sensitivity one judged wrong), n=1000",
    ),
    (
        "tiny_m1_n1e6",
        C(500_000, 10**6, 1, 1, 1, 1),
        "one calibration item per arm, n=1e6: likelihood a knife edge against flat q's",
    ),
    ("tiny_m2_n1e6", C(350_000, 10**6, 2, 2, 1, 2), "two calibration items per arm, n=1e6"),
    ("tiny_m5_n100", C(60, 100, 4, 5, 5, 5), "five per arm, n=100, one perfect arm"),
    ("tiny_m5_n1e6", C(123_456, 10**6, 3, 5, 4, 5), "five per arm, n=1e6"),
    ("huge_n1e8_m20", C(61_234_567, 10**8, 18, 20, 17, 20), "n=1e8 against m=20"),
    (
        "huge_n1e9_m20",
        C(400_012_345, 10**9, 19, 20, 18, 20),
        "n=1e9 against m=20 (likelihood width 1.5e-5)",
    ),
    (
        "huge_n1e8_m1e4",
        C(70_000_000, 10**8, 9000, 10**4, 9500, 10**4),
        "n=1e8 with large arms m=1e4",
    ),
    (
        "huge_n1e9_m1e4",
        C(550_000_000, 10**9, 8800, 10**4, 9100, 10**4),
        "n=1e9 with m=1e4: every factor sharp",
    ),
    (
        "perfect_cal",
        C(700, 1000, 50, 50, 50, 50),
        "judge perfect on the calibration set (k0=m0, k1=m1): Betas peaked at the edge",
    ),
    ("perfect_cal_n1e8", C(73_000_000, 10**8, 20, 20, 20, 20), "perfect calibration with n=1e8"),
    (
        "zero_k0",
        C(500, 1000, 0, 20, 20, 20),
        "k0=0 (q0 ~ 0) with k1=m1: truncation q0+q1>1 pins both to the corner",
    ),
    ("zero_k1_trunc", C(300, 1000, 20, 20, 0, 20), "k1=0 (q1 ~ 0) with k0=m0: mirror corner"),
    (
        "k_zero",
        C(0, 1000, 90, 100, 85, 100),
        "estimate at 0 (k=0): p-hat below 1-q0-hat, theta piles up at 0",
    ),
    ("k_n", C(1000, 1000, 90, 100, 85, 100), "estimate at 1 (k=n): theta piles up at 1"),
    (
        "k_zero_n1e8",
        C(0, 10**8, 99, 100, 90, 100),
        "k=0 with n=1e8: likelihood exp(-n p), width 1e-8",
    ),
    ("k_n_perfect", C(500, 500, 30, 30, 30, 30), "k=n with a perfect calibration: theta near 1"),
    (
        "phat_below",
        C(300, 1000, 55, 100, 52, 100),
        "p-hat=0.30 below 1-q0-hat=0.45 (outside [1-q0, q1])",
    ),
    ("phat_above", C(900, 1000, 80, 100, 70, 100), "p-hat=0.90 above q1-hat=0.70"),
    (
        "worse_than_chance",
        C(500, 1000, 30, 100, 40, 100),
        "calibration worse than chance (q0+q1 ~0.7) with truncation: mass squeezed to J ~ 0",
    ),
    (
        "untrunc_readme",
        C(400, 1000, 140, 200, 180, 200, truncate=False),
        "README data, untruncated prior",
    ),
    (
        "untrunc_weak",
        C(9600, 20000, 6, 10, 5, 10, truncate=False),
        "weak judge untruncated: posterior of youden straddles 0 (label-flip mode)",
    ),
    (
        "untrunc_worse",
        C(500, 1000, 30, 100, 40, 100, truncate=False),
        "worse-than-chance calibration untruncated: J < 0 mode",
    ),
    (
        "prior_theta_2_5",
        C(400, 1000, 140, 200, 180, 200, theta=(2, 5)),
        "README data with theta ~ Beta(2, 5)",
    ),
    (
        "prior_theta_jeffreys",
        C(400, 1000, 140, 200, 180, 200, theta=J),
        "README data with theta ~ Beta(1/2, 1/2) (unbounded prior density)",
    ),
    (
        "jeffreys_at_0",
        C(20, 1000, 95, 100, 90, 100, theta=J),
        "theta ~ Beta(1/2, 1/2) and p-hat below 1-q0-hat: shortest interval touches 0",
    ),
    (
        "jeffreys_at_1",
        C(990, 1000, 90, 100, 95, 100, theta=J),
        "theta ~ Beta(1/2, 1/2) with theta near 1",
    ),
    (
        "jeffreys_tiny",
        C(1, 1, 1, 1, 1, 1, theta=J),
        "Jeffreys theta prior with one item everywhere",
    ),
    (
        "prior_q0_5_2",
        C(400, 1000, 14, 20, 18, 20, q0=(5, 2)),
        "informative q0 ~ Beta(5, 2) with small arms",
    ),
    ("m0_zero", C(400, 1000, 0, 0, 180, 200), "m0=0: q0 only from its (uniform, truncated) prior"),
    (
        "m0_zero_prior",
        C(300, 1000, 0, 0, 45, 50, q0=(5, 2)),
        "m0=0 with q0 ~ Beta(5, 2): one-class calibration",
    ),
    ("m1_zero", C(400, 1000, 90, 100, 0, 0), "m1=0: q1 only from its prior"),
    (
        "hdi_flat_end",
        C(846, 1000, 67, 100, 90, 100),
        "shortest interval ends 4e-4 below 1, where its width is nearly flat in the start: the "
        "end candidate is 4e-6 longer, closer than approximate quantiles resolve",
    ),
    (
        "coverage_cell_m100",
        C(524, 1000, 66, 100, 96, 100),
        "a coverage-study dataset (q0=0.7, q1=0.9, m=100, n=1000) where engines differed by 2e-5",
    ),
    (
        "small_n",
        C(3, 10, 8, 10, 9, 10),
        "small n and m: a case where plain Monte Carlo is efficient (used for the MC check)",
    ),
]

MC_CASES = ["readme", "small_n"]


def _values(summary: dict, var: str) -> list[float]:
    s = summary[var]
    return list(s["quantiles"]) + [s["mean"]] + list(s.get("hdi95", []))


def run_case(cid: str, case: bf.Case, reason: str) -> dict:
    t0 = time.time()
    fine = bf.Reference(case, bf.FINE)
    fs = fine.summary()
    t1 = time.time()
    coarse = bf.Reference(case, bf.COARSE)
    cs = coarse.summary()
    conv = {
        v: max(abs(a - b) for a, b in zip(_values(fs, v), _values(cs, v), strict=True))
        for v in bf.VARS
    }
    return {
        "id": cid,
        "reason": reason,
        "case": case.to_dict(),
        "levels": list(bf.LEVELS),
        "summary": fs,
        "convergence": conv,
        "mass_rel_spread": fine.diagnostics()["mass_rel_spread"],
        "seconds": {"fine": round(t1 - t0, 2), "coarse": round(time.time() - t1, 2)},
    }


# ----------------------------------------------------------------------------------------------
# plain importance-sampling check
# ----------------------------------------------------------------------------------------------
def _weighted_quantile(x, w, q):
    o = np.argsort(x)
    cw = np.cumsum(w[o])
    cw /= cw[-1]
    return np.interp(q, cw, x[o])


def importance_check(
    case: bf.Case, summary: dict, draws: int = 4_000_000, batches: int = 20, seed: int = 20240611
) -> dict:
    """Draw theta from its prior and q0, q1 from their calibration Betas (rejecting q0 + q1 <= 1
    when truncated), weight by L(p) = p^k (1 - p)^(n - k); compare weighted quantiles and means."""
    rng = np.random.default_rng(seed)
    at, bt = case.theta
    A0, B0 = case.q0[0] + case.k0, case.q0[1] + case.m0 - case.k0
    A1, B1 = case.q1[0] + case.k1, case.q1[1] + case.m1 - case.k1
    per = draws // batches
    ph = case.k / case.n
    lmax = float(special.xlogy(case.k, ph) + special.xlog1py(case.n - case.k, -ph))
    est = {v: [] for v in bf.VARS}
    allx = {v: [] for v in bf.VARS}
    allw = []
    ess_num = ess_den = 0.0
    for _ in range(batches):
        th = rng.beta(at, bt, per)
        q0 = rng.beta(A0, B0, per)
        q1 = rng.beta(A1, B1, per)
        p = th * q1 + (1 - th) * (1 - q0)
        with np.errstate(divide="ignore"):
            lw = case.k * np.log(p) + (case.n - case.k) * np.log1p(-p)
        if case.truncate:
            lw = np.where(q0 + q1 > 1, lw, -np.inf)
        w = np.exp(lw - lmax)  # fixed offset (the maximum) so batches share a scale
        vals = {"theta": th, "q0": q0, "q1": q1, "youden": q0 + q1 - 1, "p": p}
        for v in bf.VARS:
            est[v].append(
                list(_weighted_quantile(vals[v], w, np.array(bf.LEVELS)))
                + [float(np.sum(w * vals[v]) / np.sum(w))]
            )
            allx[v].append(vals[v])
        allw.append(w)
        ess_num += w.sum()
        ess_den += (w**2).sum()
    w = np.concatenate(allw)
    out = {"draws": draws, "ess": float(ess_num**2 / ess_den), "vars": {}}
    worst_z = 0.0
    for v in bf.VARS:
        x = np.concatenate(allx[v])
        mc = list(_weighted_quantile(x, w, np.array(bf.LEVELS)))
        mc.append(float(np.sum(w * x) / np.sum(w)))
        se = np.std(np.array(est[v]), axis=0, ddof=1) / np.sqrt(batches)
        ref = list(summary[v]["quantiles"]) + [summary[v]["mean"]]
        diff = [a - b for a, b in zip(mc, ref, strict=False)]
        z = [abs(d) / s for d, s in zip(diff, se, strict=False)]
        worst_z = max(worst_z, max(z))
        out["vars"][v] = {"mc": mc, "reference": ref, "diff": diff, "se": list(se), "z": z}
    out["worst_abs_z"] = worst_z
    return out


def _load() -> dict:
    if OUT.exists():
        return json.loads(OUT.read_text())
    return {}


def _save(doc: dict) -> None:
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(OUT)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="case ids to (re)compute")
    ap.add_argument("--resume", action="store_true", help="keep cases already in the JSON")
    ap.add_argument("--no-mc", action="store_true", help="skip the importance-sampling check")
    args = ap.parse_args(argv)

    old = _load()
    have = {c["id"]: c for c in old.get("cases", [])}
    doc = {
        "description": "Brute-force posterior reference for the judge model (tests/reference/"
        "brute_force.py). Quantiles at `levels`, means, 95% shortest theta "
        "interval.",
        "levels": list(bf.LEVELS),
        "resolutions": {"fine": bf.FINE.__dict__, "coarse": bf.COARSE.__dict__},
        "cases": [],
        "mc_check": old.get("mc_check", {}),
    }
    t_all = time.time()
    for cid, case, reason in CASES:
        keep = (args.only is not None and cid not in args.only) or (args.resume and cid in have)
        if keep:
            if cid in have:
                doc["cases"].append(have[cid])
            continue
        t = time.time()
        entry = run_case(cid, case, reason)
        doc["cases"].append(entry)
        _save(doc)
        worst = max(entry["convergence"].values())
        print(
            f"{cid:24s} {time.time() - t:6.1f}s  worst change {worst:.1e}  "
            f"mass spread {entry['mass_rel_spread']:.1e}  theta median "
            f"{entry['summary']['theta']['quantiles'][1]:.6f}",
            flush=True,
        )
    if not args.no_mc:
        byid = {c["id"]: c for c in doc["cases"]}
        for cid in MC_CASES:
            if cid in byid:
                case = bf.Case.from_dict(byid[cid]["case"])
                chk = importance_check(case, byid[cid]["summary"])
                doc["mc_check"][cid] = chk
                worst = max(max(abs(d) for d in v["diff"]) for v in chk["vars"].values())
                print(
                    f"MC check {cid}: ESS {chk['ess']:.0f}, worst |diff|/se "
                    f"{chk['worst_abs_z']:.2f}, worst |diff| {worst:.1e}",
                    flush=True,
                )
    doc["total_seconds_last_run"] = round(time.time() - t_all, 1)
    _save(doc)
    print(f"wrote {OUT} ({len(doc['cases'])} cases) in {time.time() - t_all:.0f}s")


if __name__ == "__main__":
    main()
