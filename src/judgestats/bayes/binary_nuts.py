"""NUTS on the binary model of :func:`judgestats.bayes.model.build_model`: :func:`sample_nuts`.

One compilation serves every dataset of a design and prior (:func:`compiled_nuts`, kept in a
caller-held :class:`~judgestats.bayes.nuts.NutsCache`); PyMC's NUTS step runs through
:class:`~judgestats.bayes.nuts.CompiledNUTS`, or nutpie when asked. pymc, pytensor, arviz and
nutpie are imported inside the functions, never at module import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._validate import check_choice, check_positive_int, install_hint
from judgestats.bayes._quiet import quiet_dependencies, quiet_import
from judgestats.bayes.diagnostics import TARGET_ACCEPT
from judgestats.bayes.model import (
    DATA_NAMES,
    LABELLED_CLASS_NAME,
    OBSERVED_NAMES,
    POSTERIOR_NAMES,
    build_model,
)
from judgestats.bayes.nuts import CompiledNUTS, NutsCache, compile_nuts
from judgestats.bayes.priors import Prior, as_prior
from judgestats.data import DESIGNS, JudgeData

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az

__all__ = ["SAMPLERS", "compiled_nuts", "sample_nuts"]

#: Samplers :func:`sample_nuts` knows.
SAMPLERS = ("pymc", "nutpie")


#: Placeholder counts the models are compiled with (every run swaps the real counts in).
_PLACEHOLDER = {
    design: JudgeData(k=5, n=10, k0=7, m0=10, k1=7, m1=10, design=design) for design in DESIGNS
}


def _model_key(prior: Prior, design: str, target_accept: float) -> tuple[Any, ...]:
    return ("judge", design, prior, float(target_accept))


def compiled_nuts(
    prior: Prior | None = None,
    *,
    design: str = "stratified",
    target_accept: float = TARGET_ACCEPT,
) -> CompiledNUTS:
    """Compile the model of :func:`~judgestats.bayes.model.build_model` and its NUTS step.

    The model is built with placeholder counts; every :meth:`CompiledNUTS.run` swaps the real
    counts in. Its structure depends only on ``prior`` and ``design``, so one compilation
    serves every dataset of that design. Each call compiles anew; keep the result (or use a
    :class:`NutsCache`) to reuse it.
    """
    prior = as_prior(prior)
    check_choice(design, "design", DESIGNS)
    target_accept = float(target_accept)
    return compile_nuts(
        build_model(_PLACEHOLDER[design], prior),
        target_accept=target_accept,
        key=_model_key(prior, design, target_accept),
    )


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def sample_nuts(
    data: JudgeData,
    prior: Prior | None,
    *,
    draws: int,
    tune: int,
    chains: int,
    rng: np.random.Generator,
    sampler: str = "pymc",
    target_accept: float = TARGET_ACCEPT,
    cores: int = 1,
    progressbar: bool | None = None,
    compiled: CompiledNUTS | NutsCache | None = None,
) -> az.InferenceData:
    """Sample the posterior of :func:`~judgestats.bayes.model.build_model` with NUTS.

    Parameters
    ----------
    data : JudgeData
        The counts; ``data.design`` picks the model (the random design adds
        ``labelled_m1 ~ Bin(m0 + m1, theta)``).
    prior : Prior or None
        ``Prior()`` when None.
    draws, tune, chains : int
        Draws kept and tuning steps per chain, number of chains (positive integers).
    rng : numpy.random.Generator
        The only source of randomness: the same generator state gives the same draws, for
        any ``cores``.
    sampler : {"pymc", "nutpie"}
        PyMC's NUTS step on the compiled model, or nutpie (optional dependency).
    target_accept : float, default 0.9
        NUTS target acceptance rate (:data:`judgestats.bayes.diagnostics.TARGET_ACCEPT`).
    cores : int, default 1
        Processes running the chains of ``sampler="pymc"``: 1 runs them here, one after
        another; ``cores > 1`` forks ``cores - 1`` workers for this call (Linux only).
    progressbar : bool, optional
        Draw a progress bar on stderr: judgestats's own bar of the NUTS steps for
        ``sampler="pymc"``, nutpie's bar for ``"nutpie"``. Default (None): only when stderr is a
        terminal and the ``CI`` environment variable is unset.
    compiled : CompiledNUTS or NutsCache, optional
        Reuse compilation across fits: a :class:`NutsCache` (any prior, design and sampler), or
        a :class:`CompiledNUTS` from :func:`compiled_nuts` for this prior, design and
        ``target_accept``. None compiles the model for this call only.

    Returns
    -------
    arviz.InferenceData
        ``posterior`` (theta, q0, q1, p, youden; dims chain, draw), ``observed_data`` (k, k0,
        k1, and ``labelled_m1`` under the random design), ``constant_data`` (n, m0, m1) and
        ``sample_stats`` (``diverging`` among others).

    Raises
    ------
    TypeError
        For a ``data``, ``prior``, ``rng`` or ``compiled`` of the wrong type.
    ValueError
        For a bad ``sampler``, count of draws, tuning steps, chains or cores, a ``compiled``
        sampler made for another model, or nutpie requested but not installed.
    RuntimeError
        If the sampler fails (explained; no PyMC traceback).
    """
    prior = as_prior(prior)
    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"`rng` must be a numpy.random.Generator, got {type(rng).__name__}.")
    if sampler not in SAMPLERS:
        raise ValueError(f"`sampler` ({sampler!r}) must be 'pymc' or 'nutpie'.")
    draws, tune, chains, cores = (
        check_positive_int(value, name)
        for value, name in ((draws, "draws"), (tune, "tune"), (chains, "chains"), (cores, "cores"))
    )
    if compiled is not None and not isinstance(compiled, (CompiledNUTS, NutsCache)):
        raise TypeError(
            f"`compiled` must be a NutsCache, a CompiledNUTS or None, got "
            f"{type(compiled).__name__}."
        )
    target_accept = float(target_accept)
    if sampler == "nutpie":
        from judgestats._progress import is_enabled

        idata = _nutpie_idata(
            data, prior, draws, tune, chains, rng, is_enabled(progressbar), target_accept, compiled
        )
        return _with_data_groups(idata, data)
    engine = _engine(compiled, prior, data.design, target_accept)
    values, stats = engine.run(
        data, draws=draws, tune=tune, chains=chains, rng=rng, cores=cores, progressbar=progressbar
    )
    return _to_idata(values, data, stats)


def _engine(
    compiled: CompiledNUTS | NutsCache | None, prior: Prior, design: str, target_accept: float
) -> CompiledNUTS:
    """The compiled sampler to use: the caller's, one from the caller's cache, or a new one."""
    key = _model_key(prior, design, target_accept)
    if isinstance(compiled, NutsCache):
        return compiled.get(
            key, lambda: compiled_nuts(prior, design=design, target_accept=target_accept)
        )
    if compiled is None:
        return compiled_nuts(prior, design=design, target_accept=target_accept)
    if compiled.key != key:
        raise ValueError(
            f"`compiled` was compiled for {compiled.key!r}, not for this fit {key!r}; pass a "
            "NutsCache, which keeps one compiled sampler per model, or compiled_nuts(prior, "
            "design=..., target_accept=...)."
        )
    return compiled


def _data_groups(data: JudgeData) -> dict[str, dict[str, np.ndarray]]:
    observed = {name: np.asarray(getattr(data, name)) for name in OBSERVED_NAMES}
    if data.design == "random":
        observed[LABELLED_CLASS_NAME] = np.asarray(data.m1)
    return {
        "observed_data": observed,
        "constant_data": {name: np.asarray(getattr(data, name)) for name in ("n", "m0", "m1")},
    }


def _to_idata(
    values: dict[str, np.ndarray], data: JudgeData, stats: dict[str, np.ndarray]
) -> az.InferenceData:
    az = quiet_import("arviz")

    groups = _data_groups(data)
    return az.from_dict(
        posterior={name: values[name] for name in POSTERIOR_NAMES},
        sample_stats=stats,
        observed_data=groups["observed_data"],
        constant_data=groups["constant_data"],
    )


def _with_data_groups(idata: Any, data: JudgeData) -> Any:
    """Keep nutpie's posterior (our variables) and sample stats; add the data groups."""
    az = quiet_import("arviz")

    keep = [name for name in POSTERIOR_NAMES if name in idata.posterior]
    groups = {"posterior": idata.posterior[keep]}
    if "sample_stats" in idata.groups():
        groups["sample_stats"] = idata.sample_stats
    for name, values in _data_groups(data).items():
        group: dict[str, Any] = {name: values}  # one of arviz's group keywords
        groups[name] = az.from_dict(**group)[name]
    return az.InferenceData(**groups)


