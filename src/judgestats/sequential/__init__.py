"""Sequential labelling: which items to label next, and intervals valid whenever you stop.

* :mod:`judgestats.sequential.confidence_sequence` -- betting confidence sequences for the mean
  of [0, 1] values (with or without replacement);
* :mod:`judgestats.sequential.targets` -- the two random-design targets from verdicts and
  sequential labels;
* :mod:`judgestats.sequential.active` -- active selection by judge scores, with an
  inverse-probability-weighted confidence sequence;
* :mod:`judgestats.sequential.session` -- :class:`LabellingSession`, the labelling loop;
* :mod:`judgestats.sequential.stratified` -- :class:`StratifiedLabellingSession`, the stratified
  design's calibration made sequential (Algorithm 1 per draw, an interval valid at stopping);
* :mod:`judgestats.sequential.result` -- :class:`SequentialInterval`.
"""

from judgestats.sequential.confidence_sequence import betting_confidence_sequence
from judgestats.sequential.result import SequentialInterval
from judgestats.sequential.session import LabellingSession
from judgestats.sequential.stratified import StratifiedLabellingSession

__all__ = [
    "LabellingSession",
    "SequentialInterval",
    "StratifiedLabellingSession",
    "betting_confidence_sequence",
]
