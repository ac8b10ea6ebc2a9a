"""The command line on item-level files: --items, --log, --human, and demo --show-data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgestats.cli import main
from judgestats.cli.inputs import log_format

FIXTURES = Path(__file__).parent / "fixtures" / "io"
PROMPTFOO = FIXTURES / "promptfoo_results.json"
ARC = FIXTURES / "samples_arc_easy_2026-01-01T00-00-00.000000.jsonl"
GSM = FIXTURES / "samples_gsm8k_2026-01-01T00-00-00.000000.jsonl"
LABELS = FIXTURES / "lm_eval_labels.csv"


def run(capsys, argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def inputs(capsys, argv):
    code, out, err = run(capsys, [*argv, "--json"])
    assert code == 0, err
    return json.loads(out)["inputs"]


def test_promptfoo_log(capsys):
    # tests/fixtures/io/README.md: k = 2, n = 3, k0 = 1, m0 = 2, k1 = 1, m1 = 1
    assert inputs(capsys, ["estimate", "--log", PROMPTFOO]) == {
        "k": 2,
        "n": 3,
        "k0": 1,
        "m0": 2,
        "k1": 1,
        "m1": 1,
    }
    jsonl = FIXTURES / "promptfoo_results.jsonl"
    assert inputs(capsys, ["estimate", "--log", jsonl, "--scorer", "correctness"]) == {
        "k": 2,
        "n": 3,
        "k0": 1,
        "m0": 2,
        "k1": 1,
        "m1": 1,
    }


def test_lm_eval_log_with_label_file(capsys):
    argv = [
        "estimate",
        "--log",
        ARC,
        "--scorer",
        "acc",
        "--human",
        LABELS,
        "--on",
        "doc_id",
        "--label-column",
        "label",
    ]
    assert inputs(capsys, argv) == {"k": 3, "n": 3, "k0": 1, "m0": 1, "k1": 1, "m1": 2}


def test_lm_eval_filter(capsys):
    labels = FIXTURES.parent.parent / "fixtures" / "io" / "lm_eval_labels.csv"
    argv = [
        "estimate",
        "--log",
        GSM,
        "--scorer",
        "exact_match",
        "--filter",
        "strict-match",
        "--human",
        labels,
        "--on",
        "doc_id",
        "--label-column",
        "label",
    ]
    # strict-match 1,0,0,1; labels doc 0 -> 1 (judge 1), doc 1 -> 0 (judge 0); doc 4 absent
    code, out, err = run(capsys, argv)
    assert code == 2 and "'4'" in err  # doc 4 is not in the gsm8k file: mismatched ids


def test_items_table(capsys, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("qid,verdict,label\na,PASS,\nb,FAIL,\nc,PASS,PASS\nd,PASS,FAIL\ne,FAIL,FAIL\n")
    argv = [
        "estimate",
        "--items",
        path,
        "--judge-column",
        "verdict",
        "--human-column",
        "label",
        "--id-column",
        "qid",
        "--positive",
        "PASS",
    ]
    # test a (1), b (0): k = 1, n = 2; human PASS: c judged 1; human FAIL: d judged 1, e judged 0
    assert inputs(capsys, argv) == {"k": 1, "n": 2, "k0": 1, "m0": 2, "k1": 1, "m1": 1}


# the CLI's random-design report lets PPI's JudgeStatsWarning escape
# (cli.printing._random_design_report, not part of this feature); ignore it so the counts can be
# checked
@pytest.mark.filterwarnings("ignore::judgestats.JudgeStatsWarning")
def test_items_with_separate_labels_and_random_design(capsys, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(json.dumps({"id": i, "judge": j}) + "\n" for i, j in enumerate([1, 0, 1, 1, 0, 1]))
    )
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\n2,1\n3,0\n4,0\n")
    argv = ["estimate", "--items", items, "--human", labels, "--design", "random"]
    code, out, err = run(capsys, [*argv, "--json"])
    assert code == 0, err
    # unlabelled 0, 1, 5 -> k = 2, n = 3; labelled 2 (h1 j1), 3 (h0 j1), 4 (h0 j0)
    assert json.loads(out)["inputs"] == {
        "k": 2,
        "n": 3,
        "k0": 1,
        "m0": 2,
        "k1": 1,
        "m1": 1,
        "design": "random",
    }


@pytest.mark.parametrize("command", ["crosscheck", "posterior"])
def test_other_commands_take_logs(capsys, command):
    code, out, err = run(capsys, [command, "--log", PROMPTFOO])
    assert code == 0 and err == ""
    assert "2 of 3" in out or "theta" in out


def test_bundled_examples_run(capsys):
    code, out, _ = run(capsys, ["demo", "--show-data"])
    assert code == 0
    paths = {Path(line).name: Path(line) for line in out.splitlines()}
    assert {
        "example_items.csv",
        "example_human_labels.csv",
        "example_lm_eval_samples.jsonl",
        "example_promptfoo_results.json",
        "example_labels.csv",
    } <= set(paths)
    assert all(path.is_file() for path in paths.values())
    for argv in (
        [
            "--items",
            paths["example_items.csv"],
            "--judge-column",
            "verdict",
            "--human-column",
            "human_label",
            "--positive",
            "C",
        ],
        [
            "--log",
            paths["example_lm_eval_samples.jsonl"],
            "--scorer",
            "acc",
            "--human",
            paths["example_human_labels.csv"],
        ],
        ["--log", paths["example_promptfoo_results.json"]],
    ):
        counts = inputs(capsys, ["estimate", *argv])
        assert counts["m0"] > 0 and counts["m1"] > 0 and counts["n"] > 0


def one_line_error(capsys, argv, *fragments):
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("judgestats: error: ")
    for fragment in fragments:
        assert fragment in err, err
    return err


def test_errors_are_one_line_naming_the_file(capsys, tmp_path):
    one_line_error(
        capsys,
        ["estimate", "--log", PROMPTFOO, "--scorer", "nope"],
        "promptfoo_results.json",
        "no assertion of type or metric 'nope'",
    )
    one_line_error(capsys, ["estimate", "--log", ARC], "samples_arc_easy", "needs --scorer")
    one_line_error(
        capsys, ["estimate", "--log", ARC, "--scorer", "f1"], "samples_arc_easy", "no metric 'f1'"
    )
    one_line_error(
        capsys,
        ["estimate", "--log", ARC, "--scorer", "acc"],
        "samples_arc_easy",
        "no item has a human label",
    )
    one_line_error(
        capsys,
        ["estimate", "--log", ARC, "--scorer", "acc", "--human", LABELS],
        "lm_eval_labels.csv",
        "missing column(s) 'id', 'human'",
    )
    bad = tmp_path / "labels.csv"
    bad.write_text("id,human\n0,1\n99,0\n")
    one_line_error(
        capsys,
        ["estimate", "--log", ARC, "--scorer", "acc", "--human", bad],
        "labels.csv",
        "not among the 6 items",
        "'99'",
    )
    dup = tmp_path / "dup.csv"
    dup.write_text("id,human\n0,1\n0,0\n")
    one_line_error(
        capsys,
        ["estimate", "--log", ARC, "--scorer", "acc", "--human", dup],
        "dup.csv",
        "more than once",
    )
    items = tmp_path / "items.csv"
    items.write_text("id,judge,human\na,C,\nb,I,C\nc,X,I\n")
    one_line_error(
        capsys,
        ["estimate", "--items", items, "--human-column", "human", "--positive", "C"],
        "items.csv",
        "'X' (1 item)",
    )


def test_corrupt_truncated_and_foreign_logs(capsys, tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text(PROMPTFOO.read_text()[:1500])
    one_line_error(capsys, ["estimate", "--log", cut], "cut.json", "truncated")
    foreign = tmp_path / "run.json"
    foreign.write_text(json.dumps({"runs": [{"score": 1}]}))
    one_line_error(capsys, ["estimate", "--log", foreign], "run.json", "not a log judgestats reads")
    odd = tmp_path / "run.txt"
    odd.write_text("hello")
    one_line_error(capsys, ["estimate", "--log", odd], "run.txt", "unknown log type '.txt'")
    one_line_error(
        capsys,
        ["estimate", "--log", ARC, "--input-format", "promptfoo"],
        "samples_arc_easy",
        "not a promptfoo results file",
    )
    one_line_error(
        capsys, ["estimate", "--log", tmp_path / "missing.json"], "missing.json", "no such file"
    )


def test_input_conflicts(capsys):
    one_line_error(
        capsys,
        ["estimate", "--log", PROMPTFOO, "--k", "1"],
        "give either --log or the six counts, not both",
    )
    one_line_error(capsys, ["estimate", "--human", LABELS, "--k", "1"], "--human joins labels")
    one_line_error(
        capsys,
        ["estimate", "--log", PROMPTFOO, "--human-column", "x"],
        "--human-column applies to --items",
    )


def test_log_format_detection(tmp_path):
    inspect_json = tmp_path / "2026-01-01_task_abc.json"
    inspect_json.write_text(
        json.dumps({"version": 2, "status": "success", "eval": {}, "samples": []})
    )
    assert log_format(str(inspect_json)) == "inspect"
    assert log_format(str(tmp_path / "x.eval")) == "inspect"
    assert log_format(str(PROMPTFOO)) == "promptfoo"
    assert log_format(str(FIXTURES / "promptfoo_results.jsonl")) == "promptfoo"
    assert log_format(str(ARC)) == "lm-eval"


# -- review fixes: options a CLI user needs where the Python API has arguments ------------------
def test_promptfoo_provider_chosen_on_the_command_line(capsys):
    two = FIXTURES / "promptfoo_two_providers.json"
    code, _, err = run(capsys, ["estimate", "--log", two])
    assert code == 2 and "provider" in err
    # the gpt-4o-mini rows are promptfoo_results.json's: the same hand counts
    assert inputs(capsys, ["estimate", "--log", two, "--provider", "openai:gpt-4o-mini"]) == {
        "k": 2,
        "n": 3,
        "k0": 1,
        "m0": 2,
        "k1": 1,
        "m1": 1,
    }


def test_human_positive_maps_the_label_file_of_a_log(capsys, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("doc_id,label\n0,C\n1,I\n4,C\n")  # lm_eval_labels.csv written as C/I
    argv = [
        "estimate",
        "--log",
        ARC,
        "--scorer",
        "acc",
        "--human",
        labels,
        "--on",
        "doc_id",
        "--label-column",
        "label",
    ]
    code, _, err = run(capsys, argv)
    assert code == 2 and "'C' (2 items), 'I' (1 item)" in err
    assert inputs(capsys, [*argv, "--human-positive", "C"]) == {
        "k": 3,
        "n": 3,
        "k0": 1,
        "m0": 1,
        "k1": 1,
        "m1": 2,
    }


def _unscored_table(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text(
        "id,epoch,judge,human\na,1,1,\na,2,0,\nb,1,,\nb,2,1,\nc,1,1,1\nc,2,1,1\n"
        "d,1,0,0\nd,2,0,0\ne,1,0,\ne,2,0,\n"
    )
    return path


def test_items_without_verdict_are_an_error_unless_dropped(capsys, tmp_path):
    path = _unscored_table(tmp_path)
    base = ["posterior", "--items", path, "--human-column", "human", "--epoch", "1"]
    code, _, err = run(capsys, base)
    assert code == 2 and "1 item(s) have no judge verdict" in err and "--drop-unscored" in err
    # epoch 1 without b: test a (1), e (0) -> k = 1, n = 2; c: human 1 judged 1; d: human 0
    # judged 0
    assert inputs(capsys, [*base, "--drop-unscored"]) == {
        "k": 1,
        "n": 2,
        "k0": 1,
        "m0": 1,
        "k1": 1,
        "m1": 1,
    }


def test_epoch_selects_one_judgment_per_item(capsys, tmp_path):
    path = _unscored_table(tmp_path)
    # epoch 2: test a (0), b (1), e (0) -> k = 1, n = 3; c: human 1 judged 1; d: human 0
    # judged 0
    assert inputs(
        capsys, ["estimate", "--items", path, "--human-column", "human", "--epoch", "2"]
    ) == {"k": 1, "n": 3, "k0": 1, "m0": 1, "k1": 1, "m1": 1}
    code, _, err = run(
        capsys, ["estimate", "--items", path, "--human-column", "human", "--epoch", "3"]
    )
    assert code == 2 and "no item of epoch 3; the epochs are 1, 2" in err


def test_items_need_a_human_column_or_label_file(capsys, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("id,judge,human\na,1,\nb,0,1\n")
    code, _, err = run(capsys, ["posterior", "--items", path])
    assert code == 2 and "--human-column COL" in err and err.count("\n") == 1


def test_labels_file_with_human_is_an_error(capsys):
    from judgestats.datasets import example_path

    code, _, err = run(capsys, ["estimate", "--labels", example_path(), "--human", LABELS])
    assert code == 2 and "a --labels file holds its human labels itself" in err


def test_reader_errors_name_the_command_options(capsys, tmp_path):
    record = json.loads(ARC.read_text().splitlines()[0])
    record["acc"] = 0.7  # a score, not a 0/1 verdict
    path = tmp_path / "samples_x_2026-01-01T00-00-00.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, _, err = run(capsys, ["estimate", "--log", path, "--scorer", "acc"])
    assert code == 2 and "`threshold` (--threshold)" in err and "`positive` (--positive)" in err
    labels = tmp_path / "labels.csv"
    labels.write_text("doc_id,label\n0,C\n1,I\n4,C\n")
    code, _, err = run(
        capsys,
        [
            "estimate",
            "--log",
            ARC,
            "--scorer",
            "acc",
            "--human",
            labels,
            "--on",
            "doc_id",
            "--label-column",
            "label",
        ],
    )
    assert code == 2 and "give --human-positive VALUE" in err


def _pairwise_table(tmp_path):
    # pairwise winners coded 1/2 (1: the model under test won), gold the same, blank = unlabelled
    path = tmp_path / "pairs.csv"
    path.write_text(
        "id,winner,gold\na,1,\nb,2,\nc,1,\nd,2,\ne,1,\nf,1,1\ng,2,1\nh,1,1\ni,2,2\nj,2,2\nk,1,2\n"
    )
    return ["estimate", "--items", path, "--judge-column", "winner", "--human-column", "gold"]


#: By hand: test rows a-e, judged 1 on a, c, e (k = 3, n = 5); gold 1 on f, g, h, judged 1 on f,
#: h (k1 = 2, m1 = 3); gold 2 on i, j, k, judged 2 on i, j (k0 = 2, m0 = 3).
PAIRWISE_COUNTS = {"k": 3, "n": 5, "k0": 2, "m0": 3, "k1": 2, "m1": 3}


def test_negative_maps_pairwise_winners_coded_1_2(capsys, tmp_path):
    argv = [*_pairwise_table(tmp_path), "--positive", "1"]
    code, _, err = run(capsys, argv)  # 1's usual partner is 0: the 2s are not mapped
    assert code == 2 and "`negative` (--negative)" in err and err.count("\n") == 1
    assert inputs(capsys, [*argv, "--negative", "2"]) == PAIRWISE_COUNTS
    explicit = ["--negative", "2", "--human-positive", "1", "--human-negative", "2"]
    assert inputs(capsys, [*argv, *explicit]) == PAIRWISE_COUNTS


def test_human_negative_is_named_where_the_gold_needs_it(capsys, tmp_path):
    argv = [*_pairwise_table(tmp_path), "--positive", "1", "--negative", "2"]
    code, _, err = run(capsys, [*argv, "--human-positive", "1"])
    assert code == 2 and "`human_negative` (--human-negative)" in err and err.count("\n") == 1
    assert inputs(capsys, [*argv, "--human-positive", "1", "--human-negative", "2"]) == (
        PAIRWISE_COUNTS
    )


def test_positive_equal_to_negative_is_one_line_naming_the_option(capsys, tmp_path):
    code, out, err = run(capsys, [*_pairwise_table(tmp_path), "--positive", "1", "--negative", "1"])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("judgestats: error: ") and "(--negative)" in err


def test_negative_with_a_reader_without_it_is_an_error(capsys):
    code, _, err = run(capsys, ["estimate", "--log", ARC, "--scorer", "acc", "--negative", "0"])
    assert code == 2 and "--negative applies to --items tables and Inspect logs" in err