def _nutpie_idata(
    data: JudgeData,
    prior: Prior,
    draws: int,
    tune: int,
    chains: int,
    rng: np.random.Generator,
    progressbar: bool,
    target_accept: float,
    compiled: CompiledNUTS | NutsCache | None,
) -> Any:
    try:
        import nutpie
    except ImportError:
        raise ValueError(
            "`sampler` ('nutpie') needs the optional package nutpie, which is not installed; "
            f"install it ({install_hint('nutpie')}) or use sampler='pymc'."
        ) from None
    if isinstance(compiled, CompiledNUTS):
        raise ValueError(
            "`compiled` is a CompiledNUTS of the PyMC sampler; with "
            "sampler='nutpie' pass a NutsCache or None."
        )

    def factory() -> Any:
        with quiet_dependencies():  # PyTensor's BLAS notice
            return nutpie.compile_pymc_model(build_model(_PLACEHOLDER[data.design], prior))

    key = ("nutpie", data.design, prior)
    model = factory() if compiled is None else compiled.get(key, factory)
    model = model.with_data(**{name: getattr(data, count) for count, name in DATA_NAMES.items()})
    try:
        return nutpie.sample(
            model,
            draws=draws,
            tune=tune,
            chains=chains,
            seed=int(rng.integers(2**31)),
            progress_bar=progressbar,
            target_accept=target_accept,
        )
    except Exception as error:  # nutpie raises plain RuntimeErrors
        raise RuntimeError(
            f"nutpie failed for counts {data.to_dict()}: {error}. Try "
            "sampler='pymc' or method='exact'."
        ) from None
