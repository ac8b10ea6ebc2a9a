"""Argument validators: each returns a normalised value or raises.

The error policy of judgestats lives here (see DESIGN.md, "Error and warning policy"):

* a bad *type* raises :class:`TypeError`, a bad *value* raises :class:`ValueError`;
* every message names the argument in backticks, shows the value received and says what is
  allowed, e.g. "`k` (1200) must not exceed `n` (1000).";
* for arrays the message shows the first offending element and its index;
* inputs are never modified: arrays are read, never written.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "install_hint",
    "CORRECTIONS",
    "DESIGNS",
    "INTERVAL_KINDS",
    "POSTERIOR_METHODS",
    "check_broadcast",
    "check_classes",
    "check_design",
    "check_flag",
    "frozen_copy",
    "as_generator",
    "as_real_array",
    "check_choice",
    "check_counts",
    "check_level",
    "check_not_exceeding",
    "check_one_dimensional",
    "check_posterior_options",
    "check_positive_int",
    "check_draws",
    "MAX_SAMPLES",
    "check_proportions",
    "refuse_masked",
    "first_bad",
    "is_xarray",
]


def is_xarray(value: Any) -> bool:
    """Return True for an ``xarray.DataArray`` without importing xarray."""
    return type(value).__module__.startswith("xarray") and hasattr(value, "dims")


def _format_number(value: Any) -> str:
    """Format a number for an error message: integral values without a decimal point."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isfinite(value) and value == int(value) and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    return repr(value)


def first_bad(values: np.ndarray, bad: np.ndarray) -> str:
    """Describe the first element of ``values`` flagged in ``bad`` for an error message.

    Returns ``"(value)"`` for a 0-d array and ``"; got value at index i"`` otherwise.
    """
    if values.ndim == 0:
        return f"({_format_number(values[()])})"
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = index[0] if len(index) == 1 else index
    return f"; got {_format_number(values[index])} at index {where}"


def _message(name: str, values: np.ndarray, bad: np.ndarray, rule: str) -> str:
    detail = first_bad(values, bad)
    if values.ndim == 0:
        return f"`{name}` {detail} {rule}."
    return f"`{name}` {rule}{detail}."


def refuse_masked(value: Any, name: str) -> None:
    """Raise TypeError for a numpy masked array: ``numpy.asarray`` drops its mask silently."""
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            f"`{name}` is a numpy masked array, whose mask judgestats would not honour; pass "
            f"the values to use (e.g. `{name}.compressed()`, or `.filled(...)`), or mark "
            "unlabelled items with NaN where missing values are allowed."
        )


def as_real_array(value: Any, name: str) -> np.ndarray:
    """Convert ``value`` to a numeric numpy array without copying when possible.

    Raises
    ------
    TypeError
        If ``value`` is a string, a boolean (alone or among numbers), ``None``, a masked array,
        or anything that is not a real number or an array of real numbers.
    """
    refuse_masked(value, name)
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"`{name}` must be a real number or an array of them, got {value!r}.")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be a real number, not a boolean ({value!r}).")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"`{name}` must be a real number or an array of them ({error}).") from None
    if array.dtype.kind == "b":
        raise TypeError(f"`{name}` must hold real numbers, not booleans.")
    if array.ndim and (array.dtype.kind == "O" or not hasattr(value, "dtype")):
        items = np.array(value, dtype=object)  # numpy reads [True, 1] as [1, 1]: refuse it
        bad = np.frompyfunc(lambda v: isinstance(v, (bool, np.bool_)), 1, 1)(items).astype(bool)
        if bad.any():
            where = first_bad(items, bad)
            raise TypeError(f"`{name}` must hold real numbers, not booleans{where}.")
    if array.dtype.kind == "O" and array.size:
        _check_integer_range(array, name)
    if array.dtype.kind not in "iuf":
        raise TypeError(
            f"`{name}` must be a real number or an array of them, got {type(value).__name__} "
            f"with dtype {array.dtype}."
        )
    return array


def check_one_dimensional(array: np.ndarray, name: str) -> np.ndarray:
    """``array`` if it is one-dimensional; ValueError naming ``name`` and its shape otherwise."""
    if array.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional, got shape {array.shape}.")
    return array


