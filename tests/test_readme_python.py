"""The README's Python examples of the K-class and stratified sections print what it shows.

Each listed section's ```python blocks run in order in one namespace (a later block may use an
earlier one's names); a block followed by a ```text block must print exactly that text. The
console examples are checked by ``test_readme.py``.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

#: Sections whose Python examples print their results (heading prefixes).
SECTIONS = (
    "## Judges with more than two verdicts",
    "## A judge whose quality depends on the task",
)


def _section(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    parts = [part for part in re.split(r"\n(?=## )", text) if part.startswith(heading)]
    assert len(parts) == 1, f"README has {len(parts)} sections starting {heading!r}"
    return parts[0]


@pytest.mark.parametrize("heading", SECTIONS)
def test_section_examples_print_what_the_readme_shows(heading, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    namespace: dict = {}
    blocks = list(
        re.finditer(r"```python\n(.*?)```\n*(?:```text\n(.*?)```)?", _section(heading), re.S)
    )
    assert blocks, heading
    compared = 0
    for match in blocks:
        code, expected = match.group(1), match.group(2)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(code, f"README {heading}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue().rstrip().splitlines() == expected.rstrip().splitlines()
            compared += 1
    assert compared >= 1
