"""The package's module structure, checked by static analysis (``ast``), without importing it.

Three rules (DESIGN.md "Layers and layout", CONVENTIONS.md "private names stay private to their
subpackage"):

1. No import cycles between judgestats modules. Every import counts (module level, inside functions,
   relative, ``importlib.import_module("judgestats.x")``) except those under ``if TYPE_CHECKING:``,
   which never run. ``judgestats/__init__.py``, the ``cli`` package (every module in it) and
   ``__main__.py`` sit on top and may import anything; any other module that imports the top-level
   package (``from judgestats import __version__``) closes a cycle through the top. Cycles among
   the ``cli`` package's own modules still count. Importing ``a.b.c`` runs ``a/__init__.py`` and
   ``a/b/__init__.py`` first, so an import of a module is also an edge to every package that
   encloses it, except the packages that enclose the importer too (they have been imported before
   the importer runs); a subpackage whose ``__init__`` re-exports a module that imports back into
   the subpackage is a cycle.
2. A private name (``_x``, not a dunder) crosses no package boundary: it may be imported only from
   a module of the same subpackage. Top-level private modules (``judgestats._validate``, ...) are
   shared utilities whose public names anyone may import; a private module inside a subpackage
   (``judgestats.io._items``) serves that subpackage only.
3. Every literal ``__all__`` lists names that the module defines or imports at module level, and no
   private ones.

The import scanner lives in scripts/import_graph.py (scripts/architecture_table.py draws
ARCHITECTURE.md's floors table with it). The scanners take the package directory as an argument, so
the self-tests at the end run them on small synthetic trees built in ``tmp_path``.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from import_graph import (  # noqa: E402  (the scanner, shared with scripts/architecture_table.py)
    collect_imports,
    import_graph,
    is_private,
    is_type_checking,
    is_within,
    module_files,
    package_names,
    parent_module,
    resolve_ref,
    strongly_connected_components,
)

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "src" / "judgestats"


# --------------------------------------------------------------------------------------------
# The three rules (the scanner: scripts/import_graph.py)
# --------------------------------------------------------------------------------------------


def _cycle_violations(pkg_dir: Path) -> list[str]:
    """Return one message per import cycle and per import of the top-level package.

    The top package and ``__main__`` are not sources. The modules of the ``cli`` package may
    import the top package (nothing below imports them, so that closes no cycle), but a cycle
    among them still counts. An import of the top package from any other module is a violation
    on its own (it is a cycle through the top); the cycles are the strongly connected components
    with more than one module, listed with their edges.
    """
    top = pkg_dir.name
    exempt = {top, f"{top}.__main__"}
    graph = {src: dict(edges) for src, edges in import_graph(pkg_dir).items() if src not in exempt}
    for src in graph:
        if is_within(src, f"{top}.cli"):
            graph[src].pop(top, None)
    messages = []
    for src in sorted(graph):
        if top in graph[src]:
            line = graph[src].pop(top)
            messages.append(f"{src} -> {top} (line {line}): imports the top-level package")
    for component in strongly_connected_components(graph):
        if len(component) < 2:
            continue
        members = set(component)
        edges = [
            f"    {src} -> {dst} (line {line})"
            for src in component
            for dst, line in sorted(graph.get(src, {}).items())
            if dst in members
        ]
        messages.append("cycle: " + " <-> ".join(component) + "\n" + "\n".join(edges))
    return messages


def _private_import_violations(pkg_dir: Path) -> list[str]:
    """Return ``"importer -> module.name (line N)"`` for each private name crossing a boundary.

    A private name from a module is allowed only inside the subpackage that owns that module (the
    module itself if it is a package, else its parent), never when that owner is the top package.
    A private module is allowed anywhere if it sits directly in the top package, otherwise only
    inside the package that contains it. TYPE_CHECKING imports and reads through a module alias
    (``alias._name``) count too.
    """
    top = pkg_dir.name
    modules = module_files(pkg_dir)
    packages = package_names(modules)
    found: set[tuple[str, int, str]] = set()
    for importer, refs in collect_imports(pkg_dir).items():
        for ref in refs:
            target, is_module = resolve_ref(ref, modules)
            module_path = target if is_module and target else ref.module
            item = None if is_module or ref.name == "*" else ref.name
            shown = f"{module_path}.{item}" if item else module_path
            parts = module_path.split(".")
            for i in range(1, len(parts)):
                container = ".".join(parts[:i])
                if is_private(parts[i]) and container != top and not is_within(importer, container):
                    found.add((importer, ref.lineno, shown))
            if item and is_private(item) and module_path != importer:
                owner = module_path if module_path in packages else parent_module(module_path)
                if owner == top or not is_within(importer, owner):
                    found.add((importer, ref.lineno, shown))
    return [f"{imp} -> {shown} (line {line})" for imp, line, shown in sorted(found)]


def _module_level_names(body: list[ast.stmt]) -> set[str]:
    """Return the names a module binds at run time at module level.

    Looks into ``if`` (not a ``TYPE_CHECKING`` body), ``try``, ``with``, ``for`` and ``while``
    blocks, never into functions or classes; an annotation without a value binds nothing.
    """
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            if isinstance(node, ast.AnnAssign) and node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(
                    n.id
                    for n in ast.walk(target)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                )
        if isinstance(node, ast.If):
            if not is_type_checking(node.test):
                names |= _module_level_names(node.body)
            names |= _module_level_names(node.orelse)
        elif isinstance(node, ast.Try | ast.TryStar):
            for block in (node.body, node.orelse, node.finalbody):
                names |= _module_level_names(block)
            for handler in node.handlers:
                names |= _module_level_names(handler.body)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    names.update(
                        n.id for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name)
                    )
            names |= _module_level_names(node.body)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
            names |= _module_level_names(node.body) | _module_level_names(node.orelse)
    return names


def _lazy_names(body: list[ast.stmt]) -> set[str]:
    """Return the names a module-level ``__getattr__`` provides on first use.

    They are the string keys of module-level dict literals that ``__getattr__`` reads
    (``_LAZY = {"read_inspect": "judgestats.io.inspect_ai"}``, ``_LAZY[name]``).
    """
    getattr_defs = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"]
    if not getattr_defs:
        return set()
    used = {n.id for n in ast.walk(getattr_defs[0]) if isinstance(n, ast.Name)}
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if targets & used:
                names.update(
                    k.value
                    for k in node.value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                )
    return names


def _declared_all(body: list[ast.stmt]) -> tuple[list[str] | None, int, bool]:
    """Return ``(names, line, literal)`` for the module's ``__all__``; names is None if absent.

    ``__all__ = [...]``, ``__all__: list[str] = [...]`` and ``__all__ += [...]`` are read;
    ``literal`` is False if any of them is not a list or tuple of string constants.
    """
    names: list[str] | None = None
    line, literal = 0, True
    for node in body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        value = node.value
        items = value.elts if isinstance(value, ast.List | ast.Tuple) else None
        if items is None or not all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items
        ):
            literal = False
            items = []
        strings = [e.value for e in items]  # type: ignore[attr-defined]
        names = [*(names or []), *strings] if isinstance(node, ast.AugAssign) else strings
        line = line or node.lineno
    return names, line, literal


def _all_violations(pkg_dir: Path) -> list[str]:
    """Return one message per bad entry of a module's ``__all__``.

    An entry must be bound at module level, provided by a lazy ``__getattr__`` or (in a package)
    be a submodule, must not be private, and must appear once; ``__all__`` must be a literal.
    """
    modules = module_files(pkg_dir)
    messages = []
    for name, path in modules.items():
        body = ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body
        declared, line, literal = _declared_all(body)
        if declared is None:
            continue
        if not literal:
            messages.append(f"{name}: __all__ (line {line}) is not a literal list of strings")
        defined = _module_level_names(body) | _lazy_names(body)
        if path.name == "__init__.py":
            defined |= {m.rpartition(".")[2] for m in modules if parent_module(m) == name}
        for entry in sorted(set(declared)):
            if is_private(entry):
                messages.append(f"{name}: __all__ (line {line}) lists private {entry!r}")
            if entry not in defined:
                messages.append(f"{name}: __all__ (line {line}) lists undefined {entry!r}")
            if declared.count(entry) > 1:
                messages.append(f"{name}: __all__ (line {line}) lists {entry!r} twice")
    return messages


# --------------------------------------------------------------------------------------------
# The package's own tree
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_scanner_sees_the_package():
    """Guard against the real-tree tests passing on an empty or misread tree."""
    modules = module_files(PACKAGE_DIR)
    assert {
        "judgestats",
        "judgestats.frequentist",
        "judgestats.cli",
        "judgestats.bayes.model",
    } <= set(modules)
    graph = import_graph(PACKAGE_DIR)
    assert "judgestats.data" in graph["judgestats"]  # `from judgestats.data import JudgeData`
    assert sum(len(edges) for edges in graph.values()) > 50


@pytest.mark.slow
def test_no_import_cycles():
    violations = _cycle_violations(PACKAGE_DIR)
    assert not violations, (
        "judgestats modules must import only from layers below them (DESIGN.md); "
        f"{len(violations)} problem(s):\n" + "\n".join(violations)
    )


@pytest.mark.slow
def test_no_private_imports_across_packages():
    violations = _private_import_violations(PACKAGE_DIR)
    assert not violations, (
        "a private name or private module is used outside its subpackage; make it public in its "
        f"owner or move the caller ({len(violations)} violation(s)):\n  " + "\n  ".join(violations)
    )


def test_submodule_all_lists_exist():
    violations = _all_violations(PACKAGE_DIR)
    assert not violations, f"bad __all__ entries ({len(violations)}):\n  " + "\n  ".join(violations)


# --------------------------------------------------------------------------------------------
# Self-tests of the checker on synthetic trees
# --------------------------------------------------------------------------------------------


def _write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``{relative path: source}`` under ``root/pkg`` and return the package directory."""
    pkg_dir = root / "pkg"
    for rel, source in files.items():
        path = pkg_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return pkg_dir


