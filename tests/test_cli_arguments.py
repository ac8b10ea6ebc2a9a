"""The CLI's number parsers (judgestats.cli.arguments.number): every error names the option."""

from __future__ import annotations

import math
import re

import pytest

from judgestats.cli import main
from judgestats.cli.arguments import Parser, UserError, number


def _parse(kind, text, **options):
    parser = Parser(prog="t")
    parser.add_argument("--value", type=number(kind, **options))
    return parser.parse_args(["--value", text]).value


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("int", "7", 7),
        ("float", "0.25", 0.25),
        ("count", "1e9", 1e9),
        ("count", "inf", math.inf),
        ("probability", "0.95", 0.95),
    ],
)
def test_numbers_are_parsed(kind, text, expected):
    value = _parse(kind, text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("kind", "text", "options", "message"),
    [
        ("int", "1.5", {}, "invalid int value: '1.5'"),
        ("float", "x", {}, "invalid float value: 'x'"),
        ("count", "abc", {}, "expected a whole number, got 'abc'"),
        ("probability", "x", {}, r"expected a number in \(0, 1\), got 'x'"),
        ("probability", "1", {}, r"expected a number in \(0, 1\), got '1'"),
        ("probability", "nan", {}, r"expected a number in \(0, 1\), got 'nan'"),
        (
            "probability",
            "x",
            {"closed": True, "noun": "an accuracy"},
            r"expected an accuracy in \[0, 1\]",
        ),
        ("int", "0", {"low": 1, "closed": True}, "expected an integer at least 1, got '0'"),
        ("int", "x", {"low": 1, "closed": True}, "expected an integer at least 1, got 'x'"),
        ("float", "5", {"high": 5}, "expected a number less than 5, got '5'"),
        ("float", "0", {"low": 0, "finite": True}, "expected a finite number greater than 0"),
        ("float", "inf", {"low": 0, "finite": True}, "expected a finite number greater than 0"),
        ("float", "x", {"low": 0, "finite": True}, "expected a number greater than 0, got 'x'"),
        ("count", "-1", {"low": 0, "closed": True}, "expected a whole number at least 0"),
    ],
)
def test_errors_name_the_option(kind, text, options, message):
    with pytest.raises(UserError, match="^argument --value: " + message):
        _parse(kind, text, **options)


def test_unchecked_ranges_are_left_to_the_api():
    assert _parse("probability", "1.5", check=False) == 1.5
    assert _parse("count", "-3", low=0, closed=True, check=False) == -3.0


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["estimate", "--k", "abc"], "argument --k: expected a whole number, got 'abc'"),
        (["posterior", "--seed", "1.5"], "argument --seed: invalid int value: '1.5'"),
        (
            ["plan", "--p", "x", "--q0", "0.7", "--q1", "0.9", "--m", "200"],
            r"argument --p: expected a number in \(0, 1\), got 'x'",
        ),
        (
            ["posterior", "--prior-theta", "0", "1"],
            "argument --prior-theta: expected a finite number greater than 0, got '0'",
        ),
        (["estimate", "--null", "x"], r"argument --null: expected an accuracy in \[0, 1\]"),
        (["compare", "--a", "1,x"], "argument --a: expected comma-separated counts"),
    ],
)
def test_the_command_line_reports_the_option(argv, line, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert re.match("judgestats: error: " + line, err)
