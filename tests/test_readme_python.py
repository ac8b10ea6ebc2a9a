"""The README's Python quickstart pastes and runs, and prints what the README shows.

The pages under docs/ are checked the same way by ``test_docs_examples.py``; the console examples
by ``test_readme.py``.
"""

from __future__ import annotations

from pathlib import Path

from _doc_blocks import run_python_blocks

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_examples_print_what_the_readme_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    ran, compared = run_python_blocks(README)
    assert ran >= 1 and compared >= 1
