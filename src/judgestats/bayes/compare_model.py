r"""The joint PyMC model of two models judged by the same judge, with partially pooled (q0, q1).

For model X in {A, B} and arm j in {0, 1} (specificity q0, sensitivity q1):

.. math::
    \mu_j \sim \mathrm{Normal}(\mu_{loc}, \mu_{scale}), \quad
    \sigma_j \sim \mathrm{HalfNormal}(s), \quad
    \mathrm{logit}\, q_{jX} \sim \mathrm{Normal}(\mu_j, \sigma_j)

(Gelman et al. 2013 ch. 5). sigma_j is the between-model spread of the judge on the logit scale:
sigma -> 0 is the shared-calibration assumption, a large sigma leaves each model with its own
calibration, and its posterior is the Bayesian counterpart of the instability diagnostic
J_A - J_B of "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up on bias and
uncertainty) Sec. 4.4. The user sets the prior scale ``s`` (:class:`ComparePrior`).

Calibration: k0_X ~ Bin(m0_X, q0_X), k1_X ~ Bin(m1_X, q1_X) for every model whose calibration
set enters the likelihood (model A only under ``calibration="shared"``; then B's (q0, q1) are
known only through the population and the test verdicts).

Test verdicts. theta_X ~ Beta(a, b) and the judged-correct rate is
p_X = theta_X q1_X + (1 - theta_X)(1 - q0_X) (the follow-up on bias and uncertainty eq. 1).
Independent test sets: k_X ~ Bin(n_X, p_X). Paired test items: the four verdict cells (both
judged correct, A only, B only, neither) are multinomial with probabilities
(c, p_A - c, p_B - c, 1 - p_A - p_B + c), where c = P(both judged correct) ranges over its
Frechet bounds
max(0, p_A + p_B - 1) <= c <= min(p_A, p_B) through c = lower + u (upper - lower),
u ~ Uniform(0, 1). Any association between the two verdicts on an item is allowed, so the pairing
sharpens p_A - p_B (as the paired test term of the delta method does) without an assumption about
how the judge's errors on the two answers are related.

**Parametrisation** (exactly the model above; only the coordinates NUTS moves in differ). With
two models the hierarchy has a funnel whichever of the usual forms is sampled: the centred form
(logit q given mu, sigma) pinches as sigma -> 0, the non-centred form
(logit q = mu + sigma z, z ~ N(0, 1)) bends where the calibration data pin logit q down, and on
realistic counts (the README example) both diverge. With both models' calibration sets in the
likelihood the model therefore samples, per arm j:

1. sigma_j (log scale, PyMC's HalfNormal transform) -- its prior as above;
2. the pair l_j = (logit q_jA, logit q_jB) given sigma_j *with mu_j integrated out*: a priori
   l_j ~ N(mu_loc 1, Sigma_j), Sigma_j = mu_scale^2 1 1' + sigma_j^2 I, written as
   l_j = m_j + L_j e_j with a free e_j in R^2 and the exact density
   N(l_j; mu_loc 1, Sigma_j) |det L_j| (a potential; a change of variables with its Jacobian).
   m_j and the Cholesky factor L_j of C_j = (Sigma_j^-1 + Lambda_j)^-1 are the mean and
   covariance of l_j given sigma_j under a normal approximation of the calibration likelihood
   (Lambda_j = diag(m q_hat (1 - q_hat)) per calibrated model, 0 for a model without
   calibration; q_hat = (k + 1/2) / (m + 1)). The approximation only chooses the coordinates --
   the density is exact whatever it is -- but where it is good, e_j is close to N(0, I) for every
   sigma_j: centred where the data are informative, non-centred where they are not, and no
   funnel in between;
3. mu_j from its exact conditional given l_j and sigma_j:
   mu_j = (mu_loc sigma^2 + mu_scale^2 (l_A + l_B)) / (sigma^2 + 2 mu_scale^2)
   + sqrt(mu_scale^2 sigma^2 / (sigma^2 + 2 mu_scale^2)) w_j, w_j ~ N(0, 1).

The joint distribution of (theta, mu, sigma, q0, q1) is that of the model above; the helper
variables e (``q_white``) and w (``mu_white``) are not reported. With one calibration set in the
likelihood (``calibration="shared"``) model B's q is informed by the population only, where the
non-centred form (helper ``offset``, not reported) samples better, and it is used there.

Every count enters through a ``pm.Data`` container, so the model is built and compiled once per
(prior, target_accept, paired or independent test sets, one or two calibration sets in the
likelihood) -- :func:`compiled_compare_nuts`, kept in a caller-held
:class:`judgestats.bayes.nuts.NutsCache` -- and a later fit only swaps its counts in
(:func:`set_compare_data`) and runs the compiled NUTS step
(:class:`judgestats.bayes.nuts.CompiledNUTS`). pymc, pytensor and arviz are imported inside the
functions only.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._validate import check_positive_real
from judgestats.bayes._quiet import quiet_import
from judgestats.bayes.diagnostics import convergence, convergence_flags
from judgestats.bayes.nuts import CompiledNUTS, NutsCache

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    import pymc as pm

__all__ = [
    "CompareCounts",
    "CompareFit",
    "ComparePrior",
    "build_compare_model",
    "compiled_compare_nuts",
    "sample_comparison",
    "set_compare_data",
]

Calibration = tuple[int, int, int, int]
#: Variables whose convergence is checked.
CHECKED = ("theta", "q0", "q1", "sigma")
#: Coordinates of the model's dims.
COORDS = {"model": ["A", "B"], "arm": ["q0", "q1"]}
#: Name of the ``pm.Data`` container of each count.
DATA_NAMES = {
    "cells": "test_cells",
    "n_pairs": "n_pairs",
    "k": "k_test",
    "n": "n_test",
    "k0": "k0_data",
    "m0": "m0",
    "k1": "k1_data",
    "m1": "m1",
}


@dataclass(frozen=True)
class ComparePrior:
    """Prior of the two-model comparison model.

    Parameters
    ----------
    theta : tuple of float, default (1, 1)
        Beta(a, b) prior of each model's accuracy.
    mu_loc, mu_scale : float, default 1 and 1
        Normal prior of the population mean of logit q0 and logit q1; logit 0.73 = 1, so the
        default centres on a judge somewhat better than chance.
    sigma_scale : float, default 0.5
        Scale of the half-normal prior of sigma, the between-model spread of logit q. Small values
        pool towards shared calibration, large values towards model-specific calibration.
    """

    theta: tuple[float, float] = (1.0, 1.0)
    mu_loc: float = 1.0
    mu_scale: float = 1.0
    sigma_scale: float = 0.5

    def __post_init__(self) -> None:
        if isinstance(self.theta, (str, bytes)) or len(self.theta) != 2:
            raise TypeError(
                f"`theta` must be a pair (a, b) of Beta parameters, got {self.theta!r}."
            )
        object.__setattr__(
            self, "theta", tuple(check_positive_real(v, "theta") for v in self.theta)
        )
        for name in ("mu_scale", "sigma_scale"):
            object.__setattr__(self, name, check_positive_real(getattr(self, name), name))
        if (
            isinstance(self.mu_loc, bool)
            or not isinstance(self.mu_loc, numbers.Real)
            or not (math.isfinite(self.mu_loc))
        ):
            raise ValueError(f"`mu_loc` ({self.mu_loc!r}) must be a finite number.")
        object.__setattr__(self, "mu_loc", float(self.mu_loc))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the prior."""
        return {
            "theta": list(self.theta),
            "mu_loc": self.mu_loc,
            "mu_scale": self.mu_scale,
            "sigma_scale": self.sigma_scale,
        }


