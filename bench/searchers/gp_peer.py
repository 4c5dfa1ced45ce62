#!/usr/bin/python3
"""A GP anchor for bench_searchers: scikit-optimize's `gp_minimize` with its
defaults, rebuilt on scikit-learn (Debian's python3-sklearn; skopt is not packaged).

What it reproduces of gp_minimize (skopt 0.9, defaults):
- inputs normalised to [0, 1] (float linearly, log in its exponent, int
  linearly and rounded back, categorical one-hot, decoded by its largest column);
- GaussianProcessRegressor(ConstantKernel(1, (0.01, 1000)) * Matern(ones, (0.01, 100), nu=2.5)
  + WhiteKernel(), normalize_y=True, n_restarts_optimizer=2), the white noise
  left out of the predictive variance as skopt does;
- 10 random initial points; acquisition gp_hedge (EI, LCB, PI; xi=0.01,
  kappa=1.96, eta=1: softmax over gains, each gain lowered by the new model's
  predicted mean at that acquisition's last proposal);
- each acquisition scored at 10,000 random points, the 5 best refined by
  L-BFGS-B (analytic gradients, bounds [0, 1], maxiter 20), the best result proposed.

Prints the table rows and `RESULT {json}` lines with searcher "skopt_gp".
Run with Debian's interpreter: /usr/bin/python3 gp_peer.py [--seeds N] [--budgets 50,100] [--only branin,...]
"""
import math
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: threads only contend on a shared machine
import numpy as np  # noqa: E402 (after the thread setting)
from scipy.optimize import fmin_l_bfgs_b
from scipy.spatial.distance import cdist
from scipy.stats import norm
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

from objectives import best_so_far, budgets_and_seeds, print_header, print_rows

N_INITIAL, N_POINTS, N_RESTARTS, MAXITER, XI, KAPPA, ETA = 10, 10_000, 5, 20, 0.01, 1.96, 1.0


class UnitSpace:
    """Parameters <-> points of the unit cube, as skopt's normalized space."""

    def __init__(self, parameters):
        self.parameters = parameters
        self.width = sum(len(p[2]) if p[1] == "categorical" else 1 for p in parameters)

    def sample(self, rng, n):
        """n random points that decode to real parameters (ints on their grid, categoricals one-hot)."""
        u, at = rng.uniform(size=(n, self.width)), 0
        for _, kind, *bounds in self.parameters:
            if kind == "categorical":
                k = len(bounds[0])
                u[:, at:at + k] = np.eye(k)[np.argmax(u[:, at:at + k], axis=1)]
                at += k
                continue
            if kind == "int":
                cells = bounds[1] - bounds[0]
                u[:, at] = np.round(u[:, at] * cells) / cells
            at += 1
        return u

    def encode(self, h):
        u = []
        for name, kind, *bounds in self.parameters:
            if kind == "categorical":
                u += [1.0 if c == h[name] else 0.0 for c in bounds[0]]
            elif kind == "log":
                lo, hi = math.log10(bounds[0]), math.log10(bounds[1])
                u.append((math.log10(h[name]) - lo) / (hi - lo))
            else:
                u.append((h[name] - bounds[0]) / (bounds[1] - bounds[0]))
        return u

    def decode(self, u):
        h, at = {}, 0
        for name, kind, *bounds in self.parameters:
            if kind == "categorical":
                h[name] = bounds[0][int(np.argmax(u[at:at + len(bounds[0])]))]
                at += len(bounds[0])
                continue
            t = min(max(float(u[at]), 0.0), 1.0)
            at += 1
            if kind == "log":
                lo, hi = math.log10(bounds[0]), math.log10(bounds[1])
                h[name] = 10 ** (lo + t * (hi - lo))
            elif kind == "int":
                h[name] = int(round(bounds[0] + t * (bounds[1] - bounds[0])))
            else:
                h[name] = bounds[0] + t * (bounds[1] - bounds[0])
        return h


