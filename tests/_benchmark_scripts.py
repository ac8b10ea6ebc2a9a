"""Import a script of benchmarks/ as a module, for tests of its functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str, as_name: str | None = None) -> ModuleType:
    """``benchmarks/<name>.py`` imported as the module ``as_name`` (default ``name``).

    benchmarks/ goes on ``sys.path`` first, as the scripts import their helper modules
    (``_env``, ``_random_grid``, ...) by name; the module is registered in ``sys.modules`` unless
    one of that name is there already.
    """
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    module_name = as_name or name
    spec = importlib.util.spec_from_file_location(module_name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(module_name, module)
    spec.loader.exec_module(module)
    return module
