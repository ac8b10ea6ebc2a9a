"""The examples that end every command's ``--help``, and the formatter that prints them as written.

Each example runs as it stands from the repository root (the bundled example files ship inside
the package; ``judgestats demo --show-data`` prints where); ``tests/test_cli_help.py`` runs them.
"""

from __future__ import annotations

import argparse

__all__ = ["EXAMPLES", "HelpFormatter", "epilog"]

_ITEMS = "src/judgestats/datasets/example_items.csv"
_INSPECT = "src/judgestats/datasets/example_inspect.eval"
_LM_EVAL = "src/judgestats/datasets/example_lm_eval_samples.jsonl"
_HUMAN = "src/judgestats/datasets/example_human_labels.csv"
_COUNTS = "--k 400 --n 1000 --k0 140 --m0 200 --k1 180 --m1 200"

#: Each command's examples: (what it does, the command line).
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "estimate": (
        ("from the six counts", f"judgestats estimate {_COUNTS}"),
        (
            "from a table of items (a human label on the checked rows)",
            f"judgestats estimate --items {_ITEMS} --judge-column verdict "
            "--human-column human_label --positive C",
        ),
        (
            "from an Inspect AI log whose reviewed items are a random sample",
            f"judgestats estimate --log {_INSPECT} --scorer model_graded_qa --design random",
        ),
        (
            "the interval whose coverage holds by construction",
            f"judgestats estimate {_COUNTS} --interval guaranteed",
        ),
    ),
    "posterior": (
        ("the exact posterior", f"judgestats posterior {_COUNTS}"),
        (
            "with an informative prior, as JSON",
            f"judgestats posterior {_COUNTS} --prior-q0 8 2 --prior-q1 9 1 --json",
        ),
    ),
    "crosscheck": (
        (
            "the recommended interval, then both methods side by side",
            f"judgestats crosscheck {_COUNTS}",
        ),
        (
            "on a table of items",
            f"judgestats crosscheck --items {_ITEMS} --judge-column verdict "
            "--human-column human_label --positive C",
        ),
    ),
    "demo": (
        ("the estimate and the cross-check on the bundled example", "judgestats demo"),
        ("where the bundled example files are", "judgestats demo --show-data"),
    ),
    "plan": (
        (
            "the budget an expected width of 0.1 needs, and its split",
            "judgestats plan --p 0.45 --q0 0.9 --q1 0.95 --width 0.1",
        ),
        (
            "the split and expected width of a budget of 200 labels",
            "judgestats plan --p 0.45 --q0 0.9 --q1 0.95 --m 200",
        ),
    ),
    "figures": (
        (
            "the bias of the naive rate (Lee et al. v1 Fig. 2)",
            "judgestats figures 2 --output fig2.png",
        ),
        (
            "the coverage study with fewer replications",
            "judgestats figures 4 --output fig4.png --reps 200",
        ),
    ),
    "compare": (
        (
            "two models from their counts (K,N,K0,M0,K1,M1)",
            "judgestats compare --a 420,1000,160,200,175,200 --b 380,1000,150,200,170,200",
        ),
        (
            "under a shared calibration, by bootstrap",
            "judgestats compare --a 420,1000,160,200,175,200 --b 380,1000,150,200,170,200 "
            "--calibration shared --method bootstrap --seed 1",
        ),
    ),
    "report": (
        ("an HTML page to hand a reviewer", f"judgestats report {_COUNTS} --output report.html"),
        (
            "Markdown with the figures embedded, from a table of items",
            f"judgestats report --items {_ITEMS} --judge-column verdict "
            "--human-column human_label --positive C --output appendix.md --embed-figures",
        ),
    ),
    "next": (
        (
            "the first batch of 20 to label, before any label",
            f"judgestats next --items {_ITEMS} --judge-column verdict --positive C --batch 20",
        ),
        (
            "after the labels in the table's human_label column, until the interval is 0.2 wide",
            f"judgestats next --items {_ITEMS} --judge-column verdict --human-column human_label "
            "--positive C --batch 20 --width 0.2",
        ),
        (
            "an lm-eval log with a file of the labels so far, for the accuracy of the process",
            f"judgestats next --log {_LM_EVAL} --scorer acc --human {_HUMAN} --batch 10 "
            "--width 0.1 --target population",
        ),
    ),
}


def epilog(command: str) -> str:
    """The ``examples:`` block that ends ``judgestats COMMAND --help``."""
    lines = ["examples:"]
    for what, line in EXAMPLES[command]:
        lines += [f"  # {what}", f"  {line}"]
    return "\n".join(lines)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps the description as argparse does; prints the ``examples:`` epilog as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)