class Posterior:
    """The fitted GP's predictive mean and standard deviation (noise excluded) with gradients."""

    def __init__(self, gp):
        self.x = gp.X_train_
        self.amplitude = gp.kernel_.k1.k1.constant_value
        self.length = np.broadcast_to(gp.kernel_.k1.k2.length_scale, self.x.shape[1])
        self.alpha = gp.alpha_
        self.l_inv = np.linalg.inv(gp.L_)
        self.y_mean, self.y_std = gp._y_train_mean, gp._y_train_std

    def kernel(self, points):
        """k(points, x) (m x n)."""
        s = math.sqrt(5) * cdist(points / self.length, self.x / self.length)
        return self.amplitude * (1 + s + s * s / 3) * np.exp(-s)

    def kernel_gradient(self, point):
        """dk(point, x)/dpoint (n x d)."""
        diff = (point[None, :] - self.x) / self.length
        s = math.sqrt(5) * np.sqrt(np.sum(diff * diff, axis=1))
        return -self.amplitude * 5 / 3 * ((1 + s) * np.exp(-s))[:, None] * diff / self.length

    def predict(self, points, grad=False):
        k = self.kernel(points)
        v = k @ self.l_inv.T
        mean = self.y_mean + self.y_std * (k @ self.alpha)
        var = np.maximum(self.amplitude - np.sum(v * v, axis=1), 1e-12)
        std = self.y_std * np.sqrt(var)
        if not grad:
            return mean, std
        dk = self.kernel_gradient(points[0])
        dmean = self.y_std * (dk.T @ self.alpha)
        dvar = -2 * dk.T @ (self.l_inv.T @ v[0])
        dstd = self.y_std * dvar / (2 * math.sqrt(var[0]))
        return mean, std, dmean, dstd


def acquisition(name, mean, std, best):
    """Value to minimise and its derivatives in mean and std (skopt's signs)."""
    if name == "LCB":
        return mean - KAPPA * std, 1.0, -KAPPA
    z = (best - XI - mean) / std
    cdf, pdf = norm.cdf(z), norm.pdf(z)
    if name == "PI":
        return -cdf, pdf / std, pdf * z / std
    return -((best - XI - mean) * cdf + std * pdf), cdf, -pdf


def propose(posterior, name, best, candidates, mean, std):
    """The point minimising acquisition `name`: L-BFGS-B from the best candidates (at mean, std)."""
    values = acquisition(name, mean, std, best)[0]

    def f(u):
        m, s, dm, ds = posterior.predict(u[None, :], grad=True)
        a, da_dm, da_ds = acquisition(name, m[0], s[0], best)
        return a, np.atleast_1d(da_dm) * dm + np.atleast_1d(da_ds) * ds

    results = [fmin_l_bfgs_b(f, x0, bounds=[(0, 1)] * candidates.shape[1], maxiter=MAXITER)
               for x0 in candidates[np.argsort(values)[:N_RESTARTS]]]
    return min(results, key=lambda r: float(np.squeeze(r[1])))[0]


AMPLITUDE_BOUNDS, LENGTH_BOUNDS, NOISE_BOUNDS = (0.01, 1000.0), (0.01, 100.0), (1e-5, 1e5)


