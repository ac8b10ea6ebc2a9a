"""The NQ301 real-data fixture (ehsk/OpenQA-eval) and its loader in benchmarks/real_data.py.

The expected counts are typed in from tests/fixtures/nq301/README.md (tallied from the source
TSV files when the fixture was made); the fixture is read here with pandas, independently of the
benchmark's loader, whose arrays are then compared with the same counts.
"""

from pathlib import Path

import pandas as pd
import pytest
from _real_fixtures import check_confusion, check_loaded_rates, real_data_module

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "nq301" / "nq301_verdicts.csv"

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
    check_confusion(frame, CONFUSION)


def test_real_data_loads_the_dataset_with_the_readme_rates():
    module = real_data_module()
    assert "nq301" in module.DATASETS
    judges = module.load_dataset("nq301")
    check_loaded_rates(judges, module, CONFUSION, RATES, N_ITEMS, N_POSITIVE)