def check_broadcast(**arrays: Any) -> tuple[int, ...]:
    """The common shape of array arguments; raise naming two that do not broadcast together.

    Raises
    ------
    ValueError
        "`q0` has shape (3,) and `p` has shape (2,), which do not broadcast together ..."
    """
    shape: tuple[int, ...] = ()
    seen: list[str] = []
    for name, array in arrays.items():
        try:
            shape = np.broadcast_shapes(shape, np.shape(array))
        except ValueError:
            other = next(
                (o for o in seen if not _broadcasts(np.shape(arrays[o]), np.shape(array))),
                seen[-1],
            )
            raise ValueError(
                f"`{name}` has shape {np.shape(array)} and `{other}` has shape "
                f"{np.shape(arrays[other])}, which do not broadcast together: give arrays of "
                "one shape (or scalars, which apply to every element)."
            ) from None
        seen.append(name)
    return shape


def _broadcasts(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(first, second)
    except ValueError:
        return False
    return True


#: Whole numbers up to 2**53 are exact in floating point; the largest float, as an int.
MAX_EXACT_COUNT, _LARGEST_FLOAT = 2**53, int(np.finfo(np.float64).max)


def _check_integer_range(array: np.ndarray, name: str) -> None:
    """Raise for whole numbers beyond numpy's 64-bit integers (they would become objects)."""
    values = array.ravel().tolist()  # booleans are refused before; a non-number: a TypeError
    if not all(isinstance(v, numbers.Integral) for v in values):
        return
    big = int(max(values, key=lambda v: abs(int(v))))
    if abs(big) >= 2**63:
        if abs(big) > _LARGEST_FLOAT:  # float(big) and str(big) would raise themselves
            shown = f"about {'-' * (big < 0)}10**{int(abs(big).bit_length() * math.log10(2))}"
            hint = "it is beyond the range of floating-point numbers as well"
        else:
            shown = str(big)
            hint = f"give a float (e.g. {float(big):.3g}) if an approximate value will do"
        raise ValueError(
            f"`{name}` ({shown}) is too large: whole numbers must lie below 2**63 "
            f"({2**63 - 1}), the range of numpy's 64-bit integers; {hint}."
        )


def check_level(value: Any, name: str = "confidence_level") -> float:
    """Return a confidence or credibility level as a float strictly inside (0, 1).

    ``name="alpha"`` checks a miss probability instead (the paper's convention): the example
    in the message is then 0.05, not 0.95.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a real number in (0, 1), got {value!r}.")
    level = float(value)
    if not 0.0 < level < 1.0:  # also rejects NaN
        example = (
            "e.g. 0.05 for a 95% interval (alpha is 1 - the level)"
            if name == "alpha"
            else "e.g. 0.95 for a 95% interval"
        )
        raise ValueError(
            f"`{name}` ({_format_number(value)}) must lie strictly between 0 and 1, {example}."
        )
    return level


def check_proportions(value: Any, name: str) -> np.ndarray:
    """Validate proportions: finite reals in [0, 1]. Returns a float64 array (maybe 0-d)."""
    array = as_real_array(value, name).astype(np.float64, copy=False)
    if array.size and not (array.min() >= 0.0 and array.max() <= 1.0):  # NaN fails both
        bad = ~((array >= 0.0) & (array <= 1.0))
        first = array[tuple(np.argwhere(bad)[0])] if array.ndim else array[()]
        rule = (
            "must lie in [0, 1]" if np.isfinite(first) else "must be a finite proportion in [0, 1]"
        )
        raise ValueError(_message(name, array, bad, rule))
    return array


def check_counts(value: Any, name: str, *, minimum: int = 0, allow_inf: bool = False) -> np.ndarray:
    """Validate counts: non-negative integers (integral floats accepted), at least ``minimum``.

    ``numpy.inf`` is accepted when ``allow_inf`` is True (a test set of unlimited size).
    Returns an int64 or float64 array (maybe 0-d); the input is not modified.
    """
    array = as_real_array(value, name)
    if not array.size:
        return array
    if array.dtype.kind == "f":
        finite = np.isfinite(array)
        whole = np.where(finite, array == np.floor(np.where(finite, array, 0.0)), False)
        allowed = (whole & (array >= minimum)) | (np.isposinf(array) if allow_inf else False)
    elif array.min() >= minimum:
        return array
    else:
        allowed = array >= minimum
    if not allowed.all():
        bad = ~allowed
        first = float(array[tuple(np.argwhere(bad)[0])] if array.ndim else array[()])
        if math.isnan(first) or (math.isinf(first) and not allow_inf):
            rule = (
                "must be a non-negative integer or inf"
                if allow_inf
                else "must be a finite non-negative integer"
            )
        elif first < minimum:
            rule = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
        else:
            rule = "must be a whole number (a count)"
        raise ValueError(_message(name, array, bad, rule))
    return array


def check_open_probabilities(value: Any, name: str) -> np.ndarray:
    """Validate probabilities strictly inside (0, 1) (a scalar or an array); returns floats."""
    refuse_masked(value, name)
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"`{name}` must be a probability or an array of them, got {value!r}.")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"`{name}` must be a probability or an array of them, got {value!r}."
        ) from None
    if array.size and not (np.all(array > 0) and np.all(array < 1)):
        bad = array[~((array > 0) & (array < 1))].ravel()[0]
        raise ValueError(f"`{name}` ({bad!r}) must lie strictly between 0 and 1.")
    return array


def check_choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    """Validate a string option against its allowed values (``method``, ``design`` ...).

    A value that is not a string is a TypeError; a string that is not allowed is a ValueError;
    both messages list the allowed values.
    """
    options = ", ".join(repr(a) for a in allowed)
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a string, one of {options}; got {value!r}.")
    if value not in allowed:
        raise ValueError(f"`{name}` ({value!r}) must be one of {options}.")
    return value


#: The calibration designs a :class:`~judgestats.JudgeData` records (see :mod:`judgestats.data`).
DESIGNS = ("stratified", "random")

#: Multiplicity corrections across groups (:func:`judgestats.estimate_items` ``correction``).
CORRECTIONS = ("holm", "bonferroni", "none")

#: Credible-interval kinds: equal-tailed and highest-density (``Posterior.ci(kind=...)``).
INTERVAL_KINDS = ("eti", "hdi")

#: Engines of the binary posterior (``posterior(method=...)``, ``--method``).
POSTERIOR_METHODS = ("exact", "nuts")


def check_flag(value: Any, name: str, *, allow_none: bool = False) -> Any:
    """A True/False option as a ``bool`` (None kept if ``allow_none``); TypeError for "no", 0."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        allowed = "True, False or None" if allow_none else "True or False"
        raise TypeError(f"`{name}` must be {allowed}, got {value!r}.")
    return bool(value)


def check_design(design: Any) -> str:
    """Return ``design`` if it is one of :data:`DESIGNS`; raise otherwise."""
    if not isinstance(design, str):
        raise TypeError(f"`design` must be 'stratified' or 'random', got {design!r}.")
    if design not in DESIGNS:
        raise ValueError(
            f"`design` ({design!r}) must be 'stratified' (m0 and m1 chosen by design) or "
            "'random' (a random labelled subsample of the test items)."
        )
    return design


def frozen_copy(values: Any, dtype: Any = None) -> np.ndarray:
    """A read-only copy of ``values`` (never a view of the caller's array), as ``dtype``.

    ``dtype=None`` keeps the input's dtype. Result objects hold their arrays this way, so a
    frozen dataclass stays frozen all the way down.
    """
    out = np.array(values, dtype=dtype, copy=True)
    out.flags.writeable = False
    return out


#: The most draws (``draws`` x ``chains``), tuning steps, proposals, resamples or replications
#: one call may ask for: each is held in memory (1e12 would need terabytes).
MAX_SAMPLES = 10**7


def check_positive_int(value: Any, name: str, *, maximum: int | None = None) -> int:
    """Validate a single positive integer option (``draws``, ``chains``, ``cores`` ...).

    A boolean or a non-number is a TypeError; a number that is not a whole number of at least
    1, or above ``maximum`` (e.g. :data:`MAX_SAMPLES`), is a ValueError. Integral floats
    (``4.0``) are accepted.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"`{name}` must be a positive integer, got {value!r}.")
    if not (math.isfinite(value) and value == math.floor(value) and value >= 1):
        raise ValueError(f"`{name}` ({value!r}) must be a positive integer.")
    if maximum is not None and value > maximum:
        raise ValueError(
            f"`{name}` ({_format_number(value)}) must be at most {maximum:,}: every one is "
            "held in memory, so a larger request would not finish (or not fit)."
        )
    return int(value)


def check_draws(draws: Any, chains: Any, **more: Any) -> tuple[int, ...]:
    """``draws``, ``chains`` and the ``more`` sizes, each and draws x chains <= MAX_SAMPLES."""
    sizes = {"draws": draws, "chains": chains, **more}
    out = {name: check_positive_int(v, name, maximum=MAX_SAMPLES) for name, v in sizes.items()}
    if out["draws"] * out["chains"] > MAX_SAMPLES:
        raise ValueError(
            f"`draws` x `chains` ({out['draws']:,} x {out['chains']:,}) must be at most "
            f"{MAX_SAMPLES:,}: every draw is held in memory."
        )
    return tuple(out.values())


def check_positive_real(value: Any, name: str, what: str = "") -> float:
    """Validate a single finite number greater than 0 (a prior scale, a Beta parameter ...).

    The policy of :func:`check_positive_int`: TypeError for a non-number (booleans included),
    ValueError for a value outside (0, inf); ``what`` adds what the number is to the message.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a positive number, got {value!r}.")
    if not 0.0 < float(value) < math.inf:
        extra = f" ({what})" if what else ""
        raise ValueError(f"`{name}` ({value!r}) must be a finite number greater than 0{extra}.")
    return float(value)


def check_posterior_options(options: Mapping[str, object], function: str) -> None:
    """Raise TypeError naming ``function`` (not posterior) for a keyword not a PosteriorOptions."""
    from judgestats._typing import PosteriorOptions

    allowed = PosteriorOptions.__optional_keys__
    unknown = [key for key in options if key not in allowed]
    if unknown:
        raise TypeError(
            f"{function}() got an unexpected keyword argument {unknown[0]!r}; besides its own, "
            f"it accepts the options of posterior(): {', '.join(sorted(allowed))}."
        )


def check_not_exceeding(
    part: np.ndarray, whole: np.ndarray, part_name: str, whole_name: str
) -> None:
    """Raise ValueError unless ``part <= whole`` elementwise (message shows both values)."""
    bad = np.asarray(part > whole)
    if bad.any():
        if bad.ndim == 0:
            raise ValueError(
                f"`{part_name}` ({_format_number(part[()])}) must not exceed "
                f"`{whole_name}` ({_format_number(whole[()])})."
            )
        part_b, whole_b = np.broadcast_arrays(part, whole)
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"`{part_name}` must not exceed `{whole_name}`; at index "
            f"{index[0] if len(index) == 1 else index} `{part_name}` is "
            f"{_format_number(part_b[index])} and `{whole_name}` is "
            f"{_format_number(whole_b[index])}."
        )


