"""Two notices of the dependencies, silenced where judgestats triggers them (never globally).

- ArviZ (0.2x) warns ``FutureWarning: ArviZ is undergoing a major refactor ...`` once a day, on
  its first import of the day (PyMC imports it too): a notice about ArviZ 1.0, nothing about the
  user's data or ours.
- PyTensor warns ``UserWarning: PyTensor could not link to a BLAS installation ...`` the first
  time a process compiles a model (every NUTS fit): judgestats's models are a handful of scalars,
  so BLAS does not matter to their speed.

:func:`quiet_import` imports pymc or arviz, and :func:`quiet_dependencies` (a context manager and
decorator) wraps the compilation, with a filter for exactly these two messages and categories,
inside :func:`warnings.catch_warnings`: every other warning, ours and theirs, still shows, and
the caller's filters are restored on exit.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = ["ARVIZ_REFACTOR", "PYTENSOR_BLAS", "quiet_dependencies", "quiet_import"]

#: The start of ArviZ's daily refactor notice (its message begins with a newline).
ARVIZ_REFACTOR = r"\s*ArviZ is undergoing a major refactor"
#: The start of PyTensor's notice that it found no BLAS library.
PYTENSOR_BLAS = r"PyTensor could not link to a BLAS installation"


@contextmanager
def quiet_dependencies() -> Iterator[None]:
    """Silence the two notices above (and nothing else) inside the block or decorated call."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=ARVIZ_REFACTOR, category=FutureWarning)
        warnings.filterwarnings("ignore", message=PYTENSOR_BLAS, category=UserWarning)
        yield


def quiet_import(name: str) -> ModuleType:
    """``import name`` (``"pymc"`` or ``"arviz"``) without ArviZ's refactor notice."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    with quiet_dependencies():
        return importlib.import_module(name)
