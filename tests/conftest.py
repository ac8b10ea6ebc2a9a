"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def nutpie_cache():
    """One NutsCache for the nutpie fits of every module: compiling a model for nutpie (numba)
    costs ~10 s, and a warm fit gives a cold fit's draws (test_nutpie.py checks it)."""
    from judgestats.bayes.nuts import NutsCache

    return NutsCache()
