"""Grid scan of the exact posterior over extreme counts: which datasets it answers or refuses.

Issue 25: ``judgestats.posterior`` raised numpy's "zero-size array to reduction operation" on
strongly conflicting data. This scan crosses n in {20, 1e3, 1e6, 1e9}, the calibration arms
(m0, m1) in {(3, 3), (20, 180), (180, 20), (5, 200), (60, 60)}, k in {0, n/5, n/2, n - n/5, n}
and k0, k1 at 0, half, one below the arm and the arm (1,600 datasets a design), and counts for
each design: answered with a finite interval of positive width, refused with the engine's
ValueError naming ``data`` ("could not be integrated"), or any other outcome (an exception of
another kind, a NaN or zero-width interval), which it lists.

    python benchmarks/posterior_fault_scan.py [--design stratified random]
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np

NS = (20, 1000, 10**6, 10**9)
ARMS = ((3, 3), (20, 180), (180, 20), (5, 200), (60, 60))


def datasets() -> list[tuple[int, int, int, int, int, int]]:
    """The (k, n, k0, m0, k1, m1) of the grid."""
    out = []
    for n, (m0, m1) in itertools.product(NS, ARMS):
        ks = (0, n // 5, n // 2, n - n // 5, n)
        k0s, k1s = (sorted({0, m // 2, m - 1, m}) for m in (m0, m1))
        for k, k0, k1 in itertools.product(ks, k0s, k1s):
            out.append((k, n, k0, m0, k1, m1))
    return out


def scan(design: str) -> dict[str, list]:
    """Outcome of ``judgestats.posterior`` on every dataset of the grid."""
    import judgestats
    from judgestats import JudgeData

    outcome: dict[str, list] = {"answered": [], "refused": [], "other": []}
    for counts in datasets():
        data = JudgeData(*counts, design=design)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                low, high = judgestats.posterior(data).ci()
            except ValueError as error:
                key = "refused" if "could not be integrated" in str(error) else "other"
                outcome[key].append((counts, str(error)[:100]))
                continue
            except Exception as error:  # noqa: BLE001 - the scan reports every failure
                outcome["other"].append((counts, f"{type(error).__name__}: {error}"[:100]))
                continue
        good = np.isfinite(low) and np.isfinite(high) and high > low
        outcome["answered" if good else "other"].append((counts, (low, high)))
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", nargs="*", default=["stratified", "random"])
    args = parser.parse_args()
    for design in args.design:
        start = time.perf_counter()
        outcome = scan(design)
        refused = outcome["refused"]
        below_chance = sum(c[2] + c[4] <= (c[3] + c[5]) / 2 for c, _ in refused)
        at_end = sum(c[0] in (0, c[1]) for c, _ in refused)
        print(
            f"{design}: {len(datasets())} datasets in {time.perf_counter() - start:.0f} s: "
            f"answered {len(outcome['answered'])}, refused {len(refused)} (k at 0 or n: "
            f"{at_end}; calibration at or below chance: {below_chance}), "
            f"other {len(outcome['other'])}"
        )
        for counts, what in outcome["other"]:
            print(f"  other: {counts} {what}")


if __name__ == "__main__":
    main()
