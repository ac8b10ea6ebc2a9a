"""judgestats.io: the items-frame contract, data frames and table files, human labels on ids."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import judgestats as jc
from judgestats.io import items_frame, join_human, map_verdicts, read_frame

SRC = "test.csv"


def as_list(values):
    return [None if v is pd.NA else int(v) for v in values]


# ---- map_verdicts -------------------------------------------------------------------------------
class TestMapVerdicts:
    def test_letter_grades_with_partner_inferred(self):
        out = map_verdicts(
            ["C", "I", " c ", None, "", float("nan")], positive="C", name="v", source=SRC
        )
        assert str(out.dtype) == "Int64"
        assert as_list(out) == [1, 0, 1, None, None, None]

    @pytest.mark.parametrize(
        ("positive", "values", "expected"),
        [
            ("PASS", ["PASS", "FAIL", "pass"], [1, 0, 1]),
            ("yes", ["no", "Yes", "no"], [0, 1, 0]),
            (True, [True, False, np.bool_(True)], [1, 0, 1]),
            ("good", ["good", "bad", "bad"], [1, 0, 0]),  # the one other value is "incorrect"
            (["A", "B"], ["A", "B", "A"], [1, 1, 1]),
        ],
    )
    def test_positive_mappings(self, positive, values, expected):
        assert as_list(map_verdicts(values, positive=positive, name="v", source=SRC)) == expected

    def test_explicit_negative(self):
        out = map_verdicts(
            ["great", "poor", "ok"], positive="great", negative=["poor", "ok"], name="v", source=SRC
        )
        assert as_list(out) == [1, 0, 0]

    def test_threshold(self):
        out = map_verdicts([0.2, 0.5, 0.49999, 1, None, "0.7"], threshold=0.5, name="s", source=SRC)
        assert as_list(out) == [0, 1, 0, 1, None, 1]

    def test_default_accepts_only_binary(self):
        assert as_list(map_verdicts([0, 1, 1.0, "true", False], name="v", source=SRC)) == [
            0,
            1,
            1,
            1,
            0,
        ]
        with pytest.raises(
            ValueError,
            match=r"test.csv: `v` has values outside the mapping: "
            r"'C' \(2 items\), 'I' \(1 item\)",
        ):
            map_verdicts(["C", "I", "C"], name="v", source=SRC)

    def test_values_outside_mapping_are_listed(self):
        with pytest.raises(ValueError, match=r"'P' \(2 items\), 'X' \(1 item\).*'c' -> 1"):
            map_verdicts(["C", "I", "P", "P", "X"], positive="C", name="v", source=SRC)

    def test_unknown_word_with_several_others(self):
        with pytest.raises(ValueError, match="outside the mapping"):
            map_verdicts(["good", "bad", "meh"], positive="good", name="v", source=SRC)

    def test_positive_and_threshold_exclude_each_other(self):
        with pytest.raises(ValueError, match="`threshold`.*exclude each other"):
            map_verdicts([0.1], positive="C", threshold=0.5, name="v", source=SRC)

    def test_threshold_needs_numbers(self):
        with pytest.raises(ValueError, match=r"numeric scores.*'high' \(1 item\)"):
            map_verdicts([0.3, "high"], threshold=0.5, name="s", source=SRC)
        with pytest.raises(ValueError, match="numeric scores"):
            map_verdicts([True], threshold=0.5, name="s", source=SRC)

    def test_overlapping_positive_negative(self):
        with pytest.raises(ValueError, match="share the value"):
            map_verdicts(["a"], positive="a", negative=["a", "b"], name="v", source=SRC)

    def test_scalar_input_is_a_type_error(self):
        with pytest.raises(TypeError, match="sequence of verdicts"):
            map_verdicts("C", positive="C", name="v", source=SRC)

    def test_input_not_mutated(self):
        series = pd.Series(["C", "I"])
        map_verdicts(series, positive="C", name="v", source=SRC)
        assert series.tolist() == ["C", "I"]


# ---- items_frame --------------------------------------------------------------------------------
class TestItemsFrame:
    def test_columns_dtypes_and_source(self):
        frame = items_frame(
            [1, 2.0, "x"], [1, 0, True], [None, 1, 0], source="s", extra={"epoch": [1, 1, 2]}
        )
        assert list(frame.columns) == ["id", "judge", "human", "epoch"]
        assert frame["id"].tolist() == ["1", "2", "x"]
        assert str(frame["judge"].dtype) == "Int64" and str(frame["human"].dtype) == "Int64"
        assert as_list(frame["human"]) == [None, 1, 0]
        assert frame.attrs["source"] == "s"

    def test_human_defaults_to_missing(self):
        assert frame_human_missing(items_frame(["a"], [1], source="s"))

    def test_errors(self):
        with pytest.raises(ValueError, match="s: no items"):
            items_frame([], [], source="s")
        with pytest.raises(ValueError, match="`judge` has 1 values for 2 ids"):
            items_frame(["a", "b"], [1], source="s")
        with pytest.raises(ValueError, match=r"`judge` has values outside.*2"):
            items_frame(["a"], [2], source="s")
        with pytest.raises(ValueError, match="`id` is missing on item 1"):
            items_frame(["a", None], [1, 0], source="s")
        with pytest.raises(ValueError, match="must not hold the column 'human'"):
            items_frame(["a"], [1], source="s", extra={"human": [1]})
        with pytest.raises(ValueError, match="'model' has 2 values for 1 ids"):
            items_frame(["a"], [1], source="s", extra={"model": ["m", "n"]})


def frame_human_missing(frame):
    return frame["human"].isna().all()


# ---- read_frame / from_frame --------------------------------------------------------------------
VERDICTS = ["C", "I", "C", "C", "I", "C", "I"]
LABELS = ["C", "I", "I", None, None, None, "C"]
# stratified by hand: unlabelled rows 3, 4, 5 -> judge 1, 0, 1: k = 2, n = 3
# labelled: human C = rows 0 (judge C), 6 (judge I) -> m1 = 2, k1 = 1
#           human I = rows 1 (judge I), 2 (judge C) -> m0 = 2, k0 = 1
EXPECTED = jc.JudgeData(k=2, n=3, k0=1, m0=2, k1=1, m1=2)


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "qid": [f"q{i}" for i in range(7)],
            "verdict": VERDICTS,
            "human_label": LABELS,
            "model": ["m"] * 7,
        }
    )


class TestReadFrame:
    def test_data_frame(self, frame):
        items = read_frame(frame, judge="verdict", human="human_label", id="qid", positive="C")
        assert items["id"].tolist() == [f"q{i}" for i in range(7)]
        assert as_list(items["judge"]) == [1, 0, 1, 1, 0, 1, 0]
        assert as_list(items["human"]) == [1, 0, 0, None, None, None, 1]
        assert items["model"].tolist() == ["m"] * 7
        assert items.attrs["source"] == "data frame"

    def test_input_not_mutated(self, frame):
        before = frame.copy()
        read_frame(frame, judge="verdict", human="human_label", positive="C")
        pd.testing.assert_frame_equal(frame, before)

    def test_ids_default_to_id_column_or_row_number(self, frame):
        items = read_frame(frame, judge="verdict", positive="C")
        assert items["id"].tolist() == [str(i) for i in range(7)]
        items = read_frame(frame.rename(columns={"qid": "id"}), judge="verdict", positive="C")
        assert items["id"].tolist()[0] == "q0"

    @pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json", ".tsv"])
    def test_files(self, frame, tmp_path, suffix):
        path = tmp_path / f"items{suffix}"
        if suffix == ".csv":
            frame.to_csv(path, index=False)
        elif suffix == ".tsv":
            frame.to_csv(path, index=False, sep="\t")
        else:
            frame.to_json(path, orient="records", lines=suffix == ".jsonl")
        items = read_frame(path, judge="verdict", human="human_label", id="qid", positive="C")
        assert items.attrs["source"] == str(path)
        assert jc.JudgeData.from_items(items) == EXPECTED

    def test_csv_ids_keep_leading_zeros(self, tmp_path):
        path = tmp_path / "items.csv"
        path.write_text("id,judge\n007,1\n010,0\n")
        assert read_frame(path, judge="judge")["id"].tolist() == ["007", "010"]

    def test_human_labels_written_as_numbers_beside_letter_verdicts(self, frame):
        numeric = frame.assign(human_label=[1, 0, 0, None, None, None, 1])
        items = read_frame(numeric, judge="verdict", human="human_label", positive="C")
        assert as_list(items["human"]) == [1, 0, 0, None, None, None, 1]

    def test_human_positive(self, frame):
        words = frame.assign(human_label=["ok", "bad", "bad", None, None, None, "ok"])
        items = read_frame(
            words, judge="verdict", human="human_label", positive="C", human_positive="ok"
        )
        assert as_list(items["human"]) == [1, 0, 0, None, None, None, 1]

    def test_threshold(self):
        scores = pd.DataFrame({"score": [0.9, 0.1, 0.5], "human": [1, 0, None]})
        items = read_frame(scores, judge="score", human="human", threshold=0.5)
        assert as_list(items["judge"]) == [1, 0, 1]

    def test_errors(self, frame, tmp_path):
        with pytest.raises(ValueError, match="data frame: no column 'verdit' \\(`judge`\\)"):
            read_frame(frame, judge="verdit")
        with pytest.raises(ValueError, match="no column 'judge' .*; the table has no columns"):
            read_frame(pd.DataFrame(), judge="judge")
        with pytest.raises(ValueError, match="'C' \\(4 items\\)"):
            read_frame(frame, judge="verdict")
        with pytest.raises(ValueError, match="no such file"):
            read_frame(tmp_path / "nope.csv", judge="j")
        with pytest.raises(ValueError, match="unknown file type '.xlsx'"):
            read_frame(tmp_path / "x.xlsx", judge="j")
        with pytest.raises(TypeError, match="DataFrame or a path"):
            read_frame([1, 2], judge="j")
        with pytest.raises(ValueError, match="no rows"):
            read_frame(frame.iloc[:0], judge="verdict", positive="C")

    def test_duplicate_and_shared_columns_are_refused(self):
        twice = pd.DataFrame([[1, 1, 0], [0, 0, None]], columns=["v", "v", "h"])
        for call in (read_frame, jc.JudgeData.from_frame):
            with pytest.raises(ValueError, match="column name 'v' occurs 2 times"):
                call(twice, judge="v", human="h")
        meta = pd.DataFrame([[1, 1, "a", "b"]], columns=["v", "h", "m", "m"])
        with pytest.raises(ValueError, match="column name 'm' occurs 2 times"):
            read_frame(meta, judge="v", human="h")
        items = items_frame([1, 2], [1, 0], [1, None], source="s", extra={"m": ["a", "b"]})
        with pytest.raises(ValueError, match="the column name 'm' occurs 2 times"):
            jc.estimate_items(pd.concat([items, items["m"]], axis=1), by="m")
        layout = pd.DataFrame([["test", 1, None, 1]], columns=["set", "judge", "human", "human"])
        with pytest.raises(ValueError, match="`frame`: the column name 'human' occurs 2 times"):
            jc.JudgeData.from_frame(layout)
        with pytest.raises(TypeError, match="`frame` must be a pandas DataFrame"):
            jc.JudgeData.from_frame(None)
        same = pd.DataFrame({"v": [1, 0, 1], "h": [1, 0, None]})
        for call in (read_frame, jc.JudgeData.from_frame):
            with pytest.raises(ValueError, match="`judge` and `human` both name the column 'v'"):
                call(same, judge="v", human="v")

    def test_truncated_json_lines(self, tmp_path):
        path = tmp_path / "items.jsonl"
        path.write_text('{"id": 1, "judge": 1}\n{"id": 2, "jud')
        with pytest.raises(ValueError, match="items.jsonl: line 2 is not valid JSON.*truncated"):
            read_frame(path, judge="judge")

    def test_not_records(self, tmp_path):
        path = tmp_path / "items.json"
        path.write_text(json.dumps({"a": 1}))
        with pytest.raises(ValueError, match="expected JSON objects, one per item"):
            read_frame(path, judge="judge")

    def test_binary_file(self, tmp_path):
        path = tmp_path / "items.csv"
        path.write_bytes(b"\xff\xfe\x00\x81\x92garbage\x00")
        with pytest.raises(ValueError, match="items.csv"):
            read_frame(path, judge="judge")

    def test_parquet(self, frame, tmp_path):
        path = tmp_path / "items.parquet"
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            path.write_bytes(b"PAR1")
            with pytest.raises(ValueError, match="needs pyarrow.*pip install pyarrow"):
                read_frame(path, judge="verdict")
            return
        frame.to_parquet(path)
        items = read_frame(path, judge="verdict", human="human_label", id="qid", positive="C")
        assert jc.JudgeData.from_items(items) == EXPECTED


class TestFromFrame:
    def test_issue_example(self, frame):
        got = jc.JudgeData.from_frame(frame, judge="verdict", human="human_label", positive="C")
        assert got == EXPECTED

    def test_random_design(self, frame):
        got = jc.JudgeData.from_frame(
            frame, judge="verdict", human="human_label", positive="C", design="random"
        )
        assert got == jc.JudgeData(k=2, n=3, k0=1, m0=2, k1=1, m1=2, design="random")

    def test_named_path_needs_judge(self, frame):
        with pytest.raises(TypeError, match="`judge`.*is required when `positive`"):
            jc.JudgeData.from_frame(frame, positive="C")

    def test_set_layout_still_works(self):
        frame = pd.DataFrame(
            {
                "set": ["test", "test", "calibration", "calibration"],
                "judge": [1, 0, 1, 0],
                "human": [None, None, 1, 0],
            }
        )
        assert jc.JudgeData.from_frame(frame) == jc.JudgeData(k=1, n=2, k0=1, m0=1, k1=1, m1=1)


# ---- from_items ---------------------------------------------------------------------------------
class TestFromItems:
    def items(self, human, judge=None, **extra):
        judge = judge if judge is not None else [1, 0, 1, 1, 0, 1]
        return items_frame(
            list("abcdef")[: len(judge)], judge, human, source="run.json", extra=extra or None
        )

    def test_stratified_hand_counts(self):
        # unlabelled a(1), b(0), f(1): k=2, n=3; c: h1 j1; d: h0 j1; e: h0 j0
        data = jc.JudgeData.from_items(self.items([None, None, 1, 0, 0, None]))
        assert data == jc.JudgeData(k=2, n=3, k0=1, m0=2, k1=1, m1=1)

    def test_random_hand_counts(self):
        data = jc.JudgeData.from_items(self.items([None, None, 1, 0, 0, None]), design="random")
        assert (data.k, data.n, data.k0, data.m0, data.k1, data.m1) == (2, 3, 1, 2, 1, 1)
        assert data.design == "random"

    def test_repeated_ids_are_refused(self):
        items = items_frame(
            ["a", "a", "b", "b"],
            [1, 0, 1, 1],
            [1, 1, None, None],
            source="run.eval",
            extra={"epoch": [1, 2, 1, 2]},
        )
        with pytest.raises(
            ValueError,
            match=r"run.eval: 2 item id\(s\) occur more than once.*"
            r"epoch.*estimate_items.*items\['epoch'\] == 1",
        ):
            jc.JudgeData.from_items(items)

    def test_no_labelled_items(self):
        with pytest.raises(ValueError, match="run.json: no item has a human label"):
            jc.JudgeData.from_items(self.items(None))

    def test_no_test_items(self):
        with pytest.raises(ValueError, match="every item has a human label, so no test items"):
            jc.JudgeData.from_items(self.items([1, 0, 1, 0, 1, 0]))
        with pytest.raises(ValueError, match="every test item has a human label"):
            jc.JudgeData.from_items(self.items([1, 0, 1, 0, 1, 0]), design="random")

    def test_missing_verdict(self):
        items = self.items([1, 0, None], judge=[1, None, 0])
        with pytest.raises(ValueError, match=r"1 item\(s\) have no judge verdict \(ids 'b'\)"):
            jc.JudgeData.from_items(items)

    def test_one_class_stratified(self):
        with pytest.raises(ValueError, match="no truly incorrect"):
            jc.JudgeData.from_items(self.items([1, 1, None, None, None, None]))

    def test_not_an_items_frame(self):
        with pytest.raises(TypeError, match="items frame"):
            jc.JudgeData.from_items([1, 2])
        with pytest.raises(ValueError, match="lacks the column"):
            jc.JudgeData.from_items(pd.DataFrame({"id": ["a"], "judge": [1]}))


# ---- join_human ---------------------------------------------------------------------------------
class TestJoinHuman:
    @pytest.fixture
    def items(self):
        return items_frame(["q1", "q2", "q3", "q4"], [1, 0, 1, 1], source="run.json")

    def test_join_from_frame_and_file(self, items, tmp_path):
        labels = pd.DataFrame({"id": ["q2", "q4"], "human": ["I", "C"]})
        joined = join_human(items, labels, positive="C")
        assert as_list(joined["human"]) == [None, 0, None, 1]
        path = tmp_path / "labels.csv"
        labels.rename(columns={"id": "item", "human": "ok"}).to_csv(path, index=False)
        again = join_human(items, path, on="item", column="ok", positive="C")
        assert as_list(again["human"]) == [None, 0, None, 1]
        assert again.attrs["source"] == "run.json"

    def test_inputs_not_mutated(self, items):
        labels = pd.DataFrame({"id": ["q2"], "human": [1]})
        before_items, before_labels = items.copy(), labels.copy()
        join_human(items, labels)
        pd.testing.assert_frame_equal(items, before_items)
        pd.testing.assert_frame_equal(labels, before_labels)
        assert items["human"].isna().all()

    def test_empty_labels_skip(self, items):
        joined = join_human(items, pd.DataFrame({"id": ["q1", "q2"], "human": [1, None]}))
        assert as_list(joined["human"]) == [1, None, None, None]

    def test_unknown_ids(self, items):
        with pytest.raises(
            ValueError,
            match=r"1 of 2 labelled id\(s\) are not among the 4 "
            r"items of run.json \('q9'",
        ):
            join_human(items, pd.DataFrame({"id": ["q1", "q9"], "human": [1, 0]}))

    def test_duplicate_ids(self, items):
        with pytest.raises(ValueError, match=r"1 id\(s\) appear more than once.*'q1'"):
            join_human(items, pd.DataFrame({"id": ["q1", "q1"], "human": [1, 0]}))

    def test_labels_outside_mapping(self, items):
        with pytest.raises(
            ValueError,
            match=r"`human` has values outside the mapping: "
            r"'maybe' \(1 item\)",
        ):
            join_human(
                items, pd.DataFrame({"id": ["q1", "q2"], "human": ["C", "maybe"]}), positive="C"
            )

    def test_missing_columns(self, items):
        with pytest.raises(ValueError, match=r"missing column\(s\) 'label'"):
            join_human(items, pd.DataFrame({"id": ["q1"], "human": [1]}), column="label")

    def test_contradiction_with_labels_in_the_log(self):
        items = items_frame(["a", "b"], [1, 0], [1, None], source="log")
        with pytest.raises(ValueError, match="contradicts the human label 1 already in log"):
            join_human(items, pd.DataFrame({"id": ["a"], "human": [0]}))
        agree = join_human(items, pd.DataFrame({"id": ["a", "b"], "human": [1, 0]}))
        assert as_list(agree["human"]) == [1, 0]

    def test_numeric_ids_match_strings(self):
        items = items_frame([0, 1, 2], [1, 0, 1], source="s")
        joined = join_human(items, pd.DataFrame({"id": [1.0, 2.0], "human": [0, 1]}))
        assert as_list(joined["human"]) == [None, 0, 1]

    def test_repeated_item_rows_all_get_the_label(self):
        items = items_frame(["a", "a", "b"], [1, 0, 1], source="s", extra={"epoch": [1, 2, 1]})
        assert as_list(join_human(items, pd.DataFrame({"id": ["a"], "human": [1]}))["human"]) == [
            1,
            1,
            None,
        ]


def test_io_is_not_imported_by_judgestats():
    import subprocess
    import sys

    code = (
        "import sys, judgestats; import judgestats.datasets; "
        "print('judgestats.io' in sys.modules, 'judgestats.io.inspect_ai' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "False"]
    code = "import sys, judgestats.io; print('judgestats.io.inspect_ai' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.strip()
        == "False"
    )
