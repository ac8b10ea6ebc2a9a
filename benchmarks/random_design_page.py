"""The verdicts and the results page of benchmarks/random_design.py (results/random_design.md)."""

from __future__ import annotations

import json

import numpy as np
from _random_grid import M_GRID, METHODS, N_GRID, Q_GRID, TARGETS, THETA_GRID


def markdown(first_cov, first_wid, rec_cov, rec_wid, exact_share, summary, methods):
    """The results page: per target the verdicts, the reruns and a row per (m, n)."""
    names = (*methods, "ppi_python")
    targets = tuple(summary["verdicts"])
    m_grid, n_grid = summary["grid"]["m"], summary["grid"]["n"]
    lines = ["# Random design: candidates and the recommended interval", ""]
    lines += ["Command: `python benchmarks/random_design.py " + summary["command"] + "`", ""]
    for target in targets:
        lines += [f"## target = {target}", "", "```", json.dumps(summary["verdicts"][target],
                  indent=1), "```", "", "Cells below 0.945, rerun (pass 4):", "", "```",
                  json.dumps(summary["confirm"][target], indent=1), "```", ""]  # fmt: skip
        t = targets.index(target)
        lines += [
            "| m | n | rec. min cov | rec. width / CP | rec. width / Blaker | rec. width / "
            "ppi-python | ppi-python min cov | PPI++ min cov | exact picked |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for a, m in enumerate(m_grid):
            for b, n in enumerate(n_grid):
                w = rec_wid[t, a, b]
                lines.append(
                    f"| {m} | {n} | {rec_cov[t, a, b].min():.3f} | "
                    f"{np.mean(w / first_wid[t, 0, a, b]):.3f} | "
                    f"{np.mean(w / first_wid[t, 1, a, b]):.3f} | "
                    f"{np.mean(w / first_wid[t, names.index('ppi_python'), a, b]):.3f} | "
                    f"{first_cov[t, names.index('ppi_python'), a, b].min():.3f} | "
                    f"{first_cov[t, 2, a, b].min():.3f} | {exact_share[t, a, b].mean():.0%} |"
                )
        lines.append("")
        lines += ["Posterior subgrid (coverage, mean width):", ""]
        for a, m in enumerate(m_grid):
            for b, n in enumerate(n_grid):
                for name in ("posterior_eti", "posterior_hdi"):
                    j = names.index(name)
                    c = first_cov[t, j, a, b]
                    peer = np.where(np.isfinite(c), first_cov[t, 2, a, b], np.nan)
                    if np.isfinite(c).any():
                        lines.append(
                            f"- {name}, m = {m}, n = {n}: coverage min {np.nanmin(c):.3f}, "
                            f"median {np.nanmedian(c):.3f}; PPI++ t on the same cells min "
                            f"{np.nanmin(peer):.3f}"
                        )
        lines.append("")
    return "\n".join(lines) + "\n"


def verdicts(first_cov, first_wid, rec_cov, rec_wid, reps, exact_share):
    """The issue's done-when targets, cell by cell, per target."""
    from scipy.special import ndtr

    se = float(np.sqrt(0.95 * 0.05 / reps))
    names = (*METHODS, "ppi_python")
    cp, blaker = names.index("labels_only_cp"), names.index("labels_only_blaker")
    ppi_py = names.index("ppi_python")
    youden = Q_GRID[:, None] + Q_GRID[None, :] - 1.0
    strong = np.broadcast_to((youden >= 0.8)[None, None, :, :, None], rec_cov.shape[1:])
    big_n = np.broadcast_to(
        (N_GRID[None, :] >= 10 * M_GRID[:, None])[:, :, None, None, None], rec_cov.shape[1:]
    )
    out = {}
    for t, target in enumerate(TARGETS):
        covers = rec_cov[t] >= 0.945
        narrower = rec_wid[t] <= first_wid[t, blaker] * (1 + 1e-9)
        peer_covers = first_cov[t, ppi_py] >= 0.945
        near_peer = rec_wid[t] <= 1.05 * first_wid[t, ppi_py]
        ratio = rec_wid[t] / first_wid[t, cp]
        select = strong & big_n
        worst = np.unravel_index(np.argmin(rec_cov[t]), rec_cov[t].shape)
        out[target] = {
            "cells": int(rec_cov[t].size),
            "recommended_covers_0.945": f"{int(covers.sum())}/{covers.size}",
            "recommended_min_coverage": float(rec_cov[t].min()),
            "recommended_min_coverage_cell": {
                "m": int(M_GRID[worst[0]]), "n": int(N_GRID[worst[1]]),
                "q0": float(Q_GRID[worst[2]]), "q1": float(Q_GRID[worst[3]]),
                "theta": float(THETA_GRID[worst[4]]),
            },
            "monte_carlo_se_at_0.95": se,
            "recommended_below_0.945": int((~covers).sum()),
            "expected_below_0.945_if_every_cell_were_0.95": float(
                covers.size * ndtr((0.945 - 0.95) / se)
            ),
            "ppi_pp_min_coverage": float(first_cov[t, 2].min()),
            "exact_picked_share": float(exact_share[t].mean()),
            "width_le_labels_only_blaker": f"{int(narrower.sum())}/{narrower.size}",
            "ppi_python_covers_0.945": f"{int(peer_covers.sum())}/{peer_covers.size}",
            "width_within_5pct_of_ppi_python_where_it_covers": (
                f"{int((near_peer & peer_covers).sum())}/{int(peer_covers.sum())}"
            ),
            "median_width_ratio_to_cp_strong_judge_n_ge_10m": float(np.median(ratio[select])),
            "cells_strong_judge_n_ge_10m": int(select.sum()),
            "ppi_pp_covers_0.945": f"{int((first_cov[t, 2] >= 0.945).sum())}/{covers.size}",
        }  # fmt: skip
    return out