@dataclass(frozen=True)
class CompareCounts:
    """The counts of one comparison, in the layout of :func:`build_compare_model`.

    ``cells`` (paired verdict cells) or ``test`` = (k_A, n_A, k_B, n_B); ``calib_a`` and the
    optional ``calib_b`` as (k0, m0, k1, m1). ``structure`` = (paired, two calibration sets)
    is what the compiled model depends on; everything else is data.
    """

    cells: tuple[int, int, int, int] | None
    test: tuple[int, int, int, int]
    calib_a: Calibration
    calib_b: Calibration | None

    @property
    def structure(self) -> tuple[bool, bool]:
        """(paired test items, model B's calibration in the likelihood)."""
        return self.cells is not None, self.calib_b is not None

    def values(self) -> dict[str, np.ndarray]:
        """The container values, keyed by ``pm.Data`` name (:data:`DATA_NAMES`)."""
        calibs = [self.calib_a] if self.calib_b is None else [self.calib_a, self.calib_b]
        k0, m0, k1, m1 = (np.array(column, dtype=np.int64) for column in zip(*calibs, strict=True))
        out = {
            DATA_NAMES["k0"]: k0,
            DATA_NAMES["m0"]: m0,
            DATA_NAMES["k1"]: k1,
            DATA_NAMES["m1"]: m1,
        }
        if self.cells is not None:
            out[DATA_NAMES["cells"]] = np.asarray(self.cells, dtype=np.int64)
            out[DATA_NAMES["n_pairs"]] = np.asarray(sum(self.cells), dtype=np.int64)
        else:
            k_a, n_a, k_b, n_b = self.test
            out[DATA_NAMES["k"]] = np.array([k_a, k_b], dtype=np.int64)
            out[DATA_NAMES["n"]] = np.array([n_a, n_b], dtype=np.int64)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the counts."""
        return {
            "cells": None if self.cells is None else list(self.cells),
            "test": list(self.test),
            "calib_a": list(self.calib_a),
            "calib_b": None if self.calib_b is None else list(self.calib_b),
        }


def build_compare_model(
    *,
    cells: tuple[int, int, int, int] | None,
    test: tuple[int, int, int, int],
    calib_a: Calibration,
    calib_b: Calibration | None,
    prior: ComparePrior | None = None,
) -> pm.Model:
    """Build the joint model (module docstring).

    Parameters
    ----------
    cells : tuple of 4 ints or None
        Paired verdict counts (both judged correct, A only, B only, neither); None for
        independent test sets.
    test : tuple
        (k_A, n_A, k_B, n_B), used when ``cells`` is None.
    calib_a, calib_b : tuple (k0, m0, k1, m1)
        Calibration counts entering the likelihood; ``calib_b=None`` leaves model B's (q0, q1)
        to the population.
    prior : ComparePrior, optional

    Returns
    -------
    pymc.Model
        Dims ``model`` (A, B) and ``arm`` (q0, q1). Variables ``theta``, ``q0``, ``q1``,
        ``youden``, ``p`` (per model), ``mu``, ``sigma`` (per arm), and the deterministics
        ``difference`` (theta_A - theta_B) and ``delta_youden`` (J_A - J_B). The counts live in
        the ``pm.Data`` containers of :data:`DATA_NAMES`; :func:`set_compare_data` swaps in new
        counts of the same structure.
    """
    pm = quiet_import("pymc")

    prior = ComparePrior() if prior is None else prior
    counts = CompareCounts(cells, test, calib_a, calib_b)
    with pm.Model(coords=COORDS) as model:
        data = {name: pm.Data(name, value) for name, value in counts.values().items()}
        theta = pm.Beta("theta", *prior.theta, dims="model")
        sigma = pm.HalfNormal("sigma", prior.sigma_scale, dims="arm")
        if calib_b is None:  # one calibration set: the non-centred form (module docstring)
            mu = pm.Normal("mu", prior.mu_loc, prior.mu_scale, dims="arm")
            offset = pm.Normal("offset", 0.0, 1.0, dims=("model", "arm"))
            logit_q = mu[None, :] + sigma[None, :] * offset
        else:
            logit_q = _whitened_logit_q(sigma, data, prior)
        q = pm.math.invlogit(logit_q)
        q0 = pm.Deterministic("q0", q[:, 0], dims="model")
        q1 = pm.Deterministic("q1", q[:, 1], dims="model")
        youden = pm.Deterministic("youden", q0 + q1 - 1.0, dims="model")
        p = pm.Deterministic("p", theta * q1 + (1.0 - theta) * (1.0 - q0), dims="model")
        pm.Deterministic("difference", theta[0] - theta[1])
        pm.Deterministic("delta_youden", youden[0] - youden[1])
        if cells is not None:
            _paired_likelihood(p, data[DATA_NAMES["cells"]], data[DATA_NAMES["n_pairs"]])
        else:
            pm.Binomial(
                "k", n=data[DATA_NAMES["n"]], p=p, observed=data[DATA_NAMES["k"]], dims="model"
            )
        index = np.arange(1 if calib_b is None else 2)
        pm.Binomial("k0", n=data[DATA_NAMES["m0"]], p=q0[index], observed=data[DATA_NAMES["k0"]])
        pm.Binomial("k1", n=data[DATA_NAMES["m1"]], p=q1[index], observed=data[DATA_NAMES["k1"]])
    return model


def _whitened_logit_q(sigma: Any, data: dict[str, Any], prior: ComparePrior) -> Any:
    """Logit q (model x arm) in the whitened coordinates of the module docstring (steps 2-3).

    Adds the free ``q_white`` (model x arm, flat) with the potential ``logit_q_prior`` (the
    exact density of logit q given sigma, mu integrated out, times the Jacobian), and ``mu``
    through the free ``mu_white`` ~ N(0, 1). 2x2 algebra written out per arm, in forms that stay
    accurate as sigma -> 0.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    loc, scale2, s2 = prior.mu_loc, prior.mu_scale**2, sigma**2
    l_hat, lam = _calibration_precision(data)  # (calibrations, arm)
    lam_a, shift_a = lam[0], lam[0] * (l_hat[0] - loc)
    lam_b, shift_b = lam[1], lam[1] * (l_hat[1] - loc)
    # Sigma = [[v, c], [c, v]], det Sigma = v^2 - c^2 = s2 (2 scale2 + s2) (no cancellation);
    # C = Sigma (I + Lambda Sigma)^-1 = (Sigma^-1 + Lambda)^-1, with det(I + Lambda Sigma) = det_a
    v, c = scale2 + s2, scale2
    det_sigma = s2 * (2.0 * scale2 + s2)
    det_a = 1.0 + (lam_a + lam_b) * v + lam_a * lam_b * det_sigma
    c11 = (v + lam_b * det_sigma) / det_a
    c12 = c / det_a
    c22 = (v + lam_a * det_sigma) / det_a
    l11 = pt.sqrt(c11)
    l21 = c12 / l11
    l22 = pt.sqrt(det_sigma / (det_a * c11))  # det C = det Sigma / det_a
    white = pm.Flat("q_white", dims=("model", "arm"))
    logit_a = loc + c11 * shift_a + c12 * shift_b + l11 * white[0]
    logit_b = loc + c12 * shift_a + c22 * shift_b + l21 * white[0] + l22 * white[1]
    d_a, d_b = logit_a - loc, logit_b - loc
    quad = (scale2 * (d_a - d_b) ** 2 + s2 * (d_a**2 + d_b**2)) / det_sigma
    pm.Potential(
        "logit_q_prior",
        pt.sum(
            -0.5 * quad - 0.5 * pt.log(det_sigma) - np.log(2.0 * np.pi) + pt.log(l11) + pt.log(l22)
        ),
    )
    mu_white = pm.Normal("mu_white", 0.0, 1.0, dims="arm")
    total = s2 + 2.0 * scale2
    pm.Deterministic(
        "mu",
        (loc * s2 + scale2 * (logit_a + logit_b)) / total + pt.sqrt(scale2 * s2 / total) * mu_white,
        dims="arm",
    )
    return pt.stack([logit_a, logit_b])


