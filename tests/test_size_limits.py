"""Size limits (DESIGN.md "Layers and layout"): no module over 600 lines, no function over 60.

What is counted, statically (``ast`` and ``tokenize``, nothing is imported):

- A module's size is its number of physical lines, everything included.
- A function's size is its lines of code: the lines from its ``def`` (decorators included) to its
  last line that hold code. Blank lines, comment-only lines and docstrings (of the function and
  of anything inside it) do not count; a line that continues a statement (arguments of a call
  spread over several lines, a multi-line string that is not a docstring) does. A nested
  function's (or nested class's) lines count for the nested function, not for its parent: each
  function is measured on its own lines. Methods are functions (``Class.method``).

Every module and function is within its limit; there is no allow-list.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "src" / "judgestats"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60


_NOT_CODE = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
    tokenize.ENCODING,
}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _code_lines(source: str, tree: ast.Module) -> set[int]:
    """Lines holding code: any token but comments and whitespace, docstrings left out."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, *_SCOPES)) and ast.get_docstring(node, clean=False):
            doc = node.body[0]
            lines.difference_update(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
    return lines


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])  # type: ignore[attr-defined]


def _span(node: ast.AST) -> set[int]:
    return set(range(_first_line(node), node.end_lineno + 1))  # type: ignore[attr-defined]


def _nested_scopes(node: ast.AST) -> list[ast.AST]:
    """Functions and classes directly inside ``node`` (not inside those)."""
    found: list[ast.AST] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _SCOPES):
            found.append(child)
        else:
            found.extend(_nested_scopes(child))
    return found


def function_sizes(source: str) -> dict[str, int]:
    """Map each function's dotted name (``f``, ``Class.method``, ``f.inner``) to its code lines."""
    tree = ast.parse(source)
    code = _code_lines(source, tree)
    sizes: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for scope in _nested_scopes(node):
            name = f"{prefix}{scope.name}"  # type: ignore[attr-defined]
            if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                own = _span(scope).difference(*(_span(n) for n in _nested_scopes(scope)))
                sizes[name] = len(own & code)
            visit(scope, name + ".")

    visit(tree, "")
    return sizes


def measure(package_dir: Path = PACKAGE_DIR) -> dict[str, int]:
    """Every module and function over its limit -> its size ("path" or "path:function")."""
    over: dict[str, int] = {}
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(package_dir).as_posix()
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            over[rel] = lines
        for name, size in function_sizes(source).items():
            if size > MAX_FUNCTION_LINES:
                over[f"{rel}:{name}"] = size
    return over


def test_no_module_or_function_over_its_limit():
    over = measure()
    assert not over, (
        f"over the limit ({MAX_MODULE_LINES} lines per module, {MAX_FUNCTION_LINES} lines of "
        "code per function; see this file's docstring): split them\n"
        + "\n".join(f"  {key}: {size}" for key, size in over.items())
    )


# --------------------------------------------------------------------------------------------
# The counter itself
# --------------------------------------------------------------------------------------------


def test_counts_code_lines_only():
    source = '''\
@decorator
def f(a,
      b):
    """Docstring,

    over lines.
    """
    # a comment

    x = """not a
    docstring"""
    return g(a,  # trailing comment
             b)
'''
    assert function_sizes(source) == {"f": 7}  # decorator, 2 def lines, 2 string lines, 2 return


def test_nested_functions_and_methods_are_counted_on_their_own():
    source = """\
def outer():
    a = 1
    def inner():
        '''Doc.'''
        b = 2
        return b
    class Local:
        def method(self):
            return 3
    return inner() + a

class C:
    x = 1
    def m(self):
        return self.x
"""
    assert function_sizes(source) == {
        "outer": 3,
        "outer.inner": 3,
        "outer.Local.method": 2,
        "C.m": 2,
    }


@pytest.mark.parametrize("lines", [MAX_MODULE_LINES, MAX_MODULE_LINES + 1])
def test_module_limit(tmp_path, lines):
    (tmp_path / "big.py").write_text("x = 1\n" * lines)
    assert measure(tmp_path) == ({} if lines == MAX_MODULE_LINES else {"big.py": lines})
