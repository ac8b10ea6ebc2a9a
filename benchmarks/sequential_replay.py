"""Label until sure, replayed on real data: JudgeBench's 350 GPT-4o pairs (issue 28, item 4).

Data: ``tests/fixtures/judgebench/judgebench_gpt4o_verdicts.csv`` (6 judges' verdicts on the same
350 response pairs with gold labels; see the README beside it), read by
``benchmarks/real_judgebench.py``'s ``load_fixture`` ("A>B" is the positive class). Target: the
share of truly-positive pairs among the 350 (``target="items"``, 193 / 350 = 0.5514); the only
randomness is the labelling order. For each judge, batch size and width, ``--orders`` random
orders of the 350 pairs are labelled batch by batch (the first pairs of each order: what
``LabellingSession.next_batch`` does), and the analyst stops at the first batch whose interval is
at most the width wide. Compared at that stopping time: the anytime-valid interval
(:mod:`judgestats.sequential`), and PPI++ and Clopper-Pearson recomputed after every batch
(``benchmarks/sequential_coverage.py``'s functions); labels at stopping against the size a
fixed-size design needs for a median width at the target.

    python benchmarks/sequential_replay.py [--orders 1000] [--seed 28]

Writes benchmarks/results/sequential_replay.json and .md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, markdown_head, write_results  # noqa: E402
from real_judgebench import judge_summary, load_fixture  # noqa: E402
from sequential_coverage import at_stopping  # noqa: E402

BATCHES = (10, 25)
WIDTHS = (0.1, 0.2)


def replay(z, z_hat, batch, width, orders, rng):
    """One (judge, batch, width) cell over ``orders`` random labelling orders."""
    order = np.argsort(rng.random((orders, z.size)), axis=1)
    truth, judged = z[order].astype(float), z_hat[order].astype(float)
    total = np.full(orders, float(z_hat.sum()))
    value = np.full(orders, z.mean())
    data = (truth, judged, total, z.size, value)
    row = {"batch": batch, "width": width, "orders": orders}
    row.update(at_stopping(data, "items", batch, width))
    return row


def main(argv=None):
    """Replay every judge; print the summary; write JSON and Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=1000, help="labelling orders per cell")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = []
    for index, (judge, (z, z_hat)) in enumerate(sorted(load_fixture().items())):
        for batch, width in itertools.product(BATCHES, WIDTHS):
            rng = np.random.default_rng(np.random.SeedSequence(args.seed, spawn_key=(index,)))
            row = {"judge": judge, **judge_summary(z, z_hat)}
            rows.append({**row, **replay(z, z_hat, batch, width, args.orders, rng)})
    summary = {
        "cells": len(rows),
        "anytime_min_coverage": min(r["anytime_coverage"] for r in rows),
        "naive_ppi_min_coverage": min(r["naive_ppi_coverage"] for r in rows),
        "naive_cp_min_coverage": min(r["naive_cp_coverage"] for r in rows),
        "median_ratio_anytime_to_fixed_ppi_labels": float(
            np.median(
                [
                    r["anytime_median_labels"] / r["fixed_ppi_labels"]
                    for r in rows
                    if r["fixed_ppi_labels"]
                ]
            )
        ),
        "seconds": round(time.perf_counter() - start, 1),
    }
    command = f"python benchmarks/sequential_replay.py --orders {args.orders} --seed {args.seed}"
    write_results("sequential_replay", {"command": command, "summary": summary, "cells": rows})
    lines = [
        *markdown_head(
            "Label until sure on JudgeBench (benchmarks/sequential_replay.py)", command, summary
        ),
        "| judge | J | batch | width | anytime cov | labels | PPI++ recomputed cov | labels | "
        "CP recomputed cov | labels | fixed PPI++ | fixed CP |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['judge']} | {r['J']:.2f} | {r['batch']} | {r['width']} | "
            f"{r['anytime_coverage']:.3f} | {r['anytime_median_labels']:.0f} | "
            f"{r['naive_ppi_coverage']:.3f} | {r['naive_ppi_median_labels']:.0f} | "
            f"{r['naive_cp_coverage']:.3f} | {r['naive_cp_median_labels']:.0f} | "
            f"{r['fixed_ppi_labels']} | {r['fixed_cp_labels']} |"
        )
    (RESULTS / "sequential_replay.md").write_text("\n".join(lines) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
