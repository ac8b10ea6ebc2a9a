"""Import a Python file by its path as a module (tests/ is not a package; benchmarks/ holds
scripts), for tests of its functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_file(path: Path, module_name: str) -> ModuleType:
    """The file ``path`` imported once as the module ``module_name`` (kept in ``sys.modules``,
    where dataclasses look their module up while it executes, and where a second call finds
    it)."""
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    return sys.modules[module_name]


def load_benchmark(name: str, as_name: str | None = None) -> ModuleType:
    """``benchmarks/<name>.py`` imported as the module ``as_name`` (default ``name``).

    benchmarks/ goes on ``sys.path`` first: the scripts import their helper modules (``_env``,
    ``_random_grid``, ...) and each other by name.
    """
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return load_file(BENCHMARKS / f"{name}.py", as_name or name)
