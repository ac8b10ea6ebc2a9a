"""Type aliases of the public signatures (annotations only).

Modules import these, and ``numpy.typing.ArrayLike`` (scalars, sequences, arrays and anything
with ``__array__``, e.g. a pandas Series or an xarray DataArray), under
``typing.TYPE_CHECKING``; with ``from __future__ import annotations`` nothing of it is imported by
``import judgestats``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias, TypedDict

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from judgestats.bayes.nuts import NutsCache

__all__ = ["PosteriorOptions", "SeedLike"]

#: A seed: None (fresh entropy), an int, or a Generator used as it is (never the global RNG).
SeedLike: TypeAlias = "int | np.random.Generator | None"


class PosteriorOptions(TypedDict, total=False):
    """Options that :func:`judgestats.crosscheck` and :func:`judgestats.crosscheck_items` pass on.

    The keywords of :func:`judgestats.posterior` other than those the cross-checks name
    themselves (``prior``, ``method``, ``random_seed``); see there for their meaning.
    """

    draws: int
    tune: int
    chains: int
    progressbar: bool | None
    sampler: str
    target_accept: float
    cores: int
    compiled: NutsCache | None
