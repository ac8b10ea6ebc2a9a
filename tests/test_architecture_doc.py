"""ARCHITECTURE.md's floors table is the one scripts/architecture_table.py computes from the code.

After moving or splitting modules, regenerate it: ``python scripts/architecture_table.py``.
"""

from __future__ import annotations

import functools
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import architecture_table  # noqa: E402


def test_architecture_md_floors_table_is_current():
    document = architecture_table.DOCUMENT.read_text(encoding="utf-8")
    assert document.count(architecture_table.BEGIN) == 1
    assert document.count(architecture_table.END) == 1
    assert architecture_table.replace_block(document, architecture_table.table()) == document, (
        "ARCHITECTURE.md's floors table differs from the import graph; regenerate it with "
        "`python scripts/architecture_table.py`"
    )


@pytest.mark.slow
def test_check_mode_reports_a_stale_table(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "ARCHITECTURE.md"
    stale.write_text(
        f"# hand-written\n{architecture_table.BEGIN}\n| old |\n{architecture_table.END}\nmore\n"
    )
    monkeypatch.setattr(architecture_table, "DOCUMENT", stale)
    # the package does not change during the test: its table (~2 s) computed once, not four times
    monkeypatch.setattr(architecture_table, "table", functools.cache(architecture_table.table))
    assert architecture_table.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert architecture_table.main([]) == 0  # rewrites the block only
    text = stale.read_text()
    assert text.startswith("# hand-written\n") and text.endswith(
        f"{architecture_table.END}\nmore\n"
    )
    assert architecture_table.table() in text
    assert architecture_table.main(["--check"]) == 0


def test_missing_markers_are_an_error():
    with pytest.raises(ValueError, match="markers"):
        architecture_table.replace_block("no markers here\n", "| table |\n")


def _write_tree(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "pkg"
    for name, source in files.items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    return pkg


def test_floors_and_function_level_imports_on_a_small_tree(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "from pkg.top import t\n",
            "cli.py": "from pkg import top\n",
            "base.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg import top\n",
            "mid.py": "from pkg.base import x\ndef f():\n    from pkg import lazy\n",
            "lazy.py": "",
            "top.py": "from pkg.mid import f\nimport pkg.lazy\ndef g():\n    import pkg.base\n",
            "sub/__init__.py": "from .a import a\n",
            "sub/a.py": "def a():\n    from pkg.sub import b\n",  # a cycle through a function
            "sub/b.py": "from pkg.sub.a import a\n",
        },
    )
    assert architecture_table.floors(pkg) == {
        "pkg.base": 0,
        "pkg.lazy": 0,
        "pkg.mid": 1,
        "pkg.top": 2,
        "pkg.sub.a": 0,
        "pkg.sub.b": 0,  # one cycle, one floor
        "pkg.sub": 1,
    }
    rows = architecture_table.table(pkg).splitlines()
    assert rows[2] == "| 0 | `base`, `lazy`, `sub/a` [`sub/b`], `sub/b` |"
    assert rows[3] == "| 1 | `mid` [`lazy`], `sub/__init__` |"
    assert rows[4] == "| 2 | `top` [`base`] |"  # `lazy`: imported at module level too
    assert rows[5] == "| top | `__init__`, `cli` |"
