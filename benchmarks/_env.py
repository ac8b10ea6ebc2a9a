"""Shared helpers for the benchmark scripts: environment record and JSON output."""

from __future__ import annotations

import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

#: Where results go: benchmarks/results, or the folder named by JUDGESTATS_BENCH_RESULTS (the
#: device script writes there so that a borrowed machine's run leaves the stored results alone).
RESULTS = Path(
    os.environ.get("JUDGESTATS_BENCH_RESULTS") or Path(__file__).resolve().parent / "results"
)


def environment() -> dict[str, object]:
    """Describe the machine and the versions a benchmark ran with."""
    versions = {}
    for package in ("judgestats", "numpy", "scipy", "pymc", "arviz", "xarray", "dask"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "versions": versions,
    }


def write_results(name: str, payload: dict[str, object]) -> Path:
    """Write ``payload`` plus the environment to benchmarks/results/NAME.json."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({**payload, "environment": environment()}, indent=2) + "\n")
    return path


def markdown_head(title: str, command: str, summary: dict[str, object]) -> list[str]:
    """The first lines of a results page: the title, the command, the summary as JSON."""
    return [f"# {title}", "", f"`{command}`", "", "```", json.dumps(summary, indent=1), "```", ""]
