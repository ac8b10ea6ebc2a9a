"""``judgestats figures``: a figure of the papers, recomputed, as an image file."""

from __future__ import annotations

import argparse
from typing import Any

from judgestats.cli.arguments import INT, UserError
from judgestats.cli.printing import emit

__all__ = ["FIGURES", "add_command", "run"]

FIGURES = ("2", "3", "4", "shift", "human")


def add_command(commands: Any) -> None:
    """Add ``figures`` and its options."""
    figures = commands.add_parser(
        "figures",
        help="reproduce a figure of the papers as an image file",
        description="Recompute a figure of the papers: 2 (bias of the naive rate), 3 (interval "
        "length vs calibration size), 4 (coverage study, Lee et al., arXiv 2511.21140 v1 Fig. 4), "
        "shift (Lee et al. (ICML 2026) Fig. 7), human (Lee et al. (ICML 2026) Fig. 4).",
    )
    figures.add_argument("figure", choices=FIGURES, help="which figure")
    figures.add_argument("--output", required=True, metavar="FILE.png", help="image file")
    figures.add_argument(
        "--reps",
        type=INT,
        default=10_000,
        help="Monte Carlo replications (figures 4 and shift; default 10000)",
    )
    figures.add_argument(
        "--paper",
        choices=("000", "001"),
        default="000",
        help="figure 4: m0 + m1 = 500 (000: arXiv 2511.21140 v1) or 200 "
        "(001: Lee et al. (ICML 2026), its Fig. 5)",
    )
    figures.add_argument("--seed", type=INT, default=0, help="random seed (default 0)")


def _check_output(args: argparse.Namespace) -> None:
    """The image format (from the suffix), the output path and the seed, before drawing."""
    from pathlib import Path

    from matplotlib.backend_bases import FigureCanvasBase

    from judgestats._validate import as_generator
    from judgestats.reporting.saving import check_targets

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(args.output).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise UserError(
            f"cannot tell the image format of {args.output} from its extension "
            f"{'.' + suffix if suffix else '(none)'}; name it .png, .pdf or .svg (or "
            f"{', '.join('.' + f for f in sorted(formats) if f not in ('png', 'pdf', 'svg'))})"
        )
    check_targets([Path(args.output)])  # a folder, FIFO, device or link is refused
    as_generator(args.seed)  # a negative seed is refused before anything is drawn


def run(args: argparse.Namespace) -> int:
    """Draw the figure and write it; return the exit code."""
    import matplotlib

    matplotlib.use("Agg")
    from judgestats import plots

    if args.reps < 1:
        raise UserError(f"--reps ({args.reps}) must be at least 1")
    from pathlib import Path

    if not Path(args.output).resolve().parent.is_dir():
        raise UserError(f"cannot write {args.output}: its folder does not exist")
    _check_output(args)
    drawn = {
        "2": lambda: plots.plot_bias().figure,
        "3": lambda: plots.plot_interval_length().figure,
        "4": lambda: plots.plot_coverage_study(args.paper, reps=args.reps, random_seed=args.seed),
        "shift": lambda: plots.plot_shift(reps=args.reps, random_seed=args.seed).figure,
        "human": lambda: plots.plot_human_regions(),
    }[args.figure]()
    try:
        drawn.savefig(args.output, dpi=120, bbox_inches="tight")
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    return emit(f"wrote figure {args.figure} to {args.output}")
