r"""Delay-corrected counts Ñ_k(t) of Vernade, Cappé, Perchet (2017, Section 5.1).

At the decision of step t, each past pull of arm k made at step s < t, whose lag is
e = t − 1 − s, is weighted by the probability that its conversion, if any, has been revealed:

    Ñ_k(t) = Σ_{s < t, A_s = k} w(t − 1 − s),   w(e) = τ(min(e, m)),

with τ the delay CDF and m the window (no cap, w = τ, in the uncensored model). With our
convention (feedback of step s with delay D arrives at the end of step s + D), a pull of lag e
has been revealed iff D ≤ e, hence the weight τ(e); in the censored model conversions later
than m are never revealed, hence the cap τ(m). This is the paper's Ñ with its off-by-one made
explicit: the paper writes τ_{t−s} for the estimate used after observing round t.

Two implementations:

* :class:`GeometricCount`: for geometric delays, the O(1)-per-step recursion of Eq. (6);
* :class:`TabulatedCount`: for any law, a ring buffer of the last W pulls, O(W) per step,
  where W = min(m, the lag at which τ reaches 1). Exact for every law.

Both are vectorised over a batch of runs and arms: ``push`` records the pulls of step t, then
``value()`` gives Ñ (B, K) for the decision of step t + 1.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class GeometricCountState(NamedTuple):
    """What the compiled kernel of D-UCB / D-KLUCB (:mod:`delaylab.kernels.index`) reads and
    updates of a :class:`GeometricCount`: (B, K) arrays per run and arm."""

    #: Ñ (updated)
    n_tilde: np.ndarray
    #: O, the pending weight (updated)
    O: np.ndarray
    #: λ
    lam: np.ndarray
    #: 1 − λ
    matures: np.ndarray
    #: the window m, −1 for none
    m: int
    #: λ^{m+1}; empty when uncensored
    lam_m1: np.ndarray
    #: (m + 1, B) int64, the arms of the last m + 1 steps (updated); empty when uncensored
    ring: np.ndarray


class TabulatedCountState(NamedTuple):
    """What the compiled kernel of D-UCB / D-KLUCB (:mod:`delaylab.kernels.index`) reads and
    updates of a :class:`TabulatedCount`."""

    #: (B, K) pulls older than W steps (updated)
    old: np.ndarray
    #: (B, K, W) one-hot pulls of the last W steps, slot t mod W (updated); W = 0: no ring
    buf: np.ndarray
    #: (Bw, Kw) the weight w(W) of the old pulls
    w_old: np.ndarray
    #: (Bw, Kw, 2W) the weights w(W − 1), …, w(0) twice: the rolled weights are slices
    rev2: np.ndarray


class GeometricCount:
    r"""Ñ for geometric delays, P(D > e) = λ^{e+1}: O(1) per step (Eq. 6).

    Uncensored: Ñ_k = N_k − O_k where O_k(t) = Σ_{s<t, A_s=k} λ^{t−s} is the weight still
    pending, updated by O_k ← λ (O_k + 1{A_t = k}). Equivalently, each step a fraction 1 − λ
    of the pending weight matures: Ñ_k ← Ñ_k + (1 − λ)(O_k + 1{A_t = k}), which is the form
    used here (no cancellation N − O).

    Censored at m: a pull stops gaining weight once its lag reaches m, so its remaining pending
    weight λ^{m+1} leaves O without maturing. This needs the arms of the last m + 1 steps (the
    paper's "buffer of size m").

    Parameters
    ----------
    ratio : array broadcastable to (B, K)
        λ = μ / (1 + μ) per run and arm.
    window : int or None
    batch_size, n_arms : int
    """

    def __init__(self, ratio, window, batch_size, n_arms):
        B, K = batch_size, n_arms
        self.lam = np.broadcast_to(np.asarray(ratio, dtype=float), (B, K)).copy()
        with np.errstate(divide="ignore"):  # λ = 0 (no delay): log λ = −∞, 1 − λ = 1
            self.matures = -np.expm1(np.log(self.lam))  # 1 − λ = P(D = e | D ≥ e), precise for λ ≈ 1
        self.m = window
        self.n_tilde = np.zeros((B, K))  # Ñ
        self.O = np.zeros((B, K))  # pending weight
        self._flat = np.arange(B) * K  # flat index of (run, arm 0)
        if window is not None:
            self.lam_m1 = self.lam ** (window + 1)  # λ^{m+1}
            self.ring = np.zeros((window + 1, B), dtype=np.int64)

    def push(self, t: int, arms: np.ndarray, onehot: np.ndarray) -> None:
        O = self.O
        O += onehot
        self.n_tilde += self.matures * O
        O *= self.lam
        if self.m is not None:
            self.ring[t % (self.m + 1)] = arms
            s = t - self.m  # its lag reaches m at the next decision: no more weight to gain
            if s >= 0:
                out = self._flat + self.ring[s % (self.m + 1)]
                O.reshape(-1)[out] -= self.lam_m1.reshape(-1)[out]

    def value(self) -> np.ndarray:
        return self.n_tilde

    def kernel_state(self) -> GeometricCountState:
        """The state the compiled kernel works on (see :class:`GeometricCountState`)."""
        censored = self.m is not None
        B, K = self.n_tilde.shape
        return GeometricCountState(
            self.n_tilde, self.O, self.lam, np.ascontiguousarray(self.matures), -1 if not censored else int(self.m),
            np.ascontiguousarray(self.lam_m1) if censored else np.zeros((0, K)),
            self.ring if censored else np.zeros((0, B), dtype=np.int64))


def dyadic(w, n_terms: int) -> np.ndarray:
    """Weights ``w`` (in [0, 1]) rounded to multiples of 2^−f, f = 52 − bit length of ``n_terms``:
    any sum of at most ``n_terms`` of them is exact in floating point, in any order."""
    f = 52 - max(1, int(n_terms).bit_length())
    return np.ldexp(np.round(np.ldexp(np.asarray(w, dtype=float), f)), -f)


class TabulatedCount:
    r"""Ñ for any delay law, from a table of weights w(0), …, w(W).

    The pulls of the last W steps are kept in a ring buffer; older pulls all carry the weight
    w(W) and are only counted. Ñ = Σ_{e<W} w(e) 1{A_{t−1−e} = k} + w(W) N_k^{old}: one
    matrix–vector product per step.

    Parameters
    ----------
    weights : array (Bw, Kw, W + 1)
        w(e) for e = 0 … W, shared (Bw = 1) or per run (Bw = B), shared (Kw = 1) or per arm.
    batch_size, n_arms : int
    """

    def __init__(self, weights, batch_size, n_arms):
        w = np.asarray(weights, dtype=float)
        self.W = w.shape[-1] - 1
        self.B, self.K = batch_size, n_arms
        self.old = np.zeros((batch_size, n_arms))
        self.t = -1
        # ring of one-hot pulls, slot axis last: Ñ is then a (batched) matrix–vector product
        self.buf = np.zeros((batch_size, n_arms, self.W)) if self.W else None
        self.set_weights(w)

    def set_weights(self, w: np.ndarray, rows=None) -> None:
        """Replace the weights (shape (Bw, Kw, W + 1)), or with ``rows`` (indices of runs, when the
        weights are per run) those of these runs only (``w`` then has one row per index).

        The weights are rounded to multiples of 2^−f with W < 2^(52−f): every partial sum of
        at most W of them is then exact in floating point, so Ñ does not depend on the order of
        the summation (BLAS's, which may change with the batch size, or the compiled kernel's;
        arms with the same pulls get exactly the same Ñ and tie). The rounding moves a weight by
        less than 2^−(f+1) ≤ W·1e-16.
        """
        w = dyadic(w, self.W)
        rev = w[..., : self.W][..., ::-1]
        if rows is not None:
            self.w_old[rows] = w[..., self.W]
            self._rev2[rows, :, : self.W] = rev
            self._rev2[rows, :, self.W :] = rev
            return
        self.w_old = w[..., self.W].copy()
        self._rev2 = np.ascontiguousarray(np.concatenate([rev, rev], axis=-1))  # rolled weights are slices

    def push(self, t: int, arms: np.ndarray, onehot: np.ndarray) -> None:
        self.t = t
        if not self.W:
            self.old += onehot
            return
        slot = t % self.W
        if t >= self.W:  # the pull of step t − W reaches lag W: it becomes old
            self.old += self.buf[:, :, slot]
        self.buf[:, :, slot] = onehot

    def kernel_state(self) -> TabulatedCountState:
        """The state the compiled kernel works on (see :class:`TabulatedCountState`)."""
        buf = self.buf if self.buf is not None else np.zeros((self.B, self.K, 0))
        return TabulatedCountState(self.old, buf, np.ascontiguousarray(self.w_old), self._rev2)

    def rolled(self) -> np.ndarray:
        """Weights aligned with the ring slots: slot j holds the pull of lag (t − j) mod W."""
        c = self.t % self.W
        return self._rev2[..., self.W - 1 - c : 2 * self.W - 1 - c]

    def value(self) -> np.ndarray:
        out = self.w_old * self.old
        if not self.W or self.t < 0:
            return out
        r = self.rolled()  # (Bw, Kw, W)
        Bw, Kw = r.shape[:2]
        if Bw == 1 and Kw == 1:  # one matrix–vector product (BLAS)
            recent = (self.buf.reshape(-1, self.W) @ r[0, 0]).reshape(self.B, self.K)
        elif Bw == 1:  # one product per arm
            recent = np.stack([self.buf[:, k] @ r[0, k] for k in range(self.K)], axis=1)
        elif Kw == 1:  # one product per run, batched
            recent = np.matmul(self.buf, r[:, 0, :, None])[..., 0]
        else:
            recent = np.einsum("bkw,bkw->bk", self.buf, r)
        return out + recent
