"""The static import graph of ``src/judgestats`` (``ast`` only; nothing is imported).

Shared by ``scripts/architecture_table.py`` (the floors table of ARCHITECTURE.md) and
``tests/test_architecture.py`` (no cycles, no private names across packages). What counts as an
import: every import statement at any depth (module level, inside functions, relative) and
``importlib.import_module("judgestats.x")`` calls, except those under ``if TYPE_CHECKING:``,
which never run. Every function takes the package directory, so the tests can run them on small
synthetic trees.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ImportCollector",
    "ImportRef",
    "collect_imports",
    "dotted_name",
    "import_graph",
    "is_private",
    "is_type_checking",
    "is_within",
    "module_files",
    "package_names",
    "parent_module",
    "resolve_ref",
    "strongly_connected_components",
]


@dataclass(frozen=True)
class ImportRef:
    """One reference from a module to another module of the package.

    ``module`` is the absolute dotted module named in the source (relative imports resolved);
    ``name`` is the name taken from it (``from module import name``, or the attribute in
    ``alias.name`` for ``kind == "attr"``), None for ``import module``. ``kind`` is ``"import"``
    for an import statement or ``importlib.import_module`` call, ``"attr"`` for an attribute read
    through a name bound to an imported package module. ``in_function`` says whether the
    reference sits inside a function (it runs when the function is called, not on import).
    """

    module: str
    name: str | None
    lineno: int
    type_checking: bool
    kind: str = "import"
    in_function: bool = False


def is_private(name: str) -> bool:
    """Return whether ``name`` is private: a leading underscore, and not a ``__dunder__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_within(module: str, package: str) -> bool:
    """Return whether ``module`` is ``package`` itself or lies anywhere below it."""
    return module == package or module.startswith(package + ".")


def parent_module(module: str) -> str:
    """Return the dotted parent of ``module`` (``"a.b.c"`` -> ``"a.b"``)."""
    return module.rpartition(".")[0]


def module_files(pkg_dir: Path) -> dict[str, Path]:
    """Map every module's dotted name to its file; a package's name maps to its ``__init__.py``.

    Only directories reachable through ``__init__.py`` files are packages (so stray folders such
    as ``__pycache__`` or data directories are skipped).
    """
    top = pkg_dir.name
    modules: dict[str, Path] = {}
    for path in sorted(pkg_dir.rglob("*.py")):
        rel = path.relative_to(pkg_dir)
        folders = rel.parts[:-1]
        if any(
            not (pkg_dir.joinpath(*folders[: i + 1]) / "__init__.py").is_file()
            for i in range(len(folders))
        ):
            continue
        parts = [top, *folders]
        if path.name != "__init__.py":
            parts.append(path.stem)
        modules[".".join(parts)] = path
    return modules


def package_names(modules: dict[str, Path]) -> set[str]:
    """Return the names of the modules that are packages (defined by an ``__init__.py``)."""
    return {name for name, path in modules.items() if path.name == "__init__.py"}


def is_type_checking(test: ast.expr) -> bool:
    """Return whether an ``if`` test is ``TYPE_CHECKING`` or ``<module>.TYPE_CHECKING``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def dotted_name(node: ast.expr) -> list[str] | None:
    """Return ``["a", "b", "c"]`` for the expression ``a.b.c``; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


