"""Extract the Lang-Reiczigel coverage table that the cross-check consults from the atlas.

Reads ``benchmarks/results/coverage_atlas.nc`` (written by ``benchmarks/coverage_atlas.py``:
10,000 replications per cell) and writes ``src/judgestats/datasets/lr_coverage_atlas.npz`` with the
coverage of the 95% Lang-Reiczigel interval on the grid theta x q0 x q1 x n x m (m = m0 = m1)
and the grid itself. Run from the repository root:

    python scripts/make_atlas_table.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "benchmarks" / "results" / "coverage_atlas.nc"
TARGET = ROOT / "src" / "judgestats" / "datasets" / "lr_coverage_atlas.npz"
DIMS = ("theta", "q0", "q1", "n", "m")


def main() -> None:
    """Write the table (same atlas, same file)."""
    atlas = xr.open_dataset(SOURCE)
    coverage = atlas.coverage.sel(interval="lang_reiczigel").transpose(*DIMS)
    np.savez_compressed(
        TARGET,
        coverage=coverage.values.astype(np.float32),
        reps=np.array(int(atlas.attrs["reps"])),
        confidence_level=np.array(float(atlas.attrs["confidence_level"])),
        **{name: atlas[name].values.astype(float) for name in DIMS},
    )
    print(f"wrote {TARGET} ({TARGET.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
