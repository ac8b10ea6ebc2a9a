"""Tests of JudgeData: the six counts, their validation and the constructors."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pandas as pd
import pytest

from judgestats import JudgeData

COUNTS = {"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200}


def make(**changes):
    return JudgeData(**{**COUNTS, **changes})


# ---------------------------------------------------------------------------------------------
# the counts and derived quantities
# ---------------------------------------------------------------------------------------------
class TestProperties:
    def test_derived(self):
        d = JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
        assert d.p == 400 / 1000  # eq. (2): p-hat = k / n
        assert d.q0 == 140 / 200
        assert d.q1 == 180 / 200
        assert d.youden == pytest.approx(0.7 + 0.9 - 1, abs=1e-15)

    def test_positional(self):
        d = JudgeData(400, 1000, 140, 200, 180, 200)
        assert (d.k, d.n, d.k0, d.m0, d.k1, d.m1) == (400, 1000, 140, 200, 180, 200)

    def test_to_dict(self):
        assert make().to_dict() == COUNTS

    def test_frozen(self):
        d = make()
        with pytest.raises(dataclasses.FrozenInstanceError):
            d.k = 5
        with pytest.raises(dataclasses.FrozenInstanceError):
            d.m0 = 5

    def test_equality_and_hash(self):
        assert make() == make()
        assert hash(make()) == hash(make())
        assert make() != make(k=401)

    def test_integral_float_accepted_and_stored_as_int(self):
        d = JudgeData(k=1e9, n=1e9, k0=2.0, m0=np.float64(3), k1=np.int64(1), m1=1)
        assert d.k == 10**9 and type(d.k) is int
        assert type(d.m0) is int and d.m0 == 3
        assert type(d.k1) is int
        assert d.p == 1.0

    def test_boundary_counts_accepted(self):
        d = JudgeData(k=0, n=1, k0=0, m0=1, k1=1, m1=1)
        assert (d.p, d.q0, d.q1) == (0.0, 0.0, 1.0)
        d = JudgeData(k=1000, n=1000, k0=200, m0=200, k1=200, m1=200)
        assert d.youden == 1.0


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
class TestValidation:
    def test_k_exceeds_n_exact_message(self):
        with pytest.raises(ValueError, match=re.escape("`k` (1200) must not exceed `n` (1000).")):
            make(k=1200)

    @pytest.mark.parametrize(("part", "whole", "value"), [("k0", "m0", 201), ("k1", "m1", 300)])
    def test_part_exceeds_whole(self, part, whole, value):
        msg = f"`{part}` ({value}) must not exceed `{whole}` (200)."
        with pytest.raises(ValueError, match=re.escape(msg)):
            make(**{part: value})

    @pytest.mark.parametrize("name", list(COUNTS))
    def test_negative(self, name):
        pattern = rf"`{name}` \(-1\) must (not be negative|be at least 1)"
        with pytest.raises(ValueError, match=pattern):
            make(**{name: -1})

    @pytest.mark.parametrize("name", list(COUNTS))
    def test_non_integral(self, name):
        with pytest.raises(ValueError, match=rf"`{name}` \(2\.5\) must be a whole number"):
            make(**{name: 2.5})

    @pytest.mark.parametrize("name", ["n", "m0", "m1"])
    def test_zero_totals(self, name):
        parts = {"n": "k", "m0": "k0", "m1": "k1"}
        with pytest.raises(ValueError, match=rf"`{name}` \(0\) must be at least 1"):
            make(**{name: 0, parts[name]: 0})

    @pytest.mark.parametrize("name", ["n", "m0", "m1"])
    def test_zero_totals_stratified_explicitly(self, name):
        # a stratified arm without items measures nothing: still rejected
        parts = {"n": "k", "m0": "k0", "m1": "k1"}
        with pytest.raises(ValueError, match=rf"`{name}` \(0\) must be at least 1"):
            make(**{name: 0, parts[name]: 0}, design="stratified")

    def test_random_design_needs_a_labelled_item(self):
        with pytest.raises(
            ValueError,
            match=r"`m0` \+ `m1` \(0\) must be at least 1 with "
            r"design='random'",
        ):
            make(k0=0, m0=0, k1=0, m1=0, design="random")
        with pytest.raises(ValueError, match=r"`n` \(0\) must be at least 1"):
            make(k=0, n=0, design="random")

    @pytest.mark.parametrize(("part", "whole"), [("k0", "m0"), ("k1", "m1")])
    def test_random_design_empty_class_needs_a_zero_part(self, part, whole):
        with pytest.raises(ValueError, match=rf"`{part}` \(1\) must not exceed `{whole}` \(0\)"):
            make(**{part: 1, whole: 0}, design="random")


# ---------------------------------------------------------------------------------------------
# the random design: a labelled subsample may hold one class only
# ---------------------------------------------------------------------------------------------
class TestOneClassRandomDesign:
    def test_no_truly_incorrect_item(self):
        d = JudgeData(k=900, n=970, k0=0, m0=0, k1=28, m1=30, design="random")
        assert (d.m0, d.k0, d.m, d.p, d.q1) == (0, 0, 30, 900 / 970, 28 / 30)
        assert math.isnan(d.q0) and math.isnan(d.youden)
        assert d.one_class
        assert d.cells == (28, 2, 0, 0)
        assert d.to_dict() == {
            "k": 900,
            "n": 970,
            "k0": 0,
            "m0": 0,
            "k1": 28,
            "m1": 30,
            "design": "random",
        }
        assert JudgeData(**d.to_dict()) == d

    def test_no_truly_correct_item(self):
        d = JudgeData(k=40, n=970, k0=27, m0=30, k1=0, m1=0, design="random")
        assert d.q0 == 27 / 30 and math.isnan(d.q1) and math.isnan(d.youden)
        assert d.one_class and d.cells == (0, 0, 3, 27)

    def test_both_classes_is_not_one_class(self):
        assert not make().one_class
        assert not make(design="random").one_class

    @pytest.mark.parametrize("name", list(COUNTS))
    @pytest.mark.parametrize("value", [True, False, np.True_])
    def test_booleans_rejected(self, name, value):
        with pytest.raises(TypeError, match=rf"`{name}`.*boolean"):
            make(**{name: value})

    @pytest.mark.parametrize("name", list(COUNTS))
    @pytest.mark.parametrize("value", ["5", None, b"5"])
    def test_strings_and_none_rejected(self, name, value):
        with pytest.raises(TypeError, match=rf"`{name}`"):
            make(**{name: value})

    @pytest.mark.parametrize("value", [np.inf, np.nan])
    def test_non_finite(self, value):
        with pytest.raises(ValueError, match="`n`"):
            make(n=value)

    def test_array_rejected(self):
        with pytest.raises(TypeError, match=r"`k` must be a single number"):
            make(k=[1, 2])


# ---------------------------------------------------------------------------------------------
# from_labels
# ---------------------------------------------------------------------------------------------
TEST = [1, 0, 1, 1, 0]  # k = 3, n = 5
HUMAN = [0, 0, 0, 1, 1, 1, 1]  # m0 = 3, m1 = 4
JUDGE = [0, 1, 0, 1, 1, 0, 1]  # k0 = #(h=0, j=0) = 2, k1 = #(h=1, j=1) = 3
EXPECTED = JudgeData(k=3, n=5, k0=2, m0=3, k1=3, m1=4)


class TestFromLabels:
    def test_lists(self):
        assert JudgeData.from_labels(TEST, HUMAN, JUDGE) == EXPECTED

    def test_tuples(self):
        assert JudgeData.from_labels(tuple(TEST), tuple(HUMAN), tuple(JUDGE)) == EXPECTED

    @pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.float64, np.float32])
    def test_numpy(self, dtype):
        arrays = [np.array(x, dtype=dtype) for x in (TEST, HUMAN, JUDGE)]
        assert JudgeData.from_labels(*arrays) == EXPECTED

    def test_pandas(self):
        series = [pd.Series(x) for x in (TEST, HUMAN, JUDGE)]
        assert JudgeData.from_labels(*series) == EXPECTED
        nullable = [pd.Series(x, dtype="Int64") for x in (TEST, HUMAN, JUDGE)]
        assert JudgeData.from_labels(*nullable) == EXPECTED
        # a non-default index must not matter
        shifted = [pd.Series(x, index=np.arange(len(x)) + 100) for x in (TEST, HUMAN, JUDGE)]
        assert JudgeData.from_labels(*shifted) == EXPECTED

    def test_bools(self):
        bools = [[bool(v) for v in x] for x in (TEST, HUMAN, JUDGE)]
        assert JudgeData.from_labels(*bools) == EXPECTED
        assert JudgeData.from_labels(*(np.array(b) for b in bools)) == EXPECTED
        assert JudgeData.from_labels(*(pd.Series(b) for b in bools)) == EXPECTED

    def test_inputs_not_modified(self):
        arrays = [np.array(x, dtype=np.float64) for x in (TEST, HUMAN, JUDGE)]
        series = [pd.Series(x) for x in (TEST, HUMAN, JUDGE)]
        lists = [list(x) for x in (TEST, HUMAN, JUDGE)]
        copies = ([a.copy() for a in arrays], [s.copy() for s in series], [list(x) for x in lists])
        JudgeData.from_labels(*arrays)
        JudgeData.from_labels(*series)
        JudgeData.from_labels(*lists)
        for a, c in zip(arrays, copies[0], strict=True):
            np.testing.assert_array_equal(a, c)
            assert a.dtype == c.dtype
        for s, c in zip(series, copies[1], strict=True):
            pd.testing.assert_series_equal(s, c)
        assert lists == copies[2]

    @pytest.mark.parametrize("bad", [np.nan, None])
    def test_missing_rejected(self, bad):
        test = [1, 0, bad, 1]
        with pytest.raises(ValueError, match=r"`test_judge`.*item 2 is a missing value"):
            JudgeData.from_labels(test, HUMAN, JUDGE)

    def test_missing_in_calibration(self):
        human = [0, 0, 0, 1, 1, np.nan, 1]
        with pytest.raises(ValueError, match=r"`calib_human`.*item 5 is a missing value"):
            JudgeData.from_labels(TEST, human, JUDGE)
        with pytest.raises(ValueError, match=r"`calib_judge`.*item 0 is a missing value"):
            JudgeData.from_labels(TEST, HUMAN, pd.Series([None, 1, 0, 1, 1, 0, 1]))

    def test_value_two_rejected(self):
        with pytest.raises(ValueError, match=r"`test_judge` must hold only 0/1 labels"):
            JudgeData.from_labels([0, 2], HUMAN, JUDGE)
        with pytest.raises(ValueError, match=r"`calib_judge`.*item 3\b"):
            JudgeData.from_labels(TEST, HUMAN, [0, 1, 0, 0.5, 1, 0, 1])
        with pytest.raises(ValueError, match=r"`calib_human`.*item 0\b"):
            JudgeData.from_labels(TEST, [-1, 0, 0, 1, 1, 1, 1], JUDGE)

    def test_value_two_message_shows_the_value_plainly(self):
        # DESIGN: the message "shows the value received"; the user passed 2, not np.int64(2)
        with pytest.raises(ValueError, match=r"item 1 is 2\."):
            JudgeData.from_labels([0, 2], HUMAN, JUDGE)

    def test_mismatched_lengths(self):
        with pytest.raises(
            ValueError,
            match=r"`calib_human` \(7 items\) and `calib_judge` "
            r"\(6 items\) must have the same length",
        ):
            JudgeData.from_labels(TEST, HUMAN, JUDGE[:-1])

    def test_empty_test(self):
        with pytest.raises(ValueError, match="test set is empty"):
            JudgeData.from_labels([], HUMAN, JUDGE)

    def test_no_items_of_one_class(self):
        with pytest.raises(ValueError, match=r"no truly incorrect.*q0"):
            JudgeData.from_labels(TEST, [1, 1, 1], [1, 0, 1])
        with pytest.raises(ValueError, match=r"no truly correct.*q1"):
            JudgeData.from_labels(TEST, [0, 0], [1, 0])
        with pytest.raises(ValueError, match="no truly"):
            JudgeData.from_labels(TEST, [], [])

    @pytest.mark.parametrize("bad", [5, "1010", None])
    def test_not_a_sequence(self, bad):
        with pytest.raises(TypeError, match="`test_judge` must be a sequence"):
            JudgeData.from_labels(bad, HUMAN, JUDGE)

    def test_two_dimensional(self):
        with pytest.raises(ValueError, match="one-dimensional"):
            JudgeData.from_labels(np.ones((2, 2), dtype=int), HUMAN, JUDGE)


# ---------------------------------------------------------------------------------------------
# from_csv and from_frame
# ---------------------------------------------------------------------------------------------
def write_csv(path, rows, header="set,judge,human"):
    path.write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


GOOD_ROWS = [
    "test,1,",
    "test,0,",
    "test,1,",
    "test,1,",
    "test,0,",  # k = 3, n = 5
    "calibration,0,0",
    "calibration,1,0",
    "calibration,0,0",  # m0 = 3, k0 = 2
    "calibration,1,1",
    "calibration,1,1",
    "calibration,0,1",
    "calibration,1,1",  # m1 = 4, k1 = 3
]


class TestFromCsv:
    def test_counts(self, tmp_path):
        path = write_csv(tmp_path / "labels.csv", GOOD_ROWS)
        assert JudgeData.from_csv(path) == EXPECTED
        assert JudgeData.from_csv(str(path)) == EXPECTED

    def test_words_order_and_extra_columns(self, tmp_path):
        rows = [
            "x1,1,,test",
            "x2,false,,TEST",
            "x3,true,, test ",
            "x4,1.0,,test",
            "x5,0.0,,test",
            "c1,0,false,calibration",
            "c2,1,0,calibration",
            "c3,0,0.0,Calibration",
            "c4,TRUE,1,calibration",
            "c5,1,true,calibration",
            "c6,0,1,calibration",
            "c7,1,1,calibration",
        ]
        path = write_csv(tmp_path / "x.csv", rows, header="id,judge,human,set")
        assert JudgeData.from_csv(path) == EXPECTED

    def test_bad_judge_value_names_row_and_column(self, tmp_path):
        rows = list(GOOD_ROWS)
        rows[2] = "test,2,"  # data row 3 -> file row 4 (header is row 1)
        path = write_csv(tmp_path / "bad.csv", rows)
        with pytest.raises(ValueError, match=r"row 4: column `judge` must be 0 or 1, got '2'"):
            JudgeData.from_csv(path)

    def test_empty_judge_value(self, tmp_path):
        rows = list(GOOD_ROWS)
        rows[0] = "test,,"
        path = write_csv(tmp_path / "bad.csv", rows)
        with pytest.raises(ValueError, match=r"row 2: column `judge`"):
            JudgeData.from_csv(path)

    def test_bad_human_value_on_calibration_row(self, tmp_path):
        rows = list(GOOD_ROWS)
        rows[6] = "calibration,1,"  # data row 7 -> file row 8
        path = write_csv(tmp_path / "bad.csv", rows)
        with pytest.raises(
            ValueError,
            match=r"row 8: column `human` must be 0 or 1 on a "
            r"calibration row",
        ):
            JudgeData.from_csv(path)
        rows[6] = "calibration,1,yes"
        path = write_csv(tmp_path / "bad.csv", rows)
        with pytest.raises(ValueError, match=r"row 8: column `human`.*'yes'"):
            JudgeData.from_csv(path)

    def test_human_value_on_test_row_refused(self, tmp_path):
        # issue 25 item 6: the label used to be dropped silently
        rows = list(GOOD_ROWS)
        rows[0] = "test,1,0"
        path = write_csv(tmp_path / "x.csv", rows)
        with pytest.raises(ValueError, match=r"x\.csv: 1 'test' row\(s\) carry a `human` label"):
            JudgeData.from_csv(path)
        rows[0] = "test,1,"
        assert JudgeData.from_csv(write_csv(tmp_path / "y.csv", rows)) == EXPECTED

    def test_unknown_set(self, tmp_path):
        rows = list(GOOD_ROWS)
        rows[9] = "train,1,1"  # data row 10 -> file row 11
        path = write_csv(tmp_path / "bad.csv", rows)
        with pytest.raises(
            ValueError,
            match=r"row 11: column `set` must be 'test' or "
            r"'calibration', got 'train'",
        ):
            JudgeData.from_csv(path)

    def test_missing_column(self, tmp_path):
        path = write_csv(tmp_path / "bad.csv", ["test,1", "calibration,0"], header="set,judge")
        with pytest.raises(ValueError, match=r"missing column.*'human'"):
            JudgeData.from_csv(path)

    def test_error_names_file(self, tmp_path):
        path = write_csv(
            tmp_path / "named_file.csv", ["test,1", "calibration,0"], header="set,judge"
        )
        with pytest.raises(ValueError, match="named_file.csv"):
            JudgeData.from_csv(path)

    def test_missing_file(self, tmp_path):
        path = tmp_path / "does_not_exist.csv"
        with pytest.raises(ValueError, match=r"does_not_exist\.csv: no such file"):
            JudgeData.from_csv(path)

    def test_empty_file(self, tmp_path):
        path = tmp_path / "empty.csv"
        path.write_text("", encoding="utf-8")
        with pytest.raises(ValueError, match="missing column"):
            JudgeData.from_csv(path)

    def test_header_only(self, tmp_path):
        path = write_csv(tmp_path / "h.csv", [])
        with pytest.raises(ValueError, match="test set is empty"):
            JudgeData.from_csv(path)

    def test_row_longer_than_the_header_refused(self, tmp_path):
        rows = list(GOOD_ROWS)
        rows[5] = "calibration,0,0,fine, really"  # an unquoted comma: data row 6 = file row 7
        path = write_csv(tmp_path / "long.csv", rows)
        with pytest.raises(ValueError, match=r"long\.csv, row 7: 5 fields, but the header names 3"):
            JudgeData.from_csv(path)
        rows[5] = "calibration,0,0,,"  # empty trailing fields are harmless
        assert JudgeData.from_csv(write_csv(tmp_path / "ok.csv", rows)) == EXPECTED

    @pytest.mark.parametrize("path", [None, 3, b"labels.csv", ["labels.csv"]])
    def test_path_of_the_wrong_type_names_path(self, path):
        with pytest.raises(TypeError, match=r"`path` must be a file path \(a str or an os.Path"):
            JudgeData.from_csv(path)

    def test_bom(self, tmp_path):
        path = tmp_path / "bom.csv"
        path.write_text("\ufeffset,judge,human\n" + "\n".join(GOOD_ROWS) + "\n", encoding="utf-8")
        assert JudgeData.from_csv(path) == EXPECTED


class TestFromFrame:
    def frame(self):
        return pd.DataFrame(
            {
                "set": ["test"] * 5 + ["calibration"] * 7,
                "judge": TEST + JUDGE,
                "human": [np.nan] * 5 + HUMAN,
            }
        )

    def test_counts(self):
        assert JudgeData.from_frame(self.frame()) == EXPECTED

    def test_not_modified(self):
        frame = self.frame()
        copy = frame.copy()
        JudgeData.from_frame(frame)
        pd.testing.assert_frame_equal(frame, copy)

    def test_custom_columns(self):
        frame = self.frame().rename(columns={"set": "split", "judge": "llm", "human": "gold"})
        got = JudgeData.from_frame(
            frame, set_column="split", judge_column="llm", human_column="gold"
        )
        assert got == EXPECTED

    def test_missing_column(self):
        with pytest.raises(ValueError, match=r"`frame` lacks the column\(s\) 'human'"):
            JudgeData.from_frame(self.frame().drop(columns="human"))

    def test_bad_value_names_row(self):
        frame = self.frame()
        frame.loc[6, "human"] = 3
        with pytest.raises(ValueError, match=r"row 6: column `human`"):
            JudgeData.from_frame(frame)
