"""The entry points: :func:`report` (one dataset) and :func:`report_items` (one per group).

Each runs the public API once -- :func:`judgestats.estimate` and :func:`judgestats.crosscheck`,
or :func:`judgestats.crosscheck_items` -- and records how to reproduce the result; the returned
:class:`~judgestats.Report` or :class:`~judgestats.GroupedReport` renders it.
"""

from __future__ import annotations

import datetime
import os
import platform
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._validate import check_level
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.reporting.content import GroupedReport, Report

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgestats.bayes.priors import Prior
    from judgestats.grouped import GroupedCrossChecks

__all__ = ["report", "report_items"]


def _check_seed(random_seed: Any) -> int | None:
    """The seed as an int (or None); a report shows it, so nothing else is accepted."""
    if random_seed is not None and (
        isinstance(random_seed, bool) or not isinstance(random_seed, (int, np.integer))
    ):
        raise TypeError(
            f"`random_seed` ({random_seed!r}) must be an int or None, so that the "
            "report can show it."
        )
    return None if random_seed is None else int(random_seed)


def _provenance() -> dict[str, Any]:
    """The version of judgestats, the time (UTC) and the platform, as :class:`Report` fields."""
    from judgestats._version import __version__

    return {
        "version": __version__,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "environment": {"python": platform.python_version(), "numpy": np.__version__},
    }


def report(
    data: JudgeData,
    *,
    prob: float = 0.95,
    prior: Prior | None = None,
    random_seed: int | None = 0,
    method: str = "exact",
    draws: int = 1000,
    chains: int = 4,
    source: str | os.PathLike[str] | None = None,
    command: str | None = None,
    target: str = "population",
) -> Report:
    """Compute everything a report shows for one dataset.

    Runs :func:`judgestats.estimate` (the Rogan-Gladen estimate with the Lang-Reiczigel interval,
    Lee et al., arXiv 2511.21140 v1, eqs. 4-7) and :func:`judgestats.crosscheck` (which computes
    the posterior with the same prior, method and seed as :func:`judgestats.posterior` would), at
    one level for every interval. Flags are not warned about: the report lists them, with their
    advice. Render with :meth:`Report.to_html`, :meth:`Report.to_markdown` or :meth:`Report.save`.

    Parameters
    ----------
    data : JudgeData
    prob : float, default 0.95
        Level of every interval: the confidence intervals and the credible intervals (the CLI's
        ``--confidence-level``).
    prior : Prior, optional
        Prior of the posterior (uniform, judge better than chance, by default).
    random_seed : int or None, default 0
        Seed of the posterior (NUTS draws, and the i.i.d. draws of the exact posterior's idata).
    method : {"exact", "nuts"}, default "exact"
        How the posterior is computed.
    draws, chains : int
        Posterior draws per chain and chains.
    source : str or path-like, optional
        The file the data were read from; shown with the inputs.
    command : str, optional
        The command that produced the report, shown for reproducibility (the CLI passes its own
        command line); by default the equivalent Python call.
    target : {"population", "items"}, default "population"
        What the recommended interval estimates (:func:`judgestats.crosscheck`): the accuracy of
        the process, or, for random-design data, the share of correct items among the n + m
        items evaluated. The headline states it.

    Returns
    -------
    Report

    Raises
    ------
    TypeError
        If ``data`` is not a JudgeData, or ``random_seed`` not an int or None.
    ValueError
        If ``prob`` is not strictly between 0 and 1, a posterior option is invalid, or
        ``target`` is unknown or ``"items"`` with stratified data.

    Examples
    --------
    >>> import judgestats as jc
    >>> data = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    >>> rep = jc.report(data)
    >>> rep.interval_rows()[1]
    ('Rogan-Gladen + Lang-Reiczigel', '0.1667', '0.0564', '0.2627', '0.2064')
    """
    from judgestats.designs.labels_only import check_target
    from judgestats.frequentist import estimate
    from judgestats.recommendation import crosscheck

    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    prob = check_level(prob, "prob")
    seed = _check_seed(random_seed)
    target = check_target(target, design=data.design)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # the report lists every flag
        try:
            est = estimate(data, confidence_level=prob)
        except ValueError:  # no correction; the cross-check's no_closed_form flag says why
            est = None
        checked = crosscheck(
            data,
            confidence_level=prob,
            prior=prior,
            method=method,
            random_seed=random_seed,
            draws=draws,
            chains=chains,
            target=target,
        )
    if command is None:
        command = _python_call(data, prob, prior, random_seed, method, draws, chains, target)
    return Report(
        data=data,
        prob=prob,
        crosscheck=checked,
        estimate=est,
        source=None if source is None else os.fspath(source),
        command=str(command),
        random_seed=seed,
        **_provenance(),
    )