def test_tarjan_finds_components_of_a_hand_built_graph():
    graph = {
        "a": {"b": 1},
        "b": {"c": 1},
        "c": {"a": 1, "d": 1},
        "d": {"e": 1},
        "e": {"d": 1},
        "f": {"a": 1},
    }
    components = sorted(strongly_connected_components(graph))
    assert components == [["a", "b", "c"], ["d", "e"], ["f"]]


def test_module_level_cycle_is_found(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "from pkg.a import f\n",
            "a.py": "from pkg.b import g\ndef f(): return g()\n",
            "b.py": "import pkg.c as c\ndef g(): return 1\n",
            "c.py": "from pkg import a\n",  # resolves to the module pkg.a
            "d.py": "from pkg.a import f\n",  # outside the cycle
        },
    )
    violations = _cycle_violations(pkg)
    assert len(violations) == 1
    assert violations[0].startswith("cycle: pkg.a <-> pkg.b <-> pkg.c\n")
    assert "pkg.c -> pkg.a (line 1)" in violations[0]


def test_function_level_import_cycle_is_found(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "",
            "sub/__init__.py": "",
            "sub/x.py": "def f():\n    from ..y import g\n    return g()\n",  # relative
            "y.py": "from pkg.sub.x import f\ndef g(): return 2\n",
        },
    )
    assert import_graph(pkg)["pkg.sub.x"] == {"pkg.y": 2}
    violations = _cycle_violations(pkg)
    assert [v.splitlines()[0] for v in violations] == ["cycle: pkg.sub.x <-> pkg.y"]


