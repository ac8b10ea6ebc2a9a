r"""Linear functionals of the class shares: the numbers analysts report from K-class verdicts.

Every reported number here is :math:`a^\top \pi` for a weight vector ``a`` over the classes:

* the share of one class or of several (``a`` = 1 on them, 0 elsewhere): the share of top
  scores, the share of "correct or partially correct";
* the mean score (``a`` = the score of each class, e.g. 1..5 for a rubric);
* the win rate of a pairwise comparison with ties counted as half, as Chatbot Arena counts
  them (``a`` = 1 for "A wins", 1/2 for "tie", 0 for "B wins").

A functional's range over the simplex is ``[min(a), max(a)]``; intervals are truncated to it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np

from judgestats._validate import refuse_masked
from judgestats.kclass.data import class_position

__all__ = [
    "check_weights",
    "mean_score_weights",
    "share_label",
    "share_weights",
    "win_rate_label",
    "win_rate_weights",
]


def _real(value: Any, argument: str, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{argument}` must hold real numbers; got {value!r} {where}.")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"`{argument}` must hold finite numbers; got {value!r} {where}.")
    return number


def _array_like(weights: Any) -> bool:
    """True for a list, tuple, numpy array, pandas Series or other array-like (not a string)."""
    if isinstance(weights, (str, bytes, AbstractSet)):
        return False
    if isinstance(weights, (Sequence, np.ndarray)):
        return True
    try:
        return np.ndim(weights) >= 1
    except (TypeError, ValueError):
        return False


def check_weights(classes: tuple[Any, ...], weights: Any, argument: str = "weights") -> np.ndarray:
    """A functional's weight vector over ``classes``, validated.

    Parameters
    ----------
    classes : tuple
        The class names, in order.
    weights : array-like of float or mapping
        One weight per class, in the order of ``classes`` (a list, tuple, numpy array or
        pandas Series with the default index 0..K-1, read by position); or a mapping from class
        names to weights, the classes left out weighing 0 (a pandas Series indexed by class
        names is read as such a mapping).
    argument : str
        The argument name used in error messages.

    Returns
    -------
    numpy.ndarray
        A new float64 array of length K.

    Raises
    ------
    TypeError
        If ``weights`` is neither a sequence nor a mapping, or a weight is not a real number.
    ValueError
        If a sequence has the wrong length, a mapping names an unknown class, a weight is not
        finite, or every weight is equal (the functional is then a constant).
    """
    size = len(classes)
    out = np.zeros(size)
    if _labelled_series(weights):
        weights = weights.to_dict()
    if isinstance(weights, Mapping):
        if not weights:
            raise ValueError(f"`{argument}` is empty: give a weight for at least one class.")
        for name, value in weights.items():
            out[class_position(classes, name, argument)] = _real(value, argument, f"for {name!r}")
    elif _array_like(weights):
        refuse_masked(weights, argument)
        array = np.asarray(weights, dtype=object)
        if array.ndim != 1 or len(array) != size:
            raise ValueError(
                f"`{argument}` must hold one weight per class ({size}: {list(classes)!r}), got "
                f"shape {array.shape}; or pass a mapping from class names to weights."
            )
        for index, value in enumerate(array.tolist()):
            out[index] = _real(value, argument, f"at position {index}")
    else:
        raise TypeError(
            f"`{argument}` must be a sequence of one weight per class or a mapping from class "
            f"names to weights, got {type(weights).__name__}."
        )
    if np.all(out == out[0]):
        raise ValueError(
            f"`{argument}` gives every class the same weight ({out[0]:g}), so the functional is "
            "the constant it equals whatever the shares; give classes different weights."
        )
    return out


def _labelled_series(weights: Any) -> bool:
    """A pandas Series whose index is not the default 0..len-1 (its index names classes)."""
    if type(weights).__name__ != "Series" or not hasattr(weights, "to_dict"):
        return False
    return list(weights.index) != list(range(len(weights)))


def share_weights(classes: tuple[Any, ...], names: Any) -> np.ndarray:
    """Weights of the share of one class, or the summed share of several (1 on them, else 0)."""
    chosen = [names] if isinstance(names, (str, numbers.Integral)) else list(names)
    if not chosen:
        raise ValueError("`classes` is empty: name at least one class whose share you want.")
    out = np.zeros(len(classes))
    for name in chosen:
        out[class_position(classes, name, "classes")] = 1.0
    if out.all():
        raise ValueError(
            "`classes` names every class, whose shares sum to 1 by definition; name fewer."
        )
    return out


def mean_score_weights(classes: tuple[Any, ...], scores: Any = None) -> np.ndarray:
    """Weights of the mean score: ``scores`` (one per class or a mapping) or the classes' values.

    Without ``scores`` the classes must be numbers (a 1-5 rubric), which are the scores.
    """
    if scores is None:
        if not all(isinstance(c, numbers.Integral) for c in classes):
            raise ValueError(
                f"the classes {list(classes)!r} are not numbers, so give `scores`: the score "
                "of each class (a sequence in class order, or a mapping)."
            )
        return check_weights(classes, [float(c) for c in classes], "scores")
    return check_weights(classes, scores, "scores")


def win_rate_weights(classes: tuple[Any, ...], win: Any, tie: Any = None) -> np.ndarray:
    """Weights of a win rate: 1 for the ``win`` class, 1/2 for the ``tie`` class, 0 otherwise."""
    out = np.zeros(len(classes))
    out[class_position(classes, win, "win")] = 1.0
    if tie is not None:
        position = class_position(classes, tie, "tie")
        if out[position]:
            raise ValueError(f"`tie` ({tie!r}) and `win` ({win!r}) must be different classes.")
        out[position] = 0.5
    return out


def share_label(classes: tuple[Any, ...], weights: np.ndarray) -> str:
    """The label of a share functional: ``"share of 'A'"``, ``"share of 4, 5"``."""
    shown = ", ".join(repr(c) for c, w in zip(classes, weights, strict=True) if w)
    return f"share of {shown}"


def win_rate_label(win: Any, tie: Any) -> str:
    """The label of a win rate: ``"win rate of 'A' (ties count half)"``."""
    return f"win rate of {win!r}" + (" (ties count half)" if tie is not None else "")
