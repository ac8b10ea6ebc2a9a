"""``judgestats plan``: how many calibration items to label, and of which kind."""

from __future__ import annotations

import argparse
import math
import warnings
from typing import Any

from judgestats._html import fmt_percent
from judgestats.cli.arguments import COUNT, LEVEL, add_output_arguments, add_progress_argument
from judgestats.cli.inputs import progress
from judgestats.cli.printing import emit, json_text
from judgestats.exceptions import JudgeStatsWarning

__all__ = ["RULES", "add_command", "run"]

RULES = ("equal", "algorithm1", "optimal")


def add_command(commands: Any) -> None:
    """Add ``plan`` and its options."""
    plan = commands.add_parser(
        "plan",
        help="how many calibration items to label, and of which kind",
        description="Plan the calibration set from guesses of p (judged-correct rate of the test "
        "set), q0 and q1: the budget an expected interval width needs (--width), or the split "
        "and expected width of a budget (--m), under the equal split, Algorithm 1 of the paper "
        "and the exact optimum; and whether the same human labels would do better on the test "
        "set directly.",
        epilog="examples: judgestats plan --p 0.45 --q0 0.9 --q1 0.95 --width 0.1;  "
        "judgestats plan --p 0.45 --q0 0.9 --q1 0.95 --m 200",
    )
    values = plan.add_argument_group("planning values")
    values.add_argument(
        "--p", type=LEVEL, required=True, help="expected judged-correct rate of the test set"
    )
    values.add_argument("--q0", type=LEVEL, required=True, help="guess of the specificity")
    values.add_argument("--q1", type=LEVEL, required=True, help="guess of the sensitivity")
    values.add_argument(
        "--n",
        type=COUNT,
        default=math.inf,
        metavar="INT",
        help="planned test-set size (default: unlimited)",
    )
    target = plan.add_mutually_exclusive_group(required=True)
    target.add_argument("--width", type=LEVEL, help="target expected interval width")
    target.add_argument("--m", type=COUNT, metavar="INT", help="calibration budget m0 + m1")
    plan.add_argument(
        "--m-pilot",
        type=COUNT,
        default=None,
        metavar="INT",
        help="pilot items per arm for Algorithm 1 (default: q0, q1 taken as known)",
    )
    plan.add_argument(
        "--bayes",
        action="store_true",
        help="also the expected posterior credible width (needs --n; slower)",
    )
    add_output_arguments(plan)
    add_progress_argument(plan, "the budget search of --bayes --width")


def run(args: argparse.Namespace) -> int:
    """Print the plans and the human-only comparison; return the exit code."""
    from judgestats.planning import compare_human_only

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        plans, bayes = _plans(args)
        budget = plans["optimal"].total
        human = compare_human_only(budget, args.p, args.q0, args.q1, n=args.n)
    if args.json:
        output = {
            "target_width": args.width,
            "m": None if args.width is not None else budget,
            "plans": {
                name: plan.to_dict() | {"bayes_width": bayes.get(name)}
                for name, plan in plans.items()
            },
            "human_only": human.to_dict(),
        }
        return emit(json_text(output))
    return emit(_plan_text(args, plans, bayes, human))


def _plans(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, float]]:
    """The plans under each rule, and their expected posterior widths (--bayes with --m)."""
    from judgestats.planning import expected_width, optimal_allocation, required_calibration

    common = {"n": args.n, "confidence_level": args.confidence_level, "m_pilot": args.m_pilot}
    values = (args.p, args.q0, args.q1)
    if args.width is not None:
        plans = {
            rule: required_calibration(args.width, *values, allocation=rule, **common)
            for rule in RULES
        }
        if args.bayes:
            plans["optimal, bayes"] = required_calibration(
                args.width, *values, method="bayes", progress=progress(args), **common
            )
        return plans, {}
    best = optimal_allocation(args.m, *values, **common)
    plans = {rule: best.alternative(rule) for rule in RULES[:2]} | {"optimal": best}
    if not args.bayes:
        return plans, {}
    del common["m_pilot"]
    return plans, {
        name: expected_width(plan.m0, plan.m1, *values, method="bayes", **common)
        for name, plan in plans.items()
    }


def _plan_text(
    args: argparse.Namespace, plans: dict[str, Any], bayes: dict[str, float], human: Any
) -> str:
    """The plans as a table, the human-only comparison and the plans' warnings."""
    first = plans["optimal"]
    n = "unlimited" if math.isinf(args.n) else f"{int(args.n)}"
    head = (
        f"target expected width {args.width:.4f}: smallest budget under each rule"
        if args.width is not None
        else f"budget m = {first.total}: split under each rule"
    )
    w = max(7, *(len(str(plan.total)) for plan in plans.values())) + 1  # 10^12 fits
    lines = [
        f"judgestats plan: p = {first.p:.4f}, q0 = {first.q0:.4f}, q1 = {first.q1:.4f}, "
        f"test set n = {n}, {fmt_percent(first.confidence_level)} interval",
        f"  {head}",
        f"  {'rule':<16}{'m0':>{w}}{'m1':>{w}}{'total':>{w}}{'width':>9}{'plug-in':>9}"
        + (f"{'bayes':>9}" if bayes else ""),
    ]
    for name, plan in plans.items():
        lines.append(
            f"  {name:<16}{plan.m0:>{w}}{plan.m1:>{w}}{plan.total:>{w}}{plan.width:9.4f}"
            f"{plan.plugin_width:9.4f}" + (f"{bayes[name]:9.4f}" if bayes else "")
        )
    lines.append(
        "  width: expected over the sampling distribution of the counts; plug-in: at "
        "the planning values (arXiv 2511.21140 v1 Fig. 3); bayes: expected credible width"
    )
    flags = dict.fromkeys(message for plan in plans.values() for message in plan.flag_messages)
    lines += ["", str(human)] + [f"  warning: {message}" for message in flags]
    return "\n".join(lines)
