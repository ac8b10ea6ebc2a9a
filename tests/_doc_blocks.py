"""Run the ```python blocks of a Markdown page as a reader would paste them.

The blocks of one page run in order in one namespace (a later block may use an earlier one's
names); a block followed by a ```text block must print exactly that text. A block preceded by
``<!-- not run: REASON -->`` is not run (it needs something a test cannot have, such as a Dask
cluster); the reason is required.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

PYTHON_BLOCK = re.compile(
    r"(?P<skip><!-- not run: (?P<reason>[^>]*?) -->\n)?```python\n(?P<code>.*?)```\n*"
    r"(?:```text\n(?P<expected>.*?)```)?",
    re.S,
)


def python_blocks(path: Path) -> list[re.Match[str]]:
    """The page's ```python blocks (with the ```text block after each, if any)."""
    return list(PYTHON_BLOCK.finditer(path.read_text(encoding="utf-8")))


def run_python_blocks(path: Path) -> tuple[int, int]:
    """Run the page's blocks; return how many ran and how many outputs were compared."""
    namespace: dict = {"__name__": "__docs__"}
    ran = compared = 0
    for match in python_blocks(path):
        if match.group("skip"):
            assert match.group("reason").strip(), f"{path}: a skipped block needs a reason"
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(match.group("code"), str(path), "exec"), namespace)
        ran += 1
        if match.group("expected") is not None:
            got = out.getvalue().rstrip().splitlines()
            assert got == match.group("expected").rstrip().splitlines(), path
            compared += 1
    return ran, compared
