"""Every ``>>>`` example in the package's docstrings runs and prints what it shows.

The examples are the first code a reader copies; a stale one is a wrong statement about the API.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import judgecal

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(judgecal.__path__, "judgecal.")
    if not info.name.endswith("__main__")
)


def test_modules_found():
    assert {"judgecal.frequentist", "judgecal.planning.allocation", "judgecal.data"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example may show a flagged result
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
        )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
