"""Label until sure: labels the sequential design needed against the planner's budget (issue 28).

For every cell of ``benchmarks/sequential_coverage.py`` (read from its JSON result, so the
simulated numbers are the ones that script printed), three label counts for the same target
width side by side:

* ``anytime``: the median number of labels at which the anytime-valid interval of
  :mod:`judgestats.sequential` first reached the width (random batches, stopped by the data);
* ``fixed PPI++`` / ``fixed CP``: the smallest batch multiple at which the median fixed-size
  interval (PPI++, labels-only Clopper-Pearson) is at most the width -- fixed-size random
  labelling, with the size known in advance (which no analyst knows);
* ``planner``: the budget m0 + m1 that :func:`judgestats.required_calibration` recommends before
  any label (its default: optimal split, frequentist expected Lang-Reiczigel width), given the
  cell's true judged-correct rate p = theta q1 + (1 - theta)(1 - q0), q0 and q1 -- the oracle
  planning values, the planner's best case. Its design is the stratified one (m0 truly-incorrect
  and m1 truly-correct items), and its width is the *expected* width, not a median. The test
  set: n = inf for the items target (its share has no test-set sampling noise) and n = 20,000
  for the population target. "unreachable" where the planner says that no budget reaches the
  width (a weak judge at a narrow width).

    python benchmarks/sequential_planner.py [--source benchmarks/results/sequential_coverage.json]

Writes benchmarks/results/sequential_planner.json and .md. No simulation: the time is the
planner's 216 searches (a few minutes on the shared 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

N_POPULATION = 20_000
COLUMNS = ("anytime", "fixed_ppi", "fixed_cp", "planner")


def planner_budget(theta: float, q0: float, q1: float, target: str, width: float) -> float | None:
    """m0 + m1 of :func:`judgestats.required_calibration` at the true values; None: unreachable."""
    from judgestats import JudgeStatsWarning, required_calibration

    p = theta * q1 + (1.0 - theta) * (1.0 - q0)
    n = math.inf if target == "items" else N_POPULATION
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # small arms: flagged, still a plan
        try:
            plan = required_calibration(width, p, q0, q1, n=n)
        except ValueError as error:
            if "unreachable" not in str(error) and "not reached" not in str(error):
                raise
            return None
    return float(plan.m0 + plan.m1)


def rows_from(cells: list[dict]) -> list[dict]:
    """One row per cell: its key and the four label counts."""
    rows = []
    for c in cells:
        rows.append(
            {
                **{k: c[k] for k in ("target", "judge", "theta", "batch", "width")},
                "anytime": c["anytime_median_labels"],
                "fixed_ppi": c["fixed_ppi_labels"],
                "fixed_cp": c["fixed_cp_labels"],
                "planner": planner_budget(c["theta"], c["q0"], c["q1"], c["target"], c["width"]),
            }
        )
    return rows


def summarise(rows: list[dict]) -> dict:
    """Medians over the cells where all four counts exist, per target; and the ratios."""
    summary: dict = {"cells": len(rows)}
    for target in sorted({r["target"] for r in rows}):
        mine = [r for r in rows if r["target"] == target]
        complete = [r for r in mine if all(r[c] is not None for c in COLUMNS)]
        summary[target] = {
            "cells": len(mine),
            "cells_with_all_four": len(complete),
            "planner_unreachable": sum(r["planner"] is None for r in mine),
            **{f"median_{c}": float(np.median([r[c] for r in complete])) for c in COLUMNS},
            **{
                f"median_ratio_anytime_to_{c}": float(
                    np.median([r["anytime"] / r[c] for r in complete])
                )
                for c in COLUMNS[1:]
            },
        }
    return summary


def markdown(rows: list[dict], summary: dict, command: str, source: str) -> str:
    """The summary, then one table row per cell."""

    def show(value: float | None) -> str:
        return "unreachable" if value is None else f"{value:.0f}"

    lines = [
        "# Label until sure: labels needed against the planner's budget "
        "(benchmarks/sequential_planner.py)",
        "",
        f"`{command}` (the simulated columns from `{source}`: "
        "`python benchmarks/sequential_coverage.py --reps 200 --seed 28 --jobs 2 --recheck 1000`)",
        "",
        "```",
        json.dumps(summary, indent=1),
        "```",
        "",
        "Labels to reach the target width: anytime = median labels at the data-dependent stop "
        "of the anytime-valid interval; fixed PPI++ / CP = smallest batch multiple whose median "
        "fixed-size interval is that narrow (None: not within the budget); planner = m0 + m1 of "
        "`required_calibration` at the true p, q0, q1 before any label (stratified design, "
        "expected width).",
        "",
        "| target | judge | theta | batch | width | anytime | fixed PPI++ | fixed CP | planner |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['target']} | {r['judge']} | {r['theta']} | {r['batch']} | {r['width']} | "
            f"{show(r['anytime'])} | {r['fixed_ppi']} | {r['fixed_cp']} | {show(r['planner'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Read the coverage result, add the planner's budgets; print the summary; write results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source",
        default=str(RESULTS / "sequential_coverage.json"),
        help="the JSON result of benchmarks/sequential_coverage.py",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    cells = json.loads(Path(args.source).read_text())["cells"]
    rows = rows_from(cells)
    summary = summarise(rows)
    summary["seconds"] = round(time.perf_counter() - start, 1)
    source = Path(args.source).name
    command = "python benchmarks/sequential_planner.py"
    if Path(args.source).resolve() != (RESULTS / "sequential_coverage.json").resolve():
        command += f" --source {args.source}"
    write_results("sequential_planner", {"command": command, "summary": summary, "cells": rows})
    (RESULTS / "sequential_planner.md").write_text(markdown(rows, summary, command, source))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
