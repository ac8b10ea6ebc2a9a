"""Write the floors table of ARCHITECTURE.md from the package's import graph.

A module's floor is the length of the longest import chain below it (every import that runs:
module level and inside functions; not those under ``TYPE_CHECKING``), so a module imports only
from lower floors. The package's ``__init__``, ``cli`` and ``__main__`` sit on top. Modules that
import each other (a cycle, which tests/test_architecture.py forbids) share one floor. In
brackets after a module: the package modules it imports only inside functions (loaded on first
use, not when the module is imported).

The table sits between the two marker comments in ARCHITECTURE.md; everything else there is
written by hand. Run from anywhere:

    python scripts/architecture_table.py           # rewrite the table in ARCHITECTURE.md
    python scripts/architecture_table.py --check   # exit 1 if the table is out of date
    python scripts/architecture_table.py --print   # print the table only
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_graph import (  # noqa: E402
    collect_imports,
    import_graph,
    module_files,
    resolve_ref,
    strongly_connected_components,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "src" / "judgestats"
DOCUMENT = ROOT / "ARCHITECTURE.md"
BEGIN = (
    "<!-- BEGIN GENERATED floors table: python scripts/architecture_table.py "
    "(do not edit by hand) -->"
)
END = "<!-- END GENERATED floors table -->"


def display_name(module: str, top: str, packages: set[str]) -> str:
    """``judgestats.io._items`` -> ``io/_items``; a package -> ``io/__init__``."""
    parts = module.split(".")[1:] if module != top else []
    if module in packages:
        parts.append("__init__")
    return "/".join(parts)


def top_modules(top: str) -> set[str]:
    """The modules on top by rule: the package's ``__init__``, ``cli`` and ``__main__``."""
    return {top, f"{top}.cli", f"{top}.__main__"}


def floors(pkg_dir: Path) -> dict[str, int]:
    """Map every module except the top ones to its floor (longest import chain below it).

    Modules in one cycle are condensed into one node and share its floor; imports of the top
    modules are left out (they close a cycle through the top, which the tests report).
    """
    top = pkg_dir.name
    on_top = top_modules(top)
    graph = {
        src: {dst for dst in edges if dst not in on_top}
        for src, edges in import_graph(pkg_dir).items()
        if src not in on_top
    }
    component_of: dict[str, int] = {}
    components = strongly_connected_components({src: dict.fromkeys(d) for src, d in graph.items()})
    for number, members in enumerate(components):
        for member in members:
            component_of[member] = number
    # Tarjan closes a component only after every component it reaches: children come first.
    height: dict[int, int] = {}
    for number, members in enumerate(components):
        below = {component_of[dst] for src in members for dst in graph.get(src, ())} - {number}
        height[number] = 1 + max((height[c] for c in below), default=-1)
    return {module: height[component_of[module]] for module in graph}


def lazy_imports(pkg_dir: Path) -> dict[str, set[str]]:
    """Map each module to the package modules it imports only inside functions."""
    modules = module_files(pkg_dir)
    result: dict[str, set[str]] = {}
    for importer, refs in collect_imports(pkg_dir).items():
        eager: set[str] = set()
        inside: set[str] = set()
        for ref in refs:
            if ref.type_checking or ref.kind != "import":
                continue
            target, _ = resolve_ref(ref, modules)
            if target is None or target == importer:
                continue
            (inside if ref.in_function else eager).add(target)
        result[importer] = inside - eager
    return result


def table(pkg_dir: Path = PACKAGE_DIR) -> str:
    """The floors table (Markdown), one row per floor and a last row for the top modules."""
    top = pkg_dir.name
    modules = module_files(pkg_dir)
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    lazy = lazy_imports(pkg_dir)

    def cell(names: list[str]) -> str:
        entries = []
        for name in sorted(names, key=lambda m: display_name(m, top, packages)):
            entry = f"`{display_name(name, top, packages)}`"
            inside = sorted(display_name(m, top, packages) for m in lazy.get(name, ()))
            if inside:
                entry += " [" + ", ".join(f"`{m}`" for m in inside) + "]"
            entries.append(entry)
        return ", ".join(entries)

    by_floor: dict[int, list[str]] = {}
    for module, floor in floors(pkg_dir).items():
        by_floor.setdefault(floor, []).append(module)
    rows = ["| floor | modules (`src/judgestats/`) |", "|---|---|"]
    rows += [f"| {floor} | {cell(by_floor[floor])} |" for floor in sorted(by_floor)]
    rows.append(f"| top | {cell([m for m in top_modules(top) if m in modules])} |")
    return "\n".join(rows) + "\n"


def replace_block(document: str, generated: str) -> str:
    """``document`` with the text between the markers replaced by ``generated``."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"ARCHITECTURE.md must hold the markers {BEGIN!r} and {END!r}, in order")
    return document[: start + len(BEGIN)] + "\n" + generated + document[end:]


def main(argv: list[str] | None = None) -> int:
    """Rewrite, check or print the table; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if the table is out of date")
    mode.add_argument("--print", action="store_true", help="print the table, change nothing")
    args = parser.parse_args(argv)
    generated = table()
    if args.print:
        sys.stdout.write(generated)
        return 0
    current = DOCUMENT.read_text(encoding="utf-8")
    updated = replace_block(current, generated)
    if args.check:
        if updated != current:
            print(
                "ARCHITECTURE.md's floors table is out of date; regenerate it with "
                "`python scripts/architecture_table.py`",
                file=sys.stderr,
            )
            return 1
        return 0
    if updated != current:
        DOCUMENT.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
