"""Real-data check (issue 24 item 5): coverage and width on JudgeBench's 350 GPT-4o pairs.

``benchmarks/real_data.py`` is the check over every real-data fixture (this one and LLMBar's),
fast enough for 200 splits; it reuses this module's data and baseline helpers. This script
stays for its extra columns (every crosscheck row on every split), at about 2 s a split.

Data: ``tests/fixtures/judgebench/judgebench_gpt4o_verdicts.csv`` (6 judges' verdicts on the same
350 response pairs with gold labels; see the README beside it). Binary framing: the positive class
is "A>B"; a pair is truly positive iff its gold label is "A>B" (193 of 350) and judged positive iff
the judge's reduced verdict is "A>B" (a "tie" is judged negative).

Estimand: the share of truly-positive pairs among all 350, theta = 193/350 = 0.5514 (the "items"
target: a fixed, finite population). The only randomness is which pairs get labelled: for each
labelled-set size M (30, 60, 120) and each of ``--splits`` random splits (seeded from
``--random-seed``, M and the split index, so every judge sees the same splits), M pairs are drawn
without replacement and labelled (gold known); the other 350 - M keep only the judge's verdict.
The counts go into ``JudgeData(k, n, k0, m0, k1, m1, design="random")``: ``k`` of the ``n`` =
350 - M unlabelled pairs judged positive; of the M labelled ones, ``m0`` truly negative with
``k0`` judged negative and ``m1`` truly positive with ``k1`` judged positive.

Intervals (all at 95%), each scored against theta on every split:

- ``labels_only_cp``: Clopper-Pearson on the m1 positives of the M labels (scipy).
- ``labels_only_cp_fp``: its finite-population version for the items target: the exact
  hypergeometric interval for the number D of positives among the 350 (the D whose one-sided
  hypergeometric tail probabilities at m1 both exceed 2.5%), divided by 350.
- ``ppi_pp``: PPI++ from ppi-python, ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05,
  lam=None)`` (power-tuned), clipped to [0, 1].
- ``lang_reiczigel``: ``judgestats.estimate(data)`` (Rogan-Gladen with the Lang-Reiczigel interval).
- ``posterior_eti``, ``posterior_hdi``: the cross-check's posterior rows (today's target).
- ``recommended``: ``judgestats.crosscheck(data).recommended`` (today's rule); the picked method is
  counted per cell.
- when the package has them (checked on every run, so the script works before and after the
  merge): ``recommended_items``: ``judgestats.crosscheck(data, target="items").recommended``, and
  ``items:NAME`` for every interval of ``judgestats.random_design_candidates(data,
  target="items").intervals`` (a dict NAME -> (estimate, low, high)).

Scoring: an interval covers if low <= theta <= high. A method that raises, or returns a NaN end,
gives no interval on that split: it counts as a miss in the coverage (the analyst has nothing to
report) and is left out of the mean width; the share of such splits is reported per method and
the error messages are tallied.

Done-when statements, per (judge, M) and per recommended interval R (``recommended`` and, when
present, ``recommended_items``):

- ``covers``: coverage of R >= 0.945;
- ``narrower_than_exact``: mean width of R <= that of the labels-only exact interval of the same
  target (``labels_only_cp`` for ``recommended``, ``labels_only_cp_fp`` for
  ``recommended_items``; both widths are reported);
- ``near_ppi``: mean width of R <= 1.05 x PPI++'s, judged only where PPI++ covers (>= 0.945);
  ``null`` where PPI++ does not.

With 200 splits the Monte Carlo standard error of a coverage near 0.95 is about 0.015, so a cell
at 0.94 is not evidence of undercoverage by itself (the standard error is reported).

    python benchmarks/real_judgebench.py                 # 200 splits, M in 30 60 120 (minutes)
    python benchmarks/real_judgebench.py --quick         # 20 splits (a smoke run)
    python benchmarks/real_judgebench.py --splits 500 --sizes 30 60 --judges o1-mini --tag T
    python benchmarks/real_judgebench.py --from-json benchmarks/results/real_judgebench.json

Writes benchmarks/results/real_judgebench[_quick|_T].json and .md.

The done-when statements and the Markdown report live in ``_judgebench_report.py``.
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import math
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402
from _judgebench_report import done_when, markdown  # noqa: E402

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "fixtures"
    / "judgebench"
    / "judgebench_gpt4o_verdicts.csv"
)
POSITIVE = "A>B"
LEVEL = 0.95
SIZES = (30, 60, 120)
SPLITS = 200
RANDOM_SEED = 20251126

Interval = tuple[float, float, float]  # estimate, low, high


# ---------------------------------------------------------------------------------------------
# data


def load_fixture(path: Path = FIXTURE) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Judge -> (z, z_hat): 0/1 arrays over the pairs sorted by pair_id (z: gold "A>B")."""
    by_judge: dict[str, dict[str, tuple[int, int]]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            cells = by_judge.setdefault(row["judge"], {})
            cells[row["pair_id"]] = (int(row["gold"] == POSITIVE), int(row["verdict"] == POSITIVE))
    out = {}
    pair_ids = None
    for judge, cells in sorted(by_judge.items()):
        ids = sorted(cells)
        if pair_ids is None:
            pair_ids = ids
        elif ids != pair_ids:
            raise ValueError(f"{judge} does not judge the same pairs as the other judges")
        z = np.array([cells[i][0] for i in ids], dtype=np.int64)
        z_hat = np.array([cells[i][1] for i in ids], dtype=np.int64)
        out[judge] = (z, z_hat)
    return out


def judge_summary(z: np.ndarray, z_hat: np.ndarray) -> dict[str, float]:
    """Accuracy, q0, q1 and J = q0 + q1 - 1 of a judge on all pairs ("A>B" positive)."""
    q1 = float(z_hat[z == 1].mean())
    q0 = float(1 - z_hat[z == 0].mean())
    return {
        "accuracy_binary": float((z == z_hat).mean()),
        "q0": q0,
        "q1": q1,
        "J": q0 + q1 - 1,
        "judged_positive_share": float(z_hat.mean()),
    }


def labelled_mask(n_items: int, size: int, split: int, seed: int) -> np.ndarray:
    """The labelled pairs of one split (the same for every judge)."""
    rng = np.random.default_rng([seed, size, split])
    mask = np.zeros(n_items, dtype=bool)
    mask[rng.choice(n_items, size=size, replace=False)] = True
    return mask


def counts(z: np.ndarray, z_hat: np.ndarray, mask: np.ndarray) -> dict[str, int]:
    """The six counts of ``JudgeData(..., design="random")`` for one split."""
    zl, hl = z[mask], z_hat[mask]
    return {
        "k": int(z_hat[~mask].sum()),
        "n": int((~mask).sum()),
        "k0": int(((zl == 0) & (hl == 0)).sum()),
        "m0": int((zl == 0).sum()),
        "k1": int(((zl == 1) & (hl == 1)).sum()),
        "m1": int((zl == 1).sum()),
    }


# ---------------------------------------------------------------------------------------------
# the labels-only and PPI++ intervals


def clopper_pearson(x: int, m: int, level: float = LEVEL) -> Interval:
    """Exact binomial (Clopper-Pearson) interval for x successes of m."""
    from scipy.stats import beta

    alpha = 1 - level
    low = 0.0 if x == 0 else float(beta.ppf(alpha / 2, x, m - x + 1))
    high = 1.0 if x == m else float(beta.ppf(1 - alpha / 2, x + 1, m - x))
    return x / m, low, high


def finite_population_exact(x: int, m: int, population: int, level: float = LEVEL) -> Interval:
    """Exact hypergeometric interval for the share D / N of positives in a population of N.

    ``x`` positives in a simple random sample of ``m`` of the ``population`` items: D is kept
    where P(X >= x | D) > alpha / 2 and P(X <= x | D) > alpha / 2 (the finite-population
    Clopper-Pearson interval; D always lies in [x, N - (m - x)]).
    """
    from scipy.stats import hypergeom

    alpha = 1 - level
    d = np.arange(population + 1)
    upper_tail = hypergeom.sf(x - 1, population, d, m)  # P(X >= x)
    lower_tail = hypergeom.cdf(x, population, d, m)  # P(X <= x)
    keep = d[(upper_tail > alpha / 2) & (lower_tail > alpha / 2)]
    return x / m, float(keep.min()) / population, float(keep.max()) / population


def ppi_plus_plus(y: np.ndarray, y_hat: np.ndarray, y_hat_unlabelled: np.ndarray) -> Interval:
    """PPI++ (ppi-python, power-tuned lam) for the mean, clipped to [0, 1]."""
    import ppi_py

    low, high = ppi_py.ppi_mean_ci(
        y.astype(float), y_hat.astype(float), y_hat_unlabelled.astype(float), alpha=1 - LEVEL
    )
    point = ppi_py.ppi_mean_pointestimate(
        y.astype(float), y_hat.astype(float), y_hat_unlabelled.astype(float)
    )
    low_f, high_f = float(np.squeeze(low)), float(np.squeeze(high))
    return float(np.squeeze(point)), max(0.0, low_f), min(1.0, high_f)


# ---------------------------------------------------------------------------------------------
# judgestats


def capabilities() -> dict[str, bool]:
    """Which of the items-target functions the installed judgestats has."""
    import judgestats

    return {
        "crosscheck_target": "target" in inspect.signature(judgestats.crosscheck).parameters,
        "random_design_candidates": hasattr(judgestats, "random_design_candidates"),
    }


def judgestats_intervals(
    data: object, caps: dict[str, bool], seed: int
) -> dict[str, Interval | Exception]:
    """Every judgestats interval of one dataset (an exception where a call raised)."""
    import judgestats

    out: dict[str, Interval | Exception] = {}
    try:
        est = judgestats.estimate(data)
        out["lang_reiczigel"] = (float(est.theta), float(est.ci.low), float(est.ci.high))
    except Exception as error:  # noqa: BLE001 - every failure is counted, not raised
        out["lang_reiczigel"] = error
    try:
        check = judgestats.crosscheck(data, random_seed=seed)
        rec = check.recommended
        out["recommended"] = (float(rec.estimate), float(rec.low), float(rec.high))
        out["recommended:method"] = str(rec.method)  # type: ignore[assignment]
        for row in ("posterior_eti", "posterior_hdi"):
            value = check.rows[row]
            out[row] = (float(value.estimate), float(value.low), float(value.high))
    except Exception as error:  # noqa: BLE001
        for name in ("recommended", "posterior_eti", "posterior_hdi"):
            out[name] = error
    if caps["crosscheck_target"]:
        try:
            rec = judgestats.crosscheck(data, target="items", random_seed=seed).recommended
            out["recommended_items"] = (float(rec.estimate), float(rec.low), float(rec.high))
            out["recommended_items:method"] = str(rec.method)  # type: ignore[assignment]
        except Exception as error:  # noqa: BLE001
            out["recommended_items"] = error
    if caps["random_design_candidates"]:
        try:
            cands = judgestats.random_design_candidates(data, target="items").intervals
            for name, triple in cands.items():
                est_, low, high = triple
                out[f"items:{name}"] = (float(est_), float(low), float(high))
        except Exception as error:  # noqa: BLE001
            out["items:(all)"] = error
    return out


# ---------------------------------------------------------------------------------------------
# one cell


def run_cell(
    z: np.ndarray,
    z_hat: np.ndarray,
    size: int,
    splits: int,
    seed: int,
    caps: dict[str, bool] | None = None,
    compute: Callable[[object, dict[str, bool], int], dict] | None = None,
) -> dict[str, object]:
    """Coverage and width of every interval for one judge and labelled-set size M."""
    import judgestats

    caps = capabilities() if caps is None else caps
    compute = judgestats_intervals if compute is None else compute
    theta = float(z.mean())
    population = z.size
    hits: dict[str, list[float]] = {}
    widths: dict[str, list[float]] = {}
    errors: dict[str, Counter] = {}
    picks: dict[str, Counter] = {"recommended": Counter(), "recommended_items": Counter()}

    def score(name: str, value: Interval | Exception) -> None:
        hits.setdefault(name, [])
        widths.setdefault(name, [])
        errors.setdefault(name, Counter())
        if isinstance(value, Exception):
            message = re.sub(r"(?<![A-Za-z_\d])-?\d+(\.\d+)?(e-?\d+)?", "#", str(value))[:120]
            errors[name][f"{type(value).__name__}: {message}"] += 1
            hits[name].append(0.0)
            return
        _, low, high = value
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            errors[name]["no finite interval (NaN or low > high)"] += 1
            hits[name].append(0.0)
            return
        hits[name].append(float(low - 1e-12 <= theta <= high + 1e-12))
        widths[name].append(high - low)

    for split in range(splits):
        mask = labelled_mask(population, size, split, seed)
        c = counts(z, z_hat, mask)
        x = int(z[mask].sum())
        score("labels_only_cp", clopper_pearson(x, size))
        score("labels_only_cp_fp", finite_population_exact(x, size, population))
        try:
            score("ppi_pp", ppi_plus_plus(z[mask], z_hat[mask], z_hat[~mask]))
        except Exception as error:  # noqa: BLE001
            score("ppi_pp", error)
        try:
            data = judgestats.JudgeData(**c, design="random")
        except Exception as error:  # noqa: BLE001
            data = error
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(data, Exception):
                found: dict = {"lang_reiczigel": data, "recommended": data}
            else:
                found = compute(data, caps, seed + split)
        for name, value in found.items():
            if name.endswith(":method"):
                picks[name.split(":")[0]][value] += 1
            else:
                score(name, value)

    methods = {}
    for name in hits:
        cover = float(np.mean(hits[name]))
        methods[name] = {
            "coverage": cover,
            "coverage_se": math.sqrt(cover * (1 - cover) / splits),
            "mean_width": float(np.mean(widths[name])) if widths[name] else None,
            "splits": splits,
            "errors": int(sum(errors[name].values())),
            "error_share": sum(errors[name].values()) / splits,
            "error_messages": dict(errors[name].most_common(5)),
        }
    return {
        "theta": theta,
        "methods": methods,
        "picks": {key: dict(value.most_common()) for key, value in picks.items() if value},
        "done_when": done_when(methods),
    }


# ---------------------------------------------------------------------------------------------
# the whole harness


def harness(
    judges: dict[str, tuple[np.ndarray, np.ndarray]],
    sizes: Sequence[int] = SIZES,
    splits: int = SPLITS,
    seed: int = RANDOM_SEED,
    progress: bool = False,
) -> dict[str, object]:
    """Every (judge, M) cell; judges ordered by J."""
    caps = capabilities()
    summaries = {judge: judge_summary(*arrays) for judge, arrays in judges.items()}
    order = sorted(judges, key=lambda j: summaries[j]["J"])
    cells = []
    for judge in order:
        z, z_hat = judges[judge]
        for size in sizes:
            start = time.perf_counter()
            cell = run_cell(z, z_hat, size, splits, seed, caps)
            cells.append(
                {"judge": judge, "M": size, "J": summaries[judge]["J"], **cell}
                | {"seconds": time.perf_counter() - start}
            )
            if progress:
                rec = cell["methods"]["recommended"]
                print(
                    f"{judge} M={size}: recommended covers {rec['coverage']:.3f}, "
                    f"width {rec['mean_width'] or float('nan'):.3f} "
                    f"({time.perf_counter() - start:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    return {"capabilities": caps, "judges": {j: summaries[j] for j in order}, "cells": cells}


def main() -> None:
    from importlib import metadata

    import judgestats

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=None, help=f"default {SPLITS}; 20 --quick")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--random-seed", "--random_seed", type=int, default=RANDOM_SEED)
    parser.add_argument("--quick", action="store_true", help="20 splits per cell (a smoke run)")
    parser.add_argument("--judges", nargs="+", default=None, help="substrings of judge names")
    parser.add_argument("--fixture", type=Path, default=FIXTURE)
    parser.add_argument("--tag", default=None, help="results suffix (default: none, or 'quick')")
    parser.add_argument(
        "--from-json", type=Path, default=None, help="only rewrite the .md of this results JSON"
    )
    args = parser.parse_args()
    if args.from_json is not None:
        md = args.from_json.with_suffix(".md")
        md.write_text(markdown(json.loads(args.from_json.read_text())))
        print(f"wrote {md}")
        return
    splits = args.splits or (20 if args.quick else SPLITS)
    judges = load_fixture(args.fixture)
    if args.judges:
        judges = {j: v for j, v in judges.items() if any(s in j for s in args.judges)}
    start = time.perf_counter()
    result = harness(judges, args.sizes, splits, args.random_seed, progress=True)
    result["config"] = {
        "splits": splits,
        "sizes": args.sizes,
        "random_seed": args.random_seed,
        "level": LEVEL,
        "fixture": str(args.fixture.relative_to(Path(__file__).resolve().parents[1]))
        if args.fixture.is_relative_to(Path(__file__).resolve().parents[1])
        else str(args.fixture),
        "judgestats_version": judgestats.__version__,
        "judgestats_path": str(Path(judgestats.__file__).resolve().parent),
        "ppi_python_version": metadata.version("ppi-python"),
        "seconds": time.perf_counter() - start,
    }
    tag = args.tag or ("quick" if args.quick else None)
    name = "real_judgebench" + (f"_{tag}" if tag else "")
    path = write_results(name, result)
    (RESULTS / f"{name}.md").write_text(markdown(result))
    print(f"wrote {path} and {path.with_suffix('.md')}")


if __name__ == "__main__":
    main()
