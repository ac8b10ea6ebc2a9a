"""The report a reviewer opens: :func:`report` -> :class:`Report` -> HTML or Markdown.

A report holds the results of the public API for one dataset -- :func:`judgestats.estimate`,
:func:`judgestats.crosscheck` and the :func:`judgestats.posterior` inside the cross-check -- and
renders them as a stand-alone document: the inputs, the recommended interval (or, while the
cross-check makes no single recommendation, its table and notes), the posterior density of theta
with every interval marked, the judge's quality (q0, q1 and Youden's J with credible intervals),
every flag with its advice, and a reproducibility block. :func:`report_items` does the same for
every group of an items frame (:class:`GroupedReport`: the table across groups, then one section
per group, rendered with the same pieces). :func:`labelling_report` reports a
:class:`~judgestats.LabellingSession` (:class:`LabellingReport`: the anytime-valid interval now
and its path over the labels, :mod:`~judgestats.reporting.labelling`).

Numbers are printed with the CLI's rounding (four decimals; three for the posterior checks) so
the report shows exactly what ``judgestats estimate``, ``judgestats posterior`` and
``judgestats crosscheck`` print for the same input.

Figures (matplotlib, imported only when a figure is drawn):

- HTML: embedded as base64 PNG ``data:`` URIs, so the file stands alone.
- Markdown: :meth:`Report.save` writes the PNG files next to the ``.md`` file
  (``<stem>_theta.png``, ``<stem>_judge.png``) and links them by relative name, which GitHub,
  pandoc and LaTeX converters all follow; :meth:`Report.to_markdown` without ``figure_stem``
  (or ``save(..., embed_figures=True)``) embeds ``data:`` URIs instead, for a single file.

Modules: :mod:`~judgestats.reporting.content` (what a report says, as data: :class:`Report`,
:class:`GroupedReport` and their base), :mod:`~judgestats.reporting.build` (:func:`report`,
:func:`report_items`), :mod:`~judgestats.reporting.html` and
:mod:`~judgestats.reporting.markdown` (the renderers), :mod:`~judgestats.reporting.figures`,
:mod:`~judgestats.reporting.layout` (fixed wording) and :mod:`~judgestats.reporting.saving`
(all-or-nothing writes).
"""

from judgestats.reporting.build import report, report_items
from judgestats.reporting.content import GroupedReport, Report
from judgestats.reporting.labelling import LabellingReport, labelling_report
from judgestats.reporting.layout import FIGURES
from judgestats.reporting.saving import FORMATS

__all__ = [
    "FIGURES",
    "FORMATS",
    "GroupedReport",
    "LabellingReport",
    "Report",
    "labelling_report",
    "report",
    "report_items",
]