def negative_log_likelihood(theta, x, y):
    """sklearn's -log marginal likelihood and its gradient for theta = log [amplitude, lengths..., noise]."""
    amplitude, length, noise = np.exp(theta[0]), np.exp(theta[1:-1]), np.exp(theta[-1])
    diff2 = (x[:, None, :] - x[None, :, :]) ** 2 / length ** 2
    s = math.sqrt(5) * np.sqrt(diff2.sum(axis=2))
    matern = (1 + s + s * s / 3) * np.exp(-s)
    k = amplitude * matern + noise * np.eye(len(x))
    try:
        chol = np.linalg.cholesky(k)
    except np.linalg.LinAlgError:
        return np.inf, np.zeros_like(theta)
    alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, y))
    value = 0.5 * y @ alpha + np.log(np.diag(chol)).sum() + 0.5 * len(x) * math.log(2 * math.pi)
    k_inv = np.linalg.solve(chol.T, np.linalg.solve(chol, np.eye(len(x))))
    w = np.outer(alpha, alpha) - k_inv
    dk_dlength = amplitude * 5 / 3 * ((1 + s) * np.exp(-s))[..., None] * diff2
    grad = [np.sum(w * amplitude * matern)] + list(np.einsum("ij,ijd->d", w, dk_dlength)) + [noise * np.trace(w)]
    return value, -0.5 * np.array(grad)


def fit(x, y, seed):
    """sklearn's GaussianProcessRegressor with gp_minimize's kernel and settings. Its
    hyperparameter search (L-BFGS-B on the log marginal likelihood from the initial
    kernel and 2 log-uniform restarts within the bounds, as GaussianProcessRegressor
    does with n_restarts_optimizer=2) runs on a vectorised likelihood: sklearn's own
    costs 4 ms of kernel bookkeeping per evaluation. Checked against
    GaussianProcessRegressor(kernel, n_restarts_optimizer=2).fit: the same kernel and likelihood."""
    dims = x.shape[1]
    bounds = np.log([AMPLITUDE_BOUNDS] + [LENGTH_BOUNDS] * dims + [NOISE_BOUNDS])
    rng = np.random.RandomState(seed)
    y_norm = (y - y.mean()) / (y.std() or 1.0)
    starts = [np.zeros(dims + 2)] + [rng.uniform(bounds[:, 0], bounds[:, 1]) for _ in range(2)]
    fits = [fmin_l_bfgs_b(negative_log_likelihood, t, args=(x, y_norm), bounds=bounds) for t in starts]
    theta = np.exp(min(fits, key=lambda f: f[1])[0])
    kernel = (ConstantKernel(theta[0], AMPLITUDE_BOUNDS) * Matern(theta[1:-1], LENGTH_BOUNDS, nu=2.5)
              + WhiteKernel(theta[-1], NOISE_BOUNDS))
    return GaussianProcessRegressor(kernel, normalize_y=True, optimizer=None).fit(x, y)


def curve(parameters, function, minimum, budget, seed):
    rng = np.random.RandomState(seed)
    space = UnitSpace(parameters)
    xs, ys = [], []
    gains, last = np.zeros(3), None
    for n in range(budget):
        if n < N_INITIAL:
            u = space.sample(rng, 1)[0]
        else:
            gp = fit(np.array(xs), np.array(ys), rng.randint(2 ** 31))
            posterior = Posterior(gp)
            if last is not None:
                gains -= posterior.predict(np.array(last))[0]
            candidates = space.sample(rng, N_POINTS)
            mean, std = posterior.predict(candidates)
            last = [propose(posterior, name, min(ys), candidates, mean, std) for name in ("EI", "LCB", "PI")]
            logits = ETA * (gains - gains.max())
            probs = np.exp(logits) / np.exp(logits).sum()
            u = last[int(np.argmax(rng.multinomial(1, probs)))]
        h = space.decode(u)
        xs.append(space.encode(h))
        ys.append(function(h))
    return best_so_far(ys, minimum)


def main():
    args = budgets_and_seeds(__doc__)
    print_header(f"\n== skopt-style GP anchor (gp_minimize defaults on scikit-learn), best-found regret "
                 f"(median [25%, 75%] over {args.seeds} seeds) ==")
    for name, minimum, parameters, function in args.objectives:
        start = time.perf_counter()
        curves = [curve(parameters, function, minimum, max(args.budgets), seed) for seed in range(1, args.seeds + 1)]
        print_rows(name, "skopt_gp", curves, args.budgets, (time.perf_counter() - start) / args.seeds)


if __name__ == "__main__":
    main()
