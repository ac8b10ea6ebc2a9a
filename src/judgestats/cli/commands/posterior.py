"""``judgestats posterior``: the full posterior of theta, q0 and q1 (exact integration or NUTS)."""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from judgestats._html import fmt_percent
from judgestats.cli.arguments import (
    add_data_arguments,
    add_output_arguments,
    add_posterior_arguments,
    add_prior_arguments,
    add_progress_argument,
)
from judgestats.cli.grouping import grouping
from judgestats.cli.inputs import data_from_arguments, posterior_options
from judgestats.cli.printing import (
    check_lines,
    emit,
    json_text,
    nuts_diagnostic_lines,
    with_random_design,
)
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning

__all__ = ["add_command", "add_posterior_command_arguments", "run"]

_HELP = "the full posterior of theta, q0, q1 (exact integration or NUTS)"


def add_command(commands: Any) -> None:
    """Add ``posterior`` and its options."""
    posterior = commands.add_parser("posterior", help=_HELP, description=_HELP.capitalize())
    add_posterior_command_arguments(posterior)


def add_posterior_command_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``posterior`` (and ``crosscheck``): data, output, posterior, prior."""
    add_data_arguments(parser)
    add_output_arguments(parser)
    add_posterior_arguments(parser)
    add_prior_arguments(parser)
    add_progress_argument(parser, "the sampling of --method nuts")


def run(args: argparse.Namespace) -> int:
    """Print the posterior; return the exit code."""
    grouping(args)  # the posterior neither groups nor clusters: --by is an error
    data = data_from_arguments(args)
    output = _posterior_text(data, args)
    if data.design == "random":
        output = with_random_design(output, data, args)
    return emit(output)


def _posterior_text(data: JudgeData, args: argparse.Namespace) -> str:
    from judgestats.bayes.binary_posterior import posterior

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = posterior(data, **posterior_options(args))
    level = args.confidence_level
    if args.json:
        return json_text(result.to_dict(prob=level))
    pct = fmt_percent(level)
    lines = [
        f"judgestats posterior (method {result.method}, {pct} credible intervals, "
        f"priors {result.prior.describe()})",
        f"  {'':<8}{'mean':>9}{'median':>9}{'ETI low':>9}{'ETI high':>9}{'HDI low':>9}"
        f"{'HDI high':>9}",
    ]
    for var in ("theta", "q0", "q1", "youden"):
        eti, hdi = result.ci(level, "eti", var), result.ci(level, "hdi", var)
        values = (result.mean(var), float(result.quantile(0.5, var)), *eti, *hdi)
        lines.append(f"  {var:<8}" + "".join(f"{v:9.4f}" for v in values))
    if result.method == "nuts":
        lines += nuts_diagnostic_lines(result.diagnostics)
    lines += check_lines(result.diagnostics)
    lines += [
        f"  warning ({key}): {message}"
        for key, message in result.to_dict(prob=level)["flags"].items()
    ]
    return "\n".join(lines)
