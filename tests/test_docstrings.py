"""Every ``>>>`` example in the package's docstrings runs and prints what it shows.

The examples are the first code a reader copies; a stale one is a wrong statement about the API.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import judgestats

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(judgestats.__path__, "judgestats.")
    if not info.name.endswith("__main__")
)


def test_modules_found():
    assert {"judgestats.frequentist", "judgestats.planning.allocation", "judgestats.data"} <= set(
        MODULES
    )


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example may show a flagged result
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
        )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