def test_type_checking_import_is_not_a_cycle(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import B\n",
            "b.py": """\
                import typing
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from pkg.a import A
                if typing.TYPE_CHECKING:
                    import pkg.a
                else:
                    import pkg.c
                class B: ...
            """,
            "c.py": "",
        },
    )
    assert import_graph(pkg)["pkg.b"] == {"pkg.c": 8}
    assert _cycle_violations(pkg) == []


def test_import_of_the_top_package_and_through_a_parent_init(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "from pkg.sub import helper\n__version__ = '1'\n",
            "cli.py": "from pkg import __version__\nfrom pkg.sub import _hidden\n",  # exempt
            "report.py": "def v():\n    from pkg import __version__\n    return __version__\n",
            "sub/__init__.py": "from pkg.sub.impl import helper\n",  # a re-export: fine
            "sub/impl.py": "from pkg.sub.other import x\ndef helper(): return x\n",
            "sub/other.py": "from pkg.sub import helper\nx = 1\n",  # back into its parent
        },
    )
    violations = _cycle_violations(pkg)
    assert violations[0] == "pkg.report -> pkg (line 2): imports the top-level package"
    assert violations[1].splitlines()[0] == "cycle: pkg.sub <-> pkg.sub.impl <-> pkg.sub.other"
    assert len(violations) == 2


def test_the_cli_package_may_import_the_top_package_but_not_cycle(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "from pkg.core import f\n",
            "core.py": "def f(): ...\n",
            "cli/__init__.py": "from pkg import f\nfrom pkg.cli.commands import run\n",
            "cli/commands/__init__.py": "from pkg.cli.commands.one import run\n",
            "cli/commands/one.py": "import pkg\nfrom pkg.cli.shared import x\ndef run(): ...\n",
            "cli/shared.py": "from pkg.cli.helpers import y\nx = 1\n",
            "cli/helpers.py": "from pkg.cli.shared import x\ny = 2\n",  # a cycle inside cli
        },
    )
    violations = _cycle_violations(pkg)
    assert len(violations) == 1
    assert violations[0].splitlines()[0] == "cycle: pkg.cli.helpers <-> pkg.cli.shared"


