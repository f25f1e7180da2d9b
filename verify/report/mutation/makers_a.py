"""The makers of paper A's mutants (:mod:`verify.report.mutation.catalogue_a`): each takes the
original (public) function, method or value and returns the bug: the original called with altered
inputs, or its output perturbed. torch and numpy are imported inside the makers: the catalogue
stays cheap to import.
"""

from __future__ import annotations

import math


def loss_without_t_squared(original):
    def loss(self):
        return original(self) - self.t * self.t           # the t^2 square is missing
    return loss


def loss_cross_sign(original):
    def loss(self):
        # -2 g_a g~_a P instead of +2: 4 g_a g~_a P less
        return original(self) - 4 * self.ga[..., 0] * self.ga[..., 1] * self.P
    return loss


def weight_grad_without_support_pull(original):
    def weight_grad(self):
        G, Ga, Gb = original(self)
        Ga = Ga + 2 * self.t[..., None] * self.gb.flip(-1)    # the -2 t g~_b term dropped
        G[..., self.a] = Ga
        return G, Ga, Gb
    return weight_grad


def weight_grad_ambient_sign(original):
    def weight_grad(self):
        G, Ga, Gb = original(self)
        Gam = self.Gam
        prod = Gam[..., 0:1, :] * Gam[..., 1:2, :]
        G = G - 8 * (self.c0[..., None, None] - prod) * Gam.flip(-2)   # -4 (c0 - g_i g~_i) g~_i
        G[..., self.a] = Ga
        G[..., self.b] = Gb
        return G, Ga, Gb
    return weight_grad


def cotangent_not_centred(original):
    def logit_cotangent(self, Z, attention):
        if attention != "softmax":
            return original(self, Z, attention)
        G, _, _ = self.weight_grad()
        return self.Gam * G                  # diag(gamma) only: the -gamma gamma^T part is missing
    return logit_cotangent


def erf_cotangent_halved(original):
    def logit_cotangent(self, Z, attention):
        W = original(self, Z, attention)
        return W / 2 if attention == "erf" else W     # erf' read as e^{-z^2}/sqrt(pi)
    return logit_cotangent


def single_cotangent_not_centred(original):
    def softmax_cotangent(Gam, G, GamR, a, b, heads):
        G *= Gam                             # diag(gamma) only: the -gamma gamma^T part is missing
        return G
    return softmax_cotangent


def single_weight_grad_ambient_sign(original):
    def weight_grad(Gam, prod, c0, full, a, b, Ga, Gb):
        G = original(Gam, prod, c0, full, a, b, Ga, Gb)    # prod now holds 4 (c0 - g_i g~_i)
        G -= 2 * Gam[::-1] * prod                          # -4 (c0 - g_i g~_i) g~_i instead of +4
        G[:, a] = Ga
        G[:, b] = Gb
        return G
    return weight_grad


def support_pull_dropped(original):
    def support_weight_grads(c0, t, P, ga, gb, ga_o, gb_o, N_o):
        Ga, Gb = original(c0, t, P, ga, gb, ga_o, gb_o, N_o)
        return Ga + 2 * t * gb_o, Gb                       # dL/dgamma_a without its -2 t g~_b term
    return support_weight_grads


def grad_halved(original):
    def population_grad(*args, **kwargs):
        g, gt = original(*args, **kwargs)
        return 0.5 * g, 0.5 * gt           # d(r^2) = r dr: the factor 2 of the square lost
    return population_grad


def grad_heads_swapped(original):
    def population_grad(*args, **kwargs):
        g, gt = original(*args, **kwargs)
        return gt, g
    return population_grad


def never_fall_back(original):
    return math.inf                         # the one-pass moments trusted however they cancel


def one_pass_square_moments_swapped(original):
    def one_pass_grad(acc):
        acc.Mom = acc.Mom[[0, 1, 3, 2, 4, 5]]   # sum gamma_i^2 v_i read as the other head's
        return original(acc)
    return one_pass_grad


def one_pass_support_rows_swapped(original):
    def one_pass_grad(acc):
        acc.va, acc.vb = acc.vb, acc.va         # v_a and v_b exchanged in the support terms
        return original(acc)
    return one_pass_grad


def softmax_unnormalised(original):
    def map_unchecked(z, attention):
        gamma = original(z, attention)
        if attention != "softmax":
            return gamma
        # times the normaliser sum_j exp(z_j - max z): exp(z - max z), never divided by its sum
        return gamma * (z - z.amax(-1, keepdim=True)).exp().sum(-1, keepdim=True)
    return map_unchecked


def linear_unscaled(original):
    def map_unchecked(z, attention):
        gamma = original(z, attention)
        return gamma * z.shape[-1] if attention == "linear" else gamma     # z, not z / d
    return map_unchecked


def erf_scale_inside(original):
    def map_unchecked(z, attention):
        if attention != "erf":
            return original(z, attention)
        d = z.shape[-1]
        return original(z / d, attention) * d           # erf(z / d), not erf(z) / d
    return map_unchecked


def one_step_ascends(original):
    def one_step(V, theta, theta_tilde, support, lr, attention="softmax"):
        t1, tt1 = original(V, theta, theta_tilde, support, lr, attention)
        return 2 * theta - t1, 2 * theta_tilde - tt1      # theta + eta grad
    return one_step


def support_off_by_one(original):
    def check_model(*args, **kwargs):
        a, b, batch = original(*args, **kwargs)
        d = args[0].shape[-2]
        b1 = (b + 1) % d
        return a, (b1 if b1 != a else b), batch      # b read 1-based
    return check_model


def default_lr_linear_in_d(original):
    def default_lr(d, m, c=10.0):
        return original(d, m, c) / d        # c d sqrt(m) ln d: d^2 lost a factor
    return default_lr


