"""The results page of benchmarks/random_design.py (benchmarks/results/random_design.md)."""

from __future__ import annotations

import json

import numpy as np


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