def _calibration_precision(data: dict[str, Any]) -> tuple[Any, Any]:
    """Smoothed logit q_hat and its binomial Fisher information m q_hat (1 - q_hat)."""
    import pytensor.tensor as pt

    logits, information = [], []
    for k, m in (("k0", "m0"), ("k1", "m1")):
        q_hat = (data[DATA_NAMES[k]] + 0.5) / (data[DATA_NAMES[m]] + 1.0)
        logits.append(pt.log(q_hat) - pt.log1p(-q_hat))
        information.append(data[DATA_NAMES[m]] * q_hat * (1.0 - q_hat))
    return pt.stack(logits, axis=1), pt.stack(information, axis=1)


def _paired_likelihood(p: Any, cells: Any, n_pairs: Any) -> None:
    """Multinomial verdict cells with a Frechet-bounded joint probability (module docstring)."""
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    association = pm.Uniform("association", 0.0, 1.0)
    lower = pt.maximum(0.0, p[0] + p[1] - 1.0)
    upper = pt.minimum(p[0], p[1])
    both = lower + association * (upper - lower)
    probabilities = pt.stack([both, p[0] - both, p[1] - both, 1.0 - p[0] - p[1] + both])
    pm.Multinomial("test", n=n_pairs, p=pt.clip(probabilities, 0.0, 1.0), observed=cells)