def _python_call(
    data: JudgeData,
    prob: float,
    prior: Any,
    random_seed: int | None,
    method: str,
    draws: int,
    chains: int,
    target: str = "population",
) -> str:
    """The Python call that reproduces a report (arguments at their defaults left out)."""
    options = _python_options(prob, prior, random_seed, method, draws, chains)
    options += f", target={target!r}" if target != "population" else ""
    return f"judgestats.report(judgestats.{data!r}, {options})"


def _python_options(
    prob: float, prior: Any, random_seed: int | None, method: str, draws: int, chains: int
) -> str:
    """The keyword arguments of :func:`_python_call` that differ from their defaults."""
    options = [f"prob={prob!r}"] if prob != 0.95 else []
    options += [f"prior={prior!r}"] if prior is not None else []
    options += [f"random_seed={random_seed!r}"]
    options += [f"method={method!r}"] if method != "exact" else []
    options += [f"draws={draws!r}"] if draws != 1000 else []
    options += [f"chains={chains!r}"] if chains != 4 else []
    return ", ".join(options)


def report_items(
    items: pd.DataFrame,
    *,
    by: str | list[str] | tuple[str, ...],
    prob: float = 0.95,
    correction: str = "holm",
    design: str = "stratified",
    prior: Prior | None = None,
    random_seed: int | None = 0,
    method: str = "exact",
    draws: int = 1000,
    chains: int = 4,
    source: str | os.PathLike[str] | None = None,
    command: str | None = None,
    target: str = "population",
) -> GroupedReport:
    """Compute a grouped report: the cross-check of every group, then one section per group.

    Runs :func:`judgestats.crosscheck_items` (per group: the Rogan-Gladen estimate with the
    Lang-Reiczigel interval, Lee et al., arXiv 2511.21140 v1, eqs. 4-7, and the posterior with
    its equal-tailed and highest-density intervals), every interval at the family-adjusted level
    of ``correction`` (Bonferroni's ``1 - (1 - prob) / G`` for "holm" and "bonferroni"). The
    document shows the table across groups with the correction stated, then per group its
    counts, its cross-check table and its theta density with every interval marked, the flags
    with their advice, and a reproducibility block.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (:mod:`judgestats.io`); item ids must not repeat within a group.
    by : str or sequence of str
        The grouping column(s).
    prob : float, default 0.95
        The family-wise level of the table.
    correction : {"holm", "bonferroni", "none"}, default "holm"
        Multiplicity correction across the groups (:func:`judgestats.crosscheck_items`).
    design : {"stratified", "random"}, default "stratified"
        How the labelled items were chosen.
    prior, random_seed, method, draws, chains
        As in :func:`report`; every group's posterior uses them.
    source : str or path-like, optional
        Where the items came from (default: the frame's ``attrs["source"]``).
    command : str, optional
        The command that produced the report (the CLI passes its command line).
    target : {"population", "items"}, default "population"
        What each group's recommended interval estimates (:func:`judgestats.crosscheck_items`).

    Returns
    -------
    GroupedReport

    Raises
    ------
    TypeError
        If ``random_seed`` is not an int or None, or an argument of
        :func:`judgestats.crosscheck_items` has a wrong type.
    ValueError
        As :func:`judgestats.crosscheck_items`, or if ``prob`` is not strictly between 0 and 1.
    """
    from judgestats.grouped import crosscheck_items

    prob = check_level(prob, "prob")
    seed = _check_seed(random_seed)
    checked = crosscheck_items(
        items,
        by=by,
        design=design,
        confidence_level=prob,
        correction=correction,
        prior=prior,
        method=method,
        random_seed=random_seed,
        draws=draws,
        chains=chains,
        target=target,
    )
    provenance = _provenance()
    if command is None:
        command = _items_call(checked, prob, prior, random_seed, method, draws, chains)
        command += f", correction={correction!r}" if correction != "holm" else ""
        command += f", design={design!r}" if design != "stratified" else ""
        command += (f", target={target!r}" if target != "population" else "") + ")"
    sections = _group_sections(checked, str(command), seed, provenance)
    return GroupedReport(
        table=checked,
        sections=sections,
        source=None if source is None else os.fspath(source),
        command=str(command),
        random_seed=seed,
        **provenance,
    )


def _items_call(
    checked: GroupedCrossChecks,
    prob: float,
    prior: Any,
    random_seed: int | None,
    method: str,
    draws: int,
    chains: int,
) -> str:
    """The start of the Python call that reproduces a grouped report (without its ``)``)."""
    options = _python_options(prob, prior, random_seed, method, draws, chains)
    return f"judgestats.report_items(items, by={list(checked.by)!r}, {options}"


def _group_sections(
    checked: GroupedCrossChecks, command: str, seed: int | None, provenance: dict[str, Any]
) -> tuple[Report | None, ...]:
    """Each group's :class:`Report` at the table's per-group level (None without a cross-check)."""
    return tuple(
        None
        if row.result is None
        else Report(
            data=row.result.data,
            prob=checked.interval_level,
            crosscheck=row.result,
            estimate=row.result.estimate,
            source=None,
            command=command,
            random_seed=seed,
            **provenance,
        )
        for row in checked.rows
    )
