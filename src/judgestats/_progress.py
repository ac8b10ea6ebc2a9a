"""Progress bars on stderr, drawn by tqdm; tqdm is imported only when a bar is drawn.

Every long computation (coverage studies, planning with the posterior, NUTS) takes a
``progress`` argument with the same meaning, resolved by :func:`is_enabled`: ``True`` draws the
bar, ``False`` silences it, ``None`` (the default) draws it only when stderr is a terminal and the
``CI`` environment variable is unset. A bar that is off is a :class:`SilentBar`, so a silent run
never imports tqdm and ``import judgestats`` stays light.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Protocol

__all__ = ["Bar", "SilentBar", "is_enabled", "progress_bar"]


class Bar(Protocol):
    """What the computations use of a bar (a subset of tqdm's interface)."""

    disable: bool

    def update(self, n: int = 1) -> Any:
        """Advance by ``n`` units."""

    def close(self) -> None:
        """End the bar (its line stays on stderr)."""


class SilentBar:
    """The bar when progress is off: accepts tqdm's calls and draws nothing."""

    disable = True

    def update(self, n: int = 1) -> None:
        """Do nothing."""

    def close(self) -> None:
        """Do nothing."""


def is_enabled(progress: bool | None) -> bool:
    """Resolve a ``progress`` argument: None means "stderr is a terminal and ``CI`` is unset"."""
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(callable(isatty) and isatty()) and not os.environ.get("CI")
    return bool(progress)


@functools.cache
def _tqdm_class() -> Any:
    """The tqdm class, without its monitor thread (NUTS forks workers while a bar is open)."""
    from tqdm import tqdm

    class _Bar(tqdm):  # type: ignore[misc, type-arg]
        monitor_interval = 0

    return _Bar


def progress_bar(total: int | None, progress: bool | None, *, desc: str, unit: str) -> Bar:
    """Return a bar of ``total`` units on stderr, or a :class:`SilentBar` when it is off.

    ``total=None`` counts without a bar (a search of unknown length). Close the bar when done
    (``try``/``finally``); its last state stays on its own line.
    """
    if not is_enabled(progress):
        return SilentBar()
    bar: Bar = _tqdm_class()(total=total, desc=desc, unit=unit, file=sys.stderr, leave=True)
    return bar
