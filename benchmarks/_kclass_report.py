"""The printed tables of benchmarks/kclass_coverage.py and the summary its JSON records.

One line per grid cell (:func:`print_table`), the per-method summary (:func:`summarise`,
:func:`print_summary`) and the lines of the posterior and recommended blocks.
"""

from __future__ import annotations

import numpy as np
from _kclass_cells import METHODS, TARGET


def _summary_names(size: int) -> list[str]:
    """The summary targets of a size: the win rate (K = 3), the mean score and top-2 share."""
    return ["win_A"] if size == 3 else ["mean_score", "top2"]


def _min_share(method: dict) -> tuple[float | None, float | None]:
    """The smallest share coverage of a method in a cell, with its se."""
    rows = [v for k, v in method.items() if k.startswith("share_") and v["coverage"] is not None]
    if not rows:
        return None, None
    worst = min(rows, key=lambda v: v["coverage"])
    return worst["coverage"], worst["se"]


def print_table(results: list[dict]) -> None:
    """One line per cell: undefined share; per method the smallest share coverage ± se and the
    summaries' coverage (K = 3: win rate; K = 5: mean score, top-2 share), the summaries' widths."""
    head = (
        f"{'K':>1} {'judge':<6} {'shares':<8}{'m':>4}{'n':>7}{'undef%':>7}{'proj%':>6} | "
        f"{'adjusted: min share':>19} {'summaries':>11} {'width':>13} | "
        f"{'wald: min share':>15} {'summaries':>11} {'width':>13} | "
        f"{'naive: min sh':>13} {'summaries':>11}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        names = _summary_names(r["K"])
        cells = []
        for method in METHODS:
            values = r["methods"][method]
            low, se = _min_share(values)
            share_txt = "  -  " if low is None else f"{low:5.3f} ± {se:.3f}"
            covs = " ".join(
                "  -  " if values[k]["coverage"] is None else f"{values[k]['coverage']:5.3f}"
                for k in names
            )
            widths = " ".join(
                "  -   " if values[k]["coverage"] is None else f"{values[k]['width']:6.4f}"
                for k in names
            )
            cells.append((share_txt, covs, widths))
        proj = r["projected_fraction"]
        print(
            f"{r['K']:>1} {r['judge']:<6} {r['shares_name']:<8}{r['m']:>4}{r['n']:>7}"
            f"{100 * r['undefined_fraction']:7.1f}"
            f"{'-' if proj is None else f'{100 * proj:6.1f}':>6} | "
            f"{cells[0][0]:>19} {cells[0][1]:>11} {cells[0][2]:>13} | "
            f"{cells[1][0]:>15} {cells[1][1]:>11} {cells[1][2]:>13} | "
            f"{cells[2][0]:>13} {cells[2][1]:>11}"
        )


def summarise(results: list[dict]) -> dict:
    """Per method and target kind: the smallest coverage, the cells below TARGET, mean width."""

    def key(r: dict) -> str:
        return f"K={r['K']} {r['judge']} {r['shares_name']} m={r['m']} n={r['n']}"

    out: dict[str, object] = {"cells": len(results)}
    for method in METHODS:
        block: dict[str, object] = {}
        for kind in ("shares", "win_A", "mean_score", "top2"):
            rows = []
            for r in results:
                for name, v in r["methods"][method].items():
                    wanted = name.startswith("share_") if kind == "shares" else name == kind
                    if wanted and v["coverage"] is not None:
                        rows.append((key(r), name, v))
            if not rows:
                continue
            worst = min(rows, key=lambda row: row[2]["coverage"])
            below = [
                f"{cell} {name}: {v['coverage']:.4f} ± {v['se']:.4f}"
                for cell, name, v in rows
                if v["coverage"] < TARGET
            ]
            errors = [abs(v["mean_error"]) for _, _, v in rows]
            block[kind] = {
                "evaluated": len(rows),
                "max_abs_bias": max(errors),
                "median_abs_bias": float(np.median(errors)),
                "min_coverage": worst[2]["coverage"],
                "min_coverage_at": f"{worst[0]} {worst[1]}",
                "mean_coverage": float(np.mean([v["coverage"] for _, _, v in rows])),
                "below_target": len(below),
                "below_target_cells": below,
            }
        out[method] = block
    out["max_undefined_fraction"] = max(r["undefined_fraction"] for r in results)
    out["cells_with_undefined"] = [
        f"{key(r)}: {r['undefined_fraction']:.4f}" for r in results if r["undefined_fraction"] > 0
    ]
    return out


def print_summary(summary: dict) -> None:
    """Per method and target kind: min and mean coverage, cells below TARGET."""
    print(
        f"\n{'method':<9}{'target':<11}{'cells':>6}{'min cov':>9}{'mean cov':>9}"
        f"{'<' + str(TARGET):>7}{'max|bias|':>10}{'med|bias|':>10}  worst coverage at"
    )
    for method in METHODS:
        for kind, v in summary[method].items():
            print(
                f"{method:<9}{kind:<11}{v['evaluated']:>6}{v['min_coverage']:9.4f}"
                f"{v['mean_coverage']:9.4f}{v['below_target']:>7}{v['max_abs_bias']:10.4f}"
                f"{v['median_abs_bias']:10.4f}  {v['min_coverage_at']}"
            )
    print(
        "bias = mean error of the point estimate in a cell: adjusted and wald share the "
        "package's projected shares (over the defined datasets), naive is the judged shares "
        "(over every dataset)."
    )


def print_posterior(rows: list[dict]) -> None:
    """Posterior coverage per cell next to the closed form's on the same datasets."""
    print("\nposterior block (coverage on the same datasets; min over shares, then summaries):")
    for r in rows:
        names = _summary_names(r["K"])
        parts = []
        for label, block in (
            ("posterior", r["posterior"]),
            ("adjusted", r["adjusted_same_datasets"]),
            ("wald", r["wald_same_datasets"]),
        ):
            shares = [v["coverage"] for k, v in block.items() if k.startswith("share_") and v]
            summ = " ".join(f"{block[k]['coverage']:.3f}" for k in names if block[k])
            parts.append(f"{label} {min(shares):.3f} / {summ}" if shares else f"{label} -")
        print(
            f"  K={r['K']} {r['judge']} {r['shares_name']} m={r['m']} n={r['n']} "
            f"({r['reps']} datasets, undef {r['undefined_fraction_closed_form']:.3f}, "
            f"min ESS {r['ess_min']:.0f}): " + "; ".join(parts)
        )


def print_recommended(rows: list[dict]) -> None:
    """Per cell: the fallback share, the smallest coverage over the targets (all datasets)."""
    print("\nrecommended interval (kclass_recommended), coverage counting every dataset:")
    for r in rows:
        worst = min(r["coverage_all"], key=r["coverage_all"].get)
        fall = [v for v in r["coverage_fallback"].values() if v == v]
        print(
            f"  K={r['K']} {r['judge']} {r['shares_name']} m={r['m']} n={r['n']} ({r['reps']} "
            f"datasets): fallback {r['fallback_fraction']:.3f} {r['fallback_methods']}; "
            f"min coverage {r['coverage_all'][worst]:.3f} ({worst}), mean "
            f"{np.mean(list(r['coverage_all'].values())):.3f}"
            + (f"; on the fallback datasets min {min(fall):.3f}" if fall else "")
        )
