"""The README's command-line examples print exactly what the README shows.

Every ```console block of README.md: each ``$ judgestats ...`` line is run (as
``python -m judgestats ...``) in a temporary folder holding a copy of the bundled example files at
the paths the README uses, and its stdout and stderr are compared line by line with the lines
that follow it in the README. ``/…/`` in the README stands for where judgestats is installed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DATASETS = ROOT / "src" / "judgestats" / "datasets"


def _examples() -> list[tuple[str, str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        lines = block.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for i, j in zip(starts, [*starts[1:], len(lines)], strict=True):
            out.append((lines[i][2:], "\n".join(lines[i + 1 : j]).rstrip()))
    return out


EXAMPLES = _examples()


def test_the_readme_has_console_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c[:60] for c, _ in EXAMPLES])
def test_readme_console_example(command, expected, tmp_path):
    words = shlex.split(command)
    assert words[0] == "judgestats", command
    shutil.copytree(
        DATASETS,
        tmp_path / "src" / "judgestats" / "datasets",
        ignore=shutil.ignore_patterns("*.py", "__pycache__"),
    )
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("CI", None)
    run = subprocess.run(
        [sys.executable, "-m", "judgestats", *words[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    got = (run.stdout + run.stderr).rstrip()
    if "/…/" in expected:  # demo --show-data prints where judgestats is installed
        got = re.sub(r"/\S*?/src/judgestats/", "/…/src/judgestats/", got)
    assert got.splitlines() == expected.splitlines()
