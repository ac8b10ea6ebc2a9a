"""Shared checks of the real-data fixtures (tests/fixtures/) and benchmarks/real_data.py."""

from __future__ import annotations

from types import ModuleType

import numpy as np
from _script_modules import load_benchmark


def real_data_module() -> ModuleType:
    """benchmarks/real_data.py, imported as the module ``real_data``."""
    return load_benchmark("real_data")


def check_confusion(frame, confusion: dict[str, tuple[int, int, int, int]]) -> None:
    """Each judge's (tp, fn, tn, fp) against the gold column ("1" positive), as typed in."""
    gold = frame["gold"] == "1"
    for judge, (tp, fn, tn, fp) in confusion.items():
        judged = frame[judge] == "1"
        assert (gold & judged).sum() == tp
        assert (gold & ~judged).sum() == fn
        assert (~gold & ~judged).sum() == tn
        assert (~gold & judged).sum() == fp


def check_loaded_rates(
    judges: dict, module: ModuleType, confusion: dict, rates: dict, n_items: int, n_positive: int
) -> None:
    """The loader's arrays against the README's counts, and its q0, q1, J to three decimals."""
    assert sorted(judges) == sorted(rates)
    for judge, (z, z_hat) in judges.items():
        assert z.shape == z_hat.shape == (n_items,)
        assert int(z.sum()) == n_positive
        tp, fn, tn, fp = confusion[judge]
        assert int(z_hat.sum()) == tp + fp
        summary = module.judge_summary(z, z_hat)
        q0, q1, j = rates[judge]
        assert np.round([summary["q0"], summary["q1"], summary["J"]], 3).tolist() == [q0, q1, j]
