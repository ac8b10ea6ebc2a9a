"""Every example of the documentation pages runs as printed.

- ```python blocks: each page's blocks run in order in one namespace, and a block followed by a
  ```text block prints exactly that text (``_doc_blocks.py``);
- ```bash blocks: every line that starts with ``judgestats`` runs (as ``python -m judgestats``)
  in a folder holding the bundled example files at the paths the pages use, and exits with 0;
- ```console blocks are compared line by line by ``test_readme.py``.

Command synopses (with ``...`` or ``[options]``) are ```text blocks, which nothing runs.
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
from _doc_blocks import python_blocks, run_python_blocks

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DATASETS = ROOT / "src" / "judgestats" / "datasets"
PAGES = sorted(
    path
    for path in DOCS.rglob("*.md")
    if not {"_build", "api", "gallery"} & set(path.relative_to(DOCS).parts)
)
PYTHON_PAGES = [path for path in PAGES if python_blocks(path)]


def _bash_commands() -> list[tuple[str, str]]:
    out = []
    for path in PAGES:
        for block in re.findall(r"```bash\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            for line in block.splitlines():
                if line.startswith("judgestats "):
                    out.append((str(path.relative_to(ROOT)), line.split("  #")[0].strip()))
    return out


BASH = _bash_commands()


def test_the_docs_have_examples():
    assert len(PYTHON_PAGES) >= 10
    assert len(BASH) >= 5
    skipped = [m for path in PAGES for m in python_blocks(path) if m.group("skip")]
    assert len(skipped) <= 2  # only what needs outside services (a Dask cluster)


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=[p.stem for p in PYTHON_PAGES])
def test_page_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    ran, _ = run_python_blocks(page)
    assert ran >= 1


@pytest.mark.parametrize(("page", "command"), BASH, ids=[c[:60] for _, c in BASH])
def test_page_bash_command_runs(page, command, tmp_path):
    assert "..." not in command and "[" not in command, f"{page}: a synopsis belongs in ```text"
    shutil.copytree(
        DATASETS,
        tmp_path / "src" / "judgestats" / "datasets",
        ignore=shutil.ignore_patterns("*.py", "__pycache__"),
    )
    env = {**os.environ, "COLUMNS": "100", "MPLBACKEND": "Agg"}
    env.pop("CI", None)
    run = subprocess.run(
        [sys.executable, "-m", "judgestats", *shlex.split(command)[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, f"{page}: {command}\n{run.stderr}"
