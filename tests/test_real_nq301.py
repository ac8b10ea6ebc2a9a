"""The NQ301 real-data fixture (ehsk/OpenQA-eval) and its loader in benchmarks/real_data.py.

The expected counts are typed in from tests/fixtures/nq301/README.md (tallied from the source
TSV files when the fixture was made); the fixture is read here with pandas, independently of the
benchmark's loader, whose arrays are then compared with the same counts.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "nq301" / "nq301_verdicts.csv"
SCRIPT = ROOT / "benchmarks" / "real_data.py"

N_ITEMS, N_QUESTIONS, N_POSITIVE = 1490, 301, 816
# evaluator -> (TP, FN, TN, FP), the README's table
CONFUSION = {
    "gpt-4": (679, 137, 585, 89),
    "text-davinci-003": (667, 149, 581, 93),
    "BEM": (599, 217, 602, 72),
}
# evaluator -> (q0, q1, J), the README's table (three decimals)
RATES = {
    "gpt-4": (0.868, 0.832, 0.700),
    "text-davinci-003": (0.862, 0.817, 0.679),
    "BEM": (0.893, 0.734, 0.627),
}


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.read_csv(FIXTURE, dtype=str, keep_default_na=False)


def test_fixture_is_small_with_the_readme_counts(frame):
    assert FIXTURE.stat().st_size < 50_000
    assert list(frame.columns) == ["item", "question_id", "gold", *CONFUSION]
    assert len(frame) == N_ITEMS
    assert frame["item"].tolist() == [str(i) for i in range(1, N_ITEMS + 1)]
    assert frame["question_id"].nunique() == N_QUESTIONS
    assert (frame["gold"] == "1").sum() == N_POSITIVE
    assert set(frame["gold"]) == {"0", "1"}
    assert (frame["gpt-4"] == "").sum() == 2
    assert set(frame["text-davinci-003"]) == set(frame["BEM"]) == {"0", "1"}


def test_confusion_counts_match_the_readme(frame):
    gold = frame["gold"] == "1"
    for judge, (tp, fn, tn, fp) in CONFUSION.items():
        judged = frame[judge] == "1"
        assert (gold & judged).sum() == tp
        assert (gold & ~judged).sum() == fn
        assert (~gold & ~judged).sum() == tn
        assert (~gold & judged).sum() == fp


def test_real_data_loads_the_dataset_with_the_readme_rates():
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("real_data", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("real_data", module)
    spec.loader.exec_module(module)
    assert "nq301" in module.DATASETS
    judges = module.load_dataset("nq301")
    assert sorted(judges) == sorted(RATES)
    for judge, (z, z_hat) in judges.items():
        assert z.shape == z_hat.shape == (N_ITEMS,)
        assert int(z.sum()) == N_POSITIVE
        tp, fn, tn, fp = CONFUSION[judge]
        assert int(z_hat.sum()) == tp + fp
        summary = module.judge_summary(z, z_hat)
        q0, q1, j = RATES[judge]
        assert np.round([summary["q0"], summary["q1"], summary["J"]], 3).tolist() == [q0, q1, j]