def as_generator(random_seed: Any) -> np.random.Generator:
    """Turn ``random_seed`` (None, an int or a Generator) into a Generator; never the global RNG."""
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    if random_seed is None:
        return np.random.default_rng()
    if isinstance(random_seed, numbers.Integral) and not isinstance(random_seed, (bool, np.bool_)):
        if random_seed < 0:
            raise ValueError(
                f"`random_seed` ({int(random_seed)}) must be a non-negative integer "
                "(numpy seeds are 0 or more), None, or a numpy Generator."
            )
        return np.random.default_rng(int(random_seed))
    raise TypeError(
        f"`random_seed` must be None, an int or a numpy Generator, got {random_seed!r}."
    )


def no_correction_message(q0: float, q1: float, smoothed: bool) -> str:
    """The error for a judge no better than chance (J = q0 + q1 - 1 <= 0), raw or Laplace-adjusted.

    ``smoothed`` selects the wording for the adjusted judge of Lee et al. v1 eq. (6), whose
    q0~ + q1~ - 1 <= 0 leaves the interval of eq. (5) undefined.
    """
    j = q0 + q1 - 1.0
    if smoothed:
        return (
            "the judge is no better than chance after the Laplace adjustment of eq. (6): "
            f"q0~ + q1~ - 1 = {j:.6g} <= 0 (q0~ = {q0:.6g}, q1~ = {q1:.6g}), so the interval of "
            "eq. (5) does not exist. Its verdicts carry no usable information about the true "
            "accuracy: use a better judge, label more calibration items, or check that the "
            "calibration labels are not swapped."
        )
    return (
        f"the judge is no better than chance: q0 + q1 - 1 = {j:.6g} <= 0 (q0 = {q0:.6g}, "
        f"q1 = {q1:.6g}), so its verdicts carry no information about the true accuracy and no "
        "correction exists. Use a better judge or check that the calibration labels are not "
        "swapped."
    )


