"""The command-line examples of the README and the documentation print exactly what they show.

Every ```console block of README.md and of the pages under docs/: each ``$ judgestats ...`` line
is run (as ``python -m judgestats ...``) in a temporary folder holding a copy of the bundled
example files at the paths the pages use, and its stdout and stderr are compared line by line
with the lines that follow it. ``/…/`` stands for where judgestats is installed.
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
#: The hand-written documentation pages (not the build, the generated API pages or the notebooks).
DOC_PAGES = sorted(
    path
    for path in (ROOT / "docs").rglob("*.md")
    if not {"_build", "api", "gallery"} & set(path.relative_to(ROOT / "docs").parts)
)


def _examples(path: Path) -> list[tuple[str, str]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
        lines = block.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for i, j in zip(starts, [*starts[1:], len(lines)], strict=True):
            out.append((lines[i][2:], "\n".join(lines[i + 1 : j]).rstrip()))
    return out


EXAMPLES = [example for path in [README, *DOC_PAGES] for example in _examples(path)]


def test_the_readme_has_console_examples():
    assert len(_examples(README)) >= 2
    assert len(EXAMPLES) >= 15


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