def set_compare_data(model: pm.Model, counts: CompareCounts) -> None:
    """Swap ``counts`` into a model made by :func:`build_compare_model` of the same structure."""
    pm = quiet_import("pymc")

    pm.set_data(counts.values(), model=model)


#: Placeholder counts the cached models are built with (replaced before every fit).
_PLACEHOLDER = {"cells": (4, 2, 2, 2), "test": (5, 10, 5, 10), "calib": (7, 10, 7, 10)}


#: Helper coordinates of the parametrisation (module docstring), not reported.
AUXILIARY = ("q_white", "mu_white", "offset")


def compiled_compare_nuts(
    prior: ComparePrior,
    *,
    target_accept: float,
    paired: bool,
    two_calibrations: bool,
    cache: NutsCache | None = None,
) -> CompiledNUTS:
    """The compiled comparison model and NUTS step for this structure.

    Compiled on first use and kept in ``cache`` (a caller-held
    :class:`~judgestats.bayes.nuts.NutsCache`) under ``("compare", prior, target_accept, paired,
    two_calibrations)``; without a cache it is compiled for this call only. Returns a
    :class:`~judgestats.bayes.nuts.CompiledNUTS` whose ``run`` takes a :class:`CompareCounts`.
    """
    from judgestats.bayes.nuts import compile_nuts

    target_accept = float(target_accept)
    key = ("compare", prior, target_accept, bool(paired), bool(two_calibrations))

    def factory() -> CompiledNUTS:
        calib = _PLACEHOLDER["calib"]
        model = build_compare_model(
            cells=_PLACEHOLDER["cells"] if paired else None,
            test=_PLACEHOLDER["test"],
            calib_a=calib,
            calib_b=calib if two_calibrations else None,
            prior=prior,
        )
        outputs = tuple(
            v.name for v in (*model.free_RVs, *model.deterministics) if v.name not in AUXILIARY
        )
        return compile_nuts(
            model,
            target_accept=target_accept,
            output_names=outputs,
            set_data=set_compare_data,
            key=key,
        )

    return factory() if cache is None else cache.get(key, factory)


