"""NUTS for the models of judgestats: compiled samplers, chains, worker processes and a cache.

Compiling a model's log density and gradient dominates the cost of a fit. A :class:`CompiledNUTS`
holds one built model with its compiled NUTS step; every later fit swaps new data into the
model's ``pm.Data`` containers and reuses everything. Nothing is cached behind the caller's back:
a :class:`NutsCache` is an ordinary object the caller creates and passes in (``compiled=``) to
reuse compilations across fits; without one, each fit compiles its own model.

Chains run in this process, one after another, unless the caller asks for ``cores > 1``: then
``cores - 1`` worker processes are forked for that fit (Linux only; they inherit the compiled
model, so nothing is recompiled) and end with it. Chain ``c`` is seeded by the c-th child of the
caller's generator, so the draws are the same for any ``cores``.

The binary model's sampler, :func:`judgestats.bayes.binary_nuts.sample_nuts`, builds on this
module. pymc, pytensor and arviz are imported inside the functions, never at module import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats.bayes._quiet import quiet_dependencies, quiet_import
from judgestats.bayes.model import POSTERIOR_NAMES, set_counts

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = [
    "CompiledNUTS",
    "NutsCache",
    "compile_nuts",
    "nuts_step",
]

#: NUTS steps between two redraws of the progress bar.
_BAR_STEPS = 100

_STAT_NAMES = {
    "diverging": "diverging",
    "energy": "energy",
    "energy_error": "energy_error",
    "step_size": "step_size",
    "depth": "tree_depth",
    "n_steps": "n_steps",
    "mean_tree_accept": "acceptance_rate",
    "model_logp": "lp",
    "reached_max_treedepth": "reached_max_treedepth",
    "tree_size": "tree_size",
}


# -------------------------------------------------------------------------------------------
# one compiled model and its NUTS step
# -------------------------------------------------------------------------------------------
@dataclass(eq=False)
class CompiledNUTS:
    """A built model with its compiled NUTS step, reusable for any data of the same structure.

    Made by :func:`compile_nuts` (:func:`~judgestats.bayes.binary_nuts.compiled_nuts` for the
    model of :func:`~judgestats.bayes.model.build_model`). :meth:`run` samples chains with PyMC's
    NUTS step, re-tuning from the same pristine state on every chain (as ``pm.sample`` does).
    ``set_data(model, data)`` swaps ``data`` into the model's ``pm.Data`` containers;
    ``key`` says what the model was compiled for (checked by
    :func:`~judgestats.bayes.binary_nuts.sample_nuts`).
    """

    model: Any
    step: Any
    pristine_state: Any
    start: dict[str, np.ndarray]
    logp: Any
    transform: Any
    value_names: tuple[str, ...]
    output_names: tuple[str, ...] = POSTERIOR_NAMES
    set_data: Callable[[Any, Any], None] = set_counts
    key: Hashable = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(
        self,
        data: Any,
        *,
        draws: int,
        tune: int,
        chains: int,
        rng: np.random.Generator,
        jitter_retries: int = 10,
        cores: int = 1,
        progressbar: bool | None = False,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Sample ``chains`` chains for ``data``; return (posterior draws, sample stats).

        Posterior arrays have shape (chains, draws, *variable shape) and hold the variables of
        ``output_names``; sample stats have shape (chains, draws). Chain ``c`` uses the c-th
        child of ``rng`` and starts from the pristine (untuned) step state, so the draws do not
        depend on ``cores``. With ``cores > 1`` (Linux only; elsewhere it is ignored) chain ``c``
        runs in forked worker ``c % cores`` (0 is this process); the workers end with the call.
        Raises RuntimeError with an explanation if the sampler fails (e.g. bad initial energy)
        and ValueError if no finite starting point is found.
        ``progressbar`` draws a bar of the NUTS steps (tuning and draws of every chain) on
        stderr (None: only when stderr is a terminal and ``CI`` is unset); chains run by forked
        workers count when they finish.
        """
        from judgestats._progress import progress_bar

        chain_rngs = rng.spawn(chains)
        args = (draws, tune, jitter_retries)
        bar = progress_bar(chains * (tune + draws), progressbar, desc="NUTS", unit="steps")
        with self.lock:
            self.set_data(self.model, data)
            slots = min(cores, chains) if _can_fork() else 1
            workers = [
                _fork_chains(self, data, chain_rngs, range(w, chains, slots), args)
                for w in range(1, slots)
            ]
            try:
                results = {
                    c: self.sample_chain(
                        data, chain_rngs[c], *args, c, bar=None if bar.disable else bar
                    )
                    for c in range(0, chains, slots)
                }
                for worker in workers:
                    done = _join(worker)
                    bar.update(len(done) * (tune + draws))
                    results.update(done)
            finally:
                bar.close()
        values = {
            name: np.stack([results[c][0][name] for c in range(chains)])
            for name in self.value_names
        }
        stats = {
            name: np.stack([results[c][1][name] for c in range(chains)]) for name in results[0][1]
        }
        return self._posterior(values), stats

    def sample_chain(
        self,
        data: Any,
        rng: np.random.Generator,
        draws: int,
        tune: int,
        jitter_retries: int,
        chain: int,
        bar: Any = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """One chain on the data already set: unconstrained draws and sample stats.

        ``bar`` (a :func:`judgestats._progress.progress_bar`), if given, advances every 100 steps.
        """
        from pymc.exceptions import SamplingError

        values = {name: np.empty((draws, *np.shape(self.start[name]))) for name in self.value_names}
        stats: dict[str, np.ndarray] = {}
        point = self._jittered_start(rng, jitter_retries, data)
        self.step.sampling_state = self.pristine_state
        self.step.set_rng(rng)
        self.step.tune = bool(tune)
        self.step.reset_tuning()
        self.step.iter_count = 0
        try:
            for i in range(tune + draws):
                if i == tune:
                    self.step.stop_tuning()
                point, step_stats = self.step.step(point)
                if i >= tune:
                    _record(values, stats, point, step_stats[0], i - tune, draws)
                if bar is not None and (i % _BAR_STEPS == _BAR_STEPS - 1 or i == tune + draws - 1):
                    bar.update(i % _BAR_STEPS + 1)
        except (SamplingError, FloatingPointError, ValueError) as error:
            raise RuntimeError(
                f"NUTS failed on chain {chain} for counts {_describe(data)}: "
                f"{str(error).splitlines()[0] if str(error) else type(error).__name__}. "
                "Try a different `random_seed`, more `tune` steps, a more informative "
                "`prior`, or method='exact'."
            ) from None
        return values, stats

    def _jittered_start(
        self, rng: np.random.Generator, retries: int, data: Any
    ) -> dict[str, np.ndarray]:
        """Start in unconstrained space at the prior's initial point plus U(-1, 1) jitter."""
        for _ in range(retries):
            point = {
                name: value + rng.uniform(-1.0, 1.0, size=np.shape(value))
                for name, value in self.start.items()
            }
            if np.isfinite(self.logp(point)):
                return point
        raise ValueError(
            f"no starting point with a finite log density was found for counts "
            f"{_describe(data)} after {retries} tries; check that the `prior` allows the data."
        )

    def _posterior(self, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Map unconstrained draws (chains, draws, *shape) to the output variables."""
        name = self.value_names[0]
        shape = values[name].shape[: values[name].ndim - np.ndim(self.start[name])]
        flat = [values[name].reshape(-1, *np.shape(self.start[name])) for name in self.value_names]
        outputs = self.transform(*flat)
        return {
            name: np.asarray(out).reshape(*shape, *np.shape(out)[1:])
            for name, out in zip(self.output_names, outputs, strict=True)
        }


def _describe(data: Any) -> Any:
    """What error messages show of ``data``: its ``to_dict()`` when it has one."""
    to_dict = getattr(data, "to_dict", None)
    return to_dict() if callable(to_dict) else data


def _record(values, stats, point, step_stats, draw, draws) -> None:
    for name, array in values.items():
        array[draw] = point[name]
    for key, name in _STAT_NAMES.items():
        if key not in step_stats:
            continue
        if name not in stats:
            dtype = bool if key in ("diverging", "reached_max_treedepth") else float
            stats[name] = np.zeros(draws, dtype=dtype)
        stats[name][draw] = step_stats[key]


# -------------------------------------------------------------------------------------------
# forked worker processes (opt-in: cores > 1)
# -------------------------------------------------------------------------------------------
def _can_fork() -> bool:
    """Forked workers are used on Linux only (fork is unsafe on macOS, absent on Windows)."""
    import sys

    return sys.platform.startswith("linux")


def _fork_chains(
    engine: CompiledNUTS,
    data: Any,
    rngs: list[np.random.Generator],
    chains: range,
    args: tuple[int, int, int],
) -> tuple[Any, Any]:
    """Start one forked process that runs ``chains`` on its inherited copy of ``engine``.

    Under fork the process arguments are inherited, not pickled, so the compiled model is not
    sent anywhere; only the results come back, through a pipe.
    """
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_worker, args=(engine, data, rngs, chains, args, sender), daemon=True
    )
    process.start()
    sender.close()
    return process, receiver


def _worker(
    engine: CompiledNUTS,
    data: Any,
    rngs: list[np.random.Generator],
    chains: range,
    args: tuple[int, int, int],
    sender: Any,
) -> None:  # pragma: no cover - in a child
    """Body of a forked worker: run its chains and send {chain: result} (or the error) back."""
    try:
        sender.send({c: engine.sample_chain(data, rngs[c], *args, c) for c in chains})
    except BaseException as error:  # noqa: BLE001 - any failure is reported to the parent
        sender.send(
            error
            if isinstance(error, (RuntimeError, ValueError))
            else RuntimeError(f"a NUTS worker process failed: {error!r}")
        )
    finally:
        sender.close()


def _join(worker: tuple[Any, Any]) -> dict[int, Any]:
    """Collect a worker's results and wait for it to end; re-raise its error here."""
    process, receiver = worker
    try:
        result = receiver.recv()
    except EOFError:
        result = RuntimeError(
            f"a NUTS worker process ended without a result (exit code {process.exitcode})."
        )
    finally:
        receiver.close()
        process.join()
    if isinstance(result, BaseException):
        raise result
    return result


# -------------------------------------------------------------------------------------------
# compiling
# -------------------------------------------------------------------------------------------
def nuts_step(model: pm.Model, target_accept: float) -> Any:
    """PyMC's NUTS step for ``model``, calling its compiled log density without input checks.

    NUTS always passes a float64 vector of the right length, so PyTensor's per-call input
    validation (``trust_input``) is skipped: about half of the per-leapfrog overhead of a
    3-parameter model.
    """
    pm = quiet_import("pymc")

    with model:
        step = pm.NUTS(target_accept=target_accept)
    function = getattr(getattr(step, "_logp_dlogp_func", None), "_pytensor_function", None)
    if function is not None:
        function.trust_input = True
    return step


@quiet_dependencies()  # PyTensor's BLAS notice, on a process's first compilation
def compile_nuts(
    model: pm.Model,
    *,
    target_accept: float,
    output_names: tuple[str, ...] = POSTERIOR_NAMES,
    set_data: Callable[[Any, Any], None] = set_counts,
    key: Hashable = None,
) -> CompiledNUTS:
    """Compile NUTS, the log density and the draws -> outputs map of a model built on pm.Data.

    Parameters
    ----------
    model : pymc.Model
        Built with placeholder data held in ``pm.Data`` containers; its structure (variables and
        their shapes) must not depend on the data that ``set_data`` later swaps in.
    target_accept : float
        NUTS target acceptance rate.
    output_names : tuple of str
        Variables :meth:`CompiledNUTS.run` reports (free variables and deterministics).
    set_data : callable
        ``set_data(model, data)`` swaps new data into the containers
        (:func:`~judgestats.bayes.model.set_counts`).
    key : hashable, optional
        What the model was compiled for, stored on the result.

    Returns
    -------
    CompiledNUTS
    """
    step = nuts_step(model, target_accept)
    start = {name: np.asarray(value, dtype=float) for name, value in model.initial_point().items()}
    return CompiledNUTS(
        model=model,
        step=step,
        pristine_state=step.sampling_state,
        start=start,
        logp=model.compile_logp(),
        transform=_batched_transform(model, output_names),
        value_names=tuple(v.name for v in model.value_vars),
        output_names=tuple(output_names),
        set_data=set_data,
        key=key,
    )


def _batched_transform(model: pm.Model, output_names: tuple[str, ...]) -> Any:
    """Compiled map from a batch of unconstrained values (leading axis) to the outputs."""
    import pytensor
    import pytensor.tensor as pt
    from pytensor.graph.replace import vectorize_graph

    value_vars = model.value_vars
    outputs = model.replace_rvs_by_values([model[name] for name in output_names])
    batched = [pt.tensor(v.name, dtype=v.dtype, shape=(None, *v.type.shape)) for v in value_vars]
    batched_outputs = vectorize_graph(outputs, replace=dict(zip(value_vars, batched, strict=True)))
    return pytensor.function(batched, batched_outputs, on_unused_input="ignore")


# -------------------------------------------------------------------------------------------
# the cache: an object the caller holds
# -------------------------------------------------------------------------------------------
class NutsCache:
    """Compiled samplers kept by the caller and reused across fits.

    Create one and pass it as ``compiled=`` to :func:`judgestats.posterior` (or
    ``judgestats.compare(..., method="bayes", bayes={"compiled": cache})``); each model
    structure (design, prior, target_accept, sampler) is compiled on first use and reused
    afterwards. Thread-safe.

    Examples
    --------
    >>> cache = NutsCache()
    >>> cache.info()
    {'hits': 0, 'misses': 0, 'size': 0}
    """

    def __init__(self) -> None:
        self._entries: dict[Hashable, Any] = {}
        self._lock = threading.RLock()  # re-entrant: a factory may fetch another entry
        self._hits = 0
        self._misses = 0

    def get(self, key: Hashable, factory: Callable[[], Any]) -> Any:
        """Return the entry under ``key``, calling ``factory()`` to compile it on first use."""
        with self._lock:
            if key in self._entries:
                self._hits += 1
                return self._entries[key]
            self._misses += 1
            entry = self._entries[key] = factory()
            return entry

    def info(self) -> dict[str, int]:
        """Return ``{"hits", "misses", "size"}``."""
        with self._lock:
            return {"hits": self._hits, "misses": self._misses, "size": len(self._entries)}

    def clear(self) -> None:
        """Drop every compiled sampler and reset the counters."""
        with self._lock:
            self._entries.clear()
            self._hits = self._misses = 0

    def __len__(self) -> int:
        """Number of compiled samplers held."""
        return len(self._entries)

    def __repr__(self) -> str:
        return f"NutsCache({self.info()})"