class ImportCollector(ast.NodeVisitor):
    """Collect the :class:`ImportRef` of one module, at any depth, marking TYPE_CHECKING ones.

    ``if TYPE_CHECKING:`` marks its body (its ``else`` runs, so it is not marked) and
    ``if not TYPE_CHECKING:`` marks its ``else``. Names bound to package modules by imports are
    remembered (module-wide, ignoring scopes) so that ``alias._name`` reads can be reported;
    names bound to functions or classes are not (``Point._make`` is a namedtuple's public API).
    """

    def __init__(self, top: str, modname: str, is_package: bool, modules: set[str]) -> None:
        self.top = top
        self.modules = modules
        self.modname = modname
        self.is_package = is_package
        self.refs: list[ImportRef] = []
        self.bindings: dict[str, str] = {}
        self._type_checking = False
        self._in_function = False

    def _add(self, module: str, name: str | None, lineno: int, kind: str = "import") -> None:
        if is_within(module, self.top):
            self.refs.append(
                ImportRef(module, name, lineno, self._type_checking, kind, self._in_function)
            )

    def _visit_marked(self, nodes: list[ast.stmt], marked: bool) -> None:
        saved = self._type_checking
        self._type_checking = saved or marked
        for node in nodes:
            self.visit(node)
        self._type_checking = saved

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Visit a function's body, marking what it holds as run inside a function."""
        saved = self._in_function
        self._in_function = True
        self.generic_visit(node)
        self._in_function = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        """Visit both branches, marking those that run only under type checking."""
        self.visit(node.test)
        negated = isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
        if is_type_checking(node.test):
            self._visit_marked(node.body, True)
            self._visit_marked(node.orelse, False)
        elif negated and is_type_checking(node.test.operand):  # type: ignore[attr-defined]
            self._visit_marked(node.body, False)
            self._visit_marked(node.orelse, True)
        else:
            self._visit_marked(node.body, False)
            self._visit_marked(node.orelse, False)

    def visit_Import(self, node: ast.Import) -> None:
        """Record ``import a.b`` (and remember names bound to package modules)."""
        for alias in node.names:
            self._add(alias.name, None, node.lineno)
            bound = alias.name if alias.asname else alias.name.split(".")[0]
            if bound in self.modules:
                self.bindings[alias.asname or bound] = bound

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        """Record ``from a import b`` (relative imports resolved)."""
        if node.level:
            parts = self.modname.split(".")
            if not self.is_package:
                parts = parts[:-1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        else:
            base = node.module or ""
        for alias in node.names:
            self._add(base, alias.name, node.lineno)
            if f"{base}.{alias.name}" in self.modules:
                self.bindings[alias.asname or alias.name] = f"{base}.{alias.name}"

    def visit_Call(self, node: ast.Call) -> None:
        """Record ``importlib.import_module("pkg.x")`` with a literal absolute name."""
        func = dotted_name(node.func)
        if (
            func is not None
            and func[-1] == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and not node.args[0].value.startswith(".")
        ):
            self._add(node.args[0].value, None, node.lineno)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """Record ``alias.name`` reads through a name bound to a package module."""
        chain = dotted_name(node)
        if chain is None or chain[0] not in self.bindings:
            self.generic_visit(node)
            return
        parts = [*self.bindings[chain[0]].split("."), *chain[1:]]
        depth = max(i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.modules)
        name = parts[depth] if depth < len(parts) else None
        self._add(".".join(parts[:depth]), name, node.lineno, kind="attr")


def collect_imports(pkg_dir: Path) -> dict[str, list[ImportRef]]:
    """Parse every module of the package and return its references to package modules."""
    modules = module_files(pkg_dir)
    packages = package_names(modules)
    refs: dict[str, list[ImportRef]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        collector = ImportCollector(pkg_dir.name, name, name in packages, set(modules))
        collector.visit(tree)
        refs[name] = collector.refs
    return refs


def resolve_ref(ref: ImportRef, modules: dict[str, Path]) -> tuple[str | None, bool]:
    """Return the module a reference lands on, and whether the imported name is that module.

    ``from a.b import c`` lands on ``a.b.c`` when that is a module (the name *is* the module),
    else on ``a.b``; a module that does not exist falls back to its nearest existing ancestor
    (importing it would run that ancestor). None if not even the top package is a module.
    """
    if ref.name and ref.name != "*" and f"{ref.module}.{ref.name}" in modules:
        return f"{ref.module}.{ref.name}", True
    module = ref.module
    while module and module not in modules:
        module = parent_module(module)
    return (module or None), False


def enclosing_packages(module: str, importer: str, packages: set[str]) -> list[str]:
    """Return the packages whose ``__init__`` importing ``module`` runs from ``importer``.

    Every package that encloses ``module`` (``a`` and ``a.b`` for ``a.b.c``), except those that
    enclose ``importer`` as well: they were imported before ``importer`` started to run.
    """
    parts = module.split(".")
    ancestors = [".".join(parts[:i]) for i in range(1, len(parts))]
    return [p for p in ancestors if p in packages and not is_within(importer, p)]


def import_graph(pkg_dir: Path) -> dict[str, dict[str, int]]:
    """Return ``{importer: {imported module: first line}}`` over the imports that run.

    Counts import statements and ``importlib.import_module`` calls at any depth; drops imports
    under ``TYPE_CHECKING``, attribute reads and a module's imports of itself. Importing
    ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first, so an import of a module is
    also an edge to each enclosing package whose ``__init__`` it runs
    (:func:`enclosing_packages`).
    """
    modules = module_files(pkg_dir)
    packages = package_names(modules)
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for importer, refs in collect_imports(pkg_dir).items():
        for ref in refs:
            if ref.type_checking or ref.kind != "import":
                continue
            target, _ = resolve_ref(ref, modules)
            if target is None or target == importer:
                continue
            edges = graph[importer]
            for module in [*enclosing_packages(target, importer, packages), target]:
                edges[module] = min(edges.get(module, ref.lineno), ref.lineno)
    return graph


def strongly_connected_components(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Return the strongly connected components of ``graph`` (Tarjan's algorithm, iterative).

    Each component is a sorted list; components come in the order Tarjan's algorithm closes them.
    Nodes that appear only as targets are included as singletons.
    """
    nodes = sorted(set(graph) | {t for edges in graph.values() for t in edges})
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = []
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work.append((root, sorted(graph.get(root, {}))))
        while work:
            node, successors = work[-1]
            if successors:
                succ = successors.pop()
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, sorted(graph.get(succ, {}))))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components