# -------------------------------------------------------------------------------------------
# sampling and diagnostics
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CompareFit:
    """The posterior of the comparison model: InferenceData, convergence diagnostics and flags.

    ``diagnostics`` is :func:`judgestats.bayes.diagnostics.convergence` over :data:`CHECKED`;
    ``flags`` are the keys of :func:`~judgestats.bayes.diagnostics.convergence_flags` that apply
    (``r_hat``, ``low_ess``, ``divergences``).
    """

    idata: Any
    diagnostics: dict[str, float]
    flags: tuple[str, ...]
    prior_dict: dict[str, Any]

    def draws(self, name: str) -> np.ndarray:
        """Flattened draws: theta_a, theta_b, difference, delta_youden, sigma_q0, sigma_q1, ..."""
        post = self.idata.posterior
        if name.startswith("sigma_"):
            values = post["sigma"].sel(arm=name.removeprefix("sigma_"))
        elif name[-2:] in ("_a", "_b") and name[:-2] in post:
            values = post[name[:-2]].sel(model=name[-1].upper())
        else:
            values = post[name]
        return np.asarray(values).reshape(-1)


def sample_comparison(
    *,
    cells: tuple[int, int, int, int] | None,
    test: tuple[int, int, int, int],
    calib_a: Calibration,
    calib_b: Calibration | None,
    prior: ComparePrior | None,
    rng: np.random.Generator,
    draws: int,
    tune: int,
    chains: int,
    target_accept: float,
    compiled: NutsCache | None = None,
    progressbar: bool | None = None,
) -> CompareFit:
    """Sample the comparison model with PyMC's NUTS (one process, chains in sequence).

    The compiled model is taken from (or added to) the caller's ``compiled`` cache
    (:func:`compiled_compare_nuts`); chain ``c`` is seeded by the c-th child of ``rng``, so the
    same generator state gives the same draws. Returns a
    :class:`CompareFit`; convergence problems become flag keys (R-hat, ESS and divergence
    thresholds of :mod:`judgestats.bayes.diagnostics`). ``progressbar`` draws a bar of
    the NUTS steps on stderr (None: only when stderr is a terminal and ``CI`` is unset).
    """
    if prior is None:
        prior = ComparePrior()
    elif not isinstance(prior, ComparePrior):
        raise TypeError(
            f"`prior` must be a judgestats.bayes.compare_model.ComparePrior or None, "
            f"got {type(prior).__name__}."
        )
    if compiled is not None and not isinstance(compiled, NutsCache):
        raise TypeError(
            f"`compiled` must be a judgestats.bayes.nuts.NutsCache or None, got "
            f"{type(compiled).__name__}."
        )
    counts = CompareCounts(cells, test, calib_a, calib_b)
    paired, two_calibrations = counts.structure
    engine = compiled_compare_nuts(
        prior,
        target_accept=target_accept,
        paired=paired,
        two_calibrations=two_calibrations,
        cache=compiled,
    )
    values, stats = engine.run(
        counts, draws=draws, tune=tune, chains=chains, rng=rng, progressbar=progressbar
    )
    idata = _to_idata(engine.model, values, stats, counts)
    diagnostics = convergence(idata, CHECKED)
    return CompareFit(
        idata=idata,
        diagnostics=diagnostics,
        flags=convergence_flags(diagnostics),
        prior_dict=prior.to_dict(),
    )


def _to_idata(
    model: Any, values: dict[str, np.ndarray], stats: dict[str, np.ndarray], counts: CompareCounts
) -> Any:
    """InferenceData with posterior (dims ``model``, ``arm``), sample stats and the counts."""
    az = quiet_import("arviz")

    dims = {name: list(dim) for name, dim in model.named_vars_to_dims.items() if dim}
    observed: dict[str, Sequence[int]] = {"k0": counts.calib_a[:1], "k1": counts.calib_a[2:3]}
    if counts.calib_b is not None:
        observed = {
            "k0": [counts.calib_a[0], counts.calib_b[0]],
            "k1": [counts.calib_a[2], counts.calib_b[2]],
        }
    if counts.cells is not None:
        observed["test"] = list(counts.cells)
    else:
        observed["k"] = [counts.test[0], counts.test[2]]
    return az.from_dict(
        posterior=values,
        sample_stats=stats,
        observed_data={k: np.asarray(v) for k, v in observed.items()},
        coords=COORDS,
        dims=dims,
    )
