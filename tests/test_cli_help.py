"""The command line explains itself: bare ``judgestats`` prints the help, every command's
``--help`` ends with examples that run as printed, and a missing optional extra says how to
install it from a clone and from the package index."""

from __future__ import annotations

import builtins
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from judgestats.cli import build_parser, main
from judgestats.cli.commands import COMMANDS
from judgestats.cli.examples import EXAMPLES

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "src" / "judgestats" / "datasets"


def test_bare_command_prints_the_help(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("usage: judgestats")
    assert "estimate" in out and "report" in out and "examples:" in out
    assert "required" not in out + err


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("judgestats ")


def test_every_command_has_examples():
    assert set(EXAMPLES) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_ends_with_examples(command, capsys):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out.rstrip()
    block = out[out.rindex("\nexamples:\n") + 1 :].splitlines()[1:]
    assert block and all(line.startswith("  ") for line in block)
    assert block[-1].strip() == EXAMPLES[command][-1][1]
    for _, line in EXAMPLES[command]:
        assert f"  {line}" in out  # printed as written: not rewrapped


CHEAP = [
    (command, line)
    for command, examples in EXAMPLES.items()
    for _, line in examples
    if not line.startswith(("judgestats figures 4", "judgestats report", "judgestats demo"))
]


@pytest.mark.parametrize(("command", "line"), CHEAP, ids=[line[:60] for _, line in CHEAP])
def test_help_examples_run(command, line, tmp_path, monkeypatch, capsys):
    shutil.copytree(
        DATASETS,
        tmp_path / "src" / "judgestats" / "datasets",
        ignore=shutil.ignore_patterns("*.py", "__pycache__"),
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    words = shlex.split(line)
    assert words[:2] == ["judgestats", command]
    assert main(words[1:]) == 0, capsys.readouterr().err


def test_the_parser_formats_without_a_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    assert "examples:" in build_parser().format_help()


def test_missing_inspect_extra_names_both_installs(monkeypatch, tmp_path):
    from judgestats.io import read_inspect

    log = tmp_path / "run.eval"
    log.write_bytes(b"")
    real_import = builtins.__import__

    def no_inspect(name, *args, **kwargs):
        if name.startswith("inspect_ai"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_inspect)
    monkeypatch.delitem(sys.modules, "inspect_ai", raising=False)
    monkeypatch.delitem(sys.modules, "inspect_ai.log", raising=False)
    with pytest.raises(ImportError) as caught:
        read_inspect(log)
    message = str(caught.value)
    assert (
        "pip install -e '.[inspect]'" in message and "pip install 'judgestats[inspect]'" in message
    )