def empirical_half_samples(original):
    def empirical_grad(V, theta, theta_tilde, X, y, attention="softmax"):
        original(V, theta, theta_tilde, X, y, attention)   # the argument checks stay intact
        h = max(1, X.shape[-2] // 2)
        return original(V, theta, theta_tilde, X[..., :h, :], y[..., :h], attention)
    return empirical_grad


def labels_wrong_sign(original):
    def sample_data(*args, **kwargs):
        X, y = original(*args, **kwargs)
        return X, -y                        # y = +x_a x_b
    return sample_data


def gamma_grad_sum_half_samples(original):
    def gamma_grad_sum(X, y, gam):
        h = max(1, X.shape[-2] // 2)
        return original(X[..., :h, :], y[..., :h], gam)
    return gamma_grad_sum


def blocks_labels_wrong_sign(original):
    def blocks(self):
        for X, y in original(self):
            yield X, -y
    return blocks


def limit_argmin(original):
    def limit_step_attention(V, theta, theta_tilde, support, attention="softmax", limit_from=None):
        if attention != "softmax":
            return original(V, theta, theta_tilde, support, attention, limit_from)
        if limit_from is None:
            from numeric.xor import population_grad

            limit_from = population_grad(V, theta, theta_tilde, support, attention)
        g, gt = limit_from
        # the limit of a step up the gradient: all weight on the most negative logit of -V grad
        return original(V, theta, theta_tilde, support, attention, (-g, -gt))
    return limit_step_attention


def stream_limit_ascends(original):
    def stream_step_metrics(*args, limit_from=None, **kwargs):
        if limit_from is not None:
            g, gt = limit_from
            limit_from = (-g, -gt)           # s = +V grad: the limit of a step up the gradient
        return original(*args, limit_from=limit_from, **kwargs)
    return stream_step_metrics


def assignment_flipped(original):
    def predicted_assignment(V, theta, support):
        a, b = support
        return original(V, theta, (b, a))   # sign((v_b - v_a) . theta)
    return predicted_assignment


def assignment_reads_the_step(original):
    def predicted_assignment(V, theta, support):
        import torch

        from numeric import xor

        # the "prediction" read from the realised step: head 1's larger post-step weight of a, b
        a, b = support
        th1, _ = xor.one_step(V, theta, -theta, support, xor.default_lr(V.shape[-2], V.shape[-1]))
        gamma = torch.softmax((V @ th1.unsqueeze(-1)).squeeze(-1), -1)
        return torch.where(gamma[..., a] > gamma[..., b], 1.0, -1.0).to(V.dtype)
    return predicted_assignment


def instances_repeated(original):
    def make_instances(d, m, seeds, **kw):
        return original(d, m, [seeds[0]] * len(seeds), **kw)
    return make_instances


def threshold_sizes_log10(original):
    def fit_threshold_curves(group, size, successes, trials, **kw):
        # the sizes read on the wrong logarithm: log10 m where the model takes ln m
        return original(group, [math.exp(math.log10(s)) for s in size], successes, trials, **kw)
    return fit_threshold_curves


def success_head_one_only(original):
    def step_metrics(V, theta, theta_tilde, support, eps=0.01, **kw):
        out = original(V, theta, theta_tilde, support, eps, **kw)
        return dict(out, success=out["eps1"] <= eps)  # the second head never checked
    return step_metrics


def lr_matrix_without_c(original):
    def lr_matrix(self):
        return original(self) / (self.cls @ self.cls)     # |c|^2 dropped
    return lr_matrix


def cls_attends_itself(original):
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.attn_mask[0, 0] = True          # the CLS row also attends to the CLS token
    return __init__


def hessian_factor(original):
    def relaxation_hessian(U):
        import numpy as np

        d, r = U.shape
        W = np.einsum("ip,iq->ipq", U, U).reshape(d, r * r)
        return original(U) + W.T @ W         # -W^T W instead of -2 W^T W
    return relaxation_hessian


def wilson_one_sided(original):
    def wilson_interval(successes, trials, confidence=0.95, *, z=None):
        from statistics import NormalDist

        if z is None:
            z = NormalDist().inv_cdf(confidence)     # one-sided quantile: 1.645 at 95%
        return original(successes, trials, confidence, z=z)
    return wilson_interval


def support_allows_equal(original):
    def check_support(support, d, name="support"):
        try:
            pair = tuple(support)
            if len(pair) == 2 and pair[0] == pair[1] and 0 <= int(pair[0]) < d:
                return int(pair[0]), int(pair[1])     # a == b accepted
        except (TypeError, ValueError):
            pass
        return original(support, d, name)
    return check_support


def sweep_eps_ten_times(original):
    def run_sweep(*args, eps=0.01, **kwargs):
        return original(*args, eps=10 * eps, **kwargs)     # success at 1 - gamma <= 0.1
    return run_sweep


def step_metrics_ten_times_lax(original):
    def step_metrics(V, theta, theta_tilde, support, eps=0.01, **kw):
        return original(V, theta, theta_tilde, support, 10 * eps, **kw)
    return step_metrics


def finite_samples_unconditional(original):
    def run_finite_samples(*args, **kwargs):
        import dataclasses

        # every seed counted as a population success: the rate is the unconditional one
        return [dataclasses.replace(c, population_bits="1" * c.n_seeds, population_successes=c.n_seeds,
                                    both_successes=c.successes, rate_given_population=c.rate)
                for c in original(*args, **kwargs)]
    return run_finite_samples


def tolerance_rows_float32(original):
    return {**original, "float64": original["float32"]}


def init_gradient_sign_flipped(original):
    def init_gradient(head="g"):
        w0, w1 = original(head)
        return w0, -w1      # the order-1 part with the wrong sign: the heads' assignment swaps
    return init_gradient