def test_private_imports_across_packages_are_found(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "",
            "_shared.py": "def util(): ...\ndef _secret(): ...\n",
            "top.py": "def _helper(): ...\n",
            "plan/__init__.py": "",
            "plan/_inputs.py": "def _check(): ...\ndef check(): ...\n",
            "plan/alloc.py": """\
                from pkg.plan._inputs import _check, check  # same subpackage: fine
                from pkg._shared import util  # a top-level private module: fine
                def _scalar(): ...
            """,
            "plan/deep/__init__.py": "from pkg.plan import _inputs\n",  # deeper: fine
            "paper.py": """\
                from pkg.plan.alloc import (
                    _scalar as s,
                )
                from pkg.plan._inputs import check
                from pkg import top
                from pkg._shared import _secret
                import pkg.plan.alloc as alloc
                def f():
                    from pkg.top import _helper
                    return alloc._scalar, top._helper
            """,
        },
    )
    assert _private_import_violations(pkg) == [
        "pkg.paper -> pkg.plan.alloc._scalar (line 1)",
        "pkg.paper -> pkg.plan._inputs.check (line 4)",
        "pkg.paper -> pkg._shared._secret (line 6)",
        "pkg.paper -> pkg.top._helper (line 9)",
        "pkg.paper -> pkg.plan.alloc._scalar (line 10)",
        "pkg.paper -> pkg.top._helper (line 10)",
    ]


def test_all_entries_are_checked(tmp_path):
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": """\
                from typing import TYPE_CHECKING
                from pkg.a import f as g
                if TYPE_CHECKING:
                    from pkg.a import T
                try:
                    import json
                except ImportError:
                    json = None
                _LAZY = {"lazy": "pkg.a"}
                def __getattr__(name):
                    return _LAZY[name]
                __all__ = ["a", "g", "json", "lazy", "T", "_p", "missing"]
                __all__ += ["g"]
            """,
            "a.py": "def f(): ...\nT = int\n__all__ = ('f', 'T')\n",
            "b.py": "__all__ = sorted(['x'])\n",
        },
    )
    assert _all_violations(pkg) == [
        "pkg: __all__ (line 12) lists undefined 'T'",
        "pkg: __all__ (line 12) lists private '_p'",
        "pkg: __all__ (line 12) lists undefined '_p'",
        "pkg: __all__ (line 12) lists 'g' twice",
        "pkg: __all__ (line 12) lists undefined 'missing'",
        "pkg.b: __all__ (line 1) is not a literal list of strings",
    ]


def test_cycle_through_a_subpackage_init_is_found(tmp_path):
    """A subpackage re-exports an engine that imports one of the subpackage's modules back.

    ``caps/__init__.py`` imports ``engine.model``; ``engine.model`` imports ``caps.data``, which
    runs ``caps/__init__.py``: a cycle although no module imports ``pkg.caps`` by name.
    """
    pkg = _write_tree(
        tmp_path,
        {
            "__init__.py": "",
            "caps/__init__.py": "from pkg.engine.model import fit\n",
            "caps/data.py": "from pkg.caps.util import x\nclass Data: ...\n",
            "caps/util.py": "x = 1\n",
            "engine/__init__.py": "",
            "engine/model.py": "def fit():\n    from pkg.caps.data import Data\n    return Data\n",
        },
    )
    graph = import_graph(pkg)
    assert graph["pkg.engine.model"] == {"pkg.caps": 2, "pkg.caps.data": 2}
    assert graph["pkg.caps.data"] == {"pkg.caps.util": 1}  # its own package ran already
    assert graph["pkg.caps"] == {"pkg.engine": 1, "pkg.engine.model": 1}
    violations = _cycle_violations(pkg)
    assert len(violations) == 1
    assert violations[0].splitlines() == [
        "cycle: pkg.caps <-> pkg.engine.model",
        "    pkg.caps -> pkg.engine.model (line 1)",
        "    pkg.engine.model -> pkg.caps (line 2)",
    ]


@pytest.mark.parametrize("source", ["from . import b\n", "from .b import x\n", "import pkg.b\n"])
def test_import_forms_resolve_to_the_module(tmp_path, source):
    pkg = _write_tree(tmp_path, {"__init__.py": "", "a.py": source, "b.py": "x = 1\n"})
    assert import_graph(pkg)["pkg.a"] == {"pkg.b": 1}