def as_scalar(array: np.ndarray, name: str) -> float:
    """The single number in a checked 0-d array; TypeError naming ``name`` for an array."""
    if array.ndim:
        raise TypeError(f"`{name}` must be a single number, got an array of shape {array.shape}.")
    return float(array)


def check_scalar_count(value: Any, name: str, minimum: int = 0) -> int:
    """A single whole number >= ``minimum`` (:func:`check_counts`), as an exact int (no float)."""
    array = check_counts(value, name, minimum=minimum)
    as_scalar(array, name)  # one value, or the error naming it
    return int(array[()])


#: The six counts of a judge evaluation, and which count is part of which total.
SIX_COUNTS = ("k", "n", "k0", "m0", "k1", "m1")
_PARTS = (("k", "n"), ("k0", "m0"), ("k1", "m1"))


def check_six_counts(
    values: dict[str, Any],
    *,
    arm_minimum: int = 0,
    labelled_minimum: int = 0,
    scalar: bool = False,
    int64: bool = False,
) -> dict[str, np.ndarray]:
    """The one check of the counts (k, n, k0, m0, k1, m1), or of any of the three pairs.

    ``values`` maps count names (a subset of :data:`SIX_COUNTS` made of whole pairs, e.g. only
    ``k0, m0, k1, m1``) to counts. Every count is a whole non-negative number; ``n`` is at least
    1, each arm ``m0``, ``m1`` at least ``arm_minimum``, their sum at least ``labelled_minimum``;
    a part never exceeds its total. With ``scalar=True`` each count must be a single number; with
    it or ``int64=True`` (arrays the caller turns into int64) none exceeds 2**63 - 1.

    Returns
    -------
    dict of numpy.ndarray
        The validated counts, in the order given (not broadcast; the caller decides the dtype).

    Raises
    ------
    TypeError
        For a non-numeric count, or an array where ``scalar=True``.
    ValueError
        For a negative, non-whole or too small count, or a part larger than its total; the
        message names the argument and shows the value.
    """
    checked: dict[str, np.ndarray] = {}
    for name, value in values.items():
        minimum = 1 if name == "n" else arm_minimum if name in ("m0", "m1") else 0
        array = check_counts(value, name, minimum=minimum)
        if scalar:
            as_scalar(array, name)
        if (scalar or int64) and array.size and (largest := np.max(array)) >= 2**63:
            raise ValueError(
                f"`{name}` ({_format_number(largest)}) must be at most 2**63 - 1 ({2**63 - 1}), "
                "the range of numpy's 64-bit integers, in which the counts are computed."
            )
        checked[name] = array
    for part, whole in _PARTS:
        if part in checked and whole in checked:
            check_not_exceeding(checked[part], checked[whole], part, whole)
    if labelled_minimum and "m0" in checked and "m1" in checked:
        total = checked["m0"] + checked["m1"]
        if np.any(total < labelled_minimum):
            raise ValueError(
                f"`m0` + `m1` ({_format_number(np.min(total))}) must be at least "
                f"{labelled_minimum}: the calibration needs labelled items."
            )
    return checked


def check_classes(classes: Any) -> tuple[Any, ...]:
    """Class names of a K-class judge: at least two unique strings or integers (not booleans).

    A list, a tuple or a one-dimensional numpy array (e.g. the output of ``numpy.unique``) is
    accepted. Two names may not read the same once written as text (``1`` and ``"1"``): they
    would collide in summaries, dictionary keys and model coordinates.

    Returns them as a tuple, numpy integers and strings as ``int`` and ``str``; TypeError /
    ValueError name ``classes``.
    """
    if isinstance(classes, np.ndarray):
        classes = check_one_dimensional(classes, "classes").tolist()
    if isinstance(classes, (str, bytes)) or not isinstance(classes, (list, tuple)):
        raise TypeError(
            "`classes` must be a list or tuple (or a 1-D array) of class names (strings or "
            f"integers), in the order wanted; got {type(classes).__name__}."
        )
    if len(classes) < 2:
        raise ValueError(
            f"`classes` ({list(classes)!r}) must name at least two classes: a judge with one "
            "verdict measures nothing."
        )
    for index, name in enumerate(classes):
        if isinstance(name, (bool, np.bool_)) or not isinstance(name, (str, numbers.Integral)):
            raise TypeError(
                f"`classes` must hold strings or integers; got {name!r} "
                f"({type(name).__name__}) at index {index}."
            )
        if isinstance(name, str) and not name.strip():
            raise ValueError(f"`classes` must hold non-empty names; got {name!r} at index {index}.")
    plain = tuple(int(c) if isinstance(c, numbers.Integral) else str(c) for c in classes)
    seen: dict[str, Any] = {}
    for name in plain:
        if str(name) not in seen:
            seen[str(name)] = name
            continue
        earlier = seen[str(name)]
        if earlier == name:
            raise ValueError(f"`classes` names the class {name!r} twice; names must be unique.")
        raise ValueError(
            f"`classes` holds {earlier!r} and {name!r}, which both read {str(name)!r} in "
            "summaries, dictionary keys and model coordinates; rename one."
        )
    return plain


def install_hint(extra: str) -> str:
    """How to install an optional extra, from a clone and from the package index."""
    return (
        f"pip install -e '.[{extra}]' in a clone of judgestats, "
        f"or pip install 'judgestats[{extra}]'"
    )
