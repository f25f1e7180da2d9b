r"""Paper A's mutants: the two-head XOR model (claims SX-1 to SX-8) and the code under it.

Each maker takes the original (public) function, method or value and returns the bug: the
original called with altered inputs, or its output perturbed. Each probe is a tiny call whose
result the bug changes. torch and numpy are imported inside makers and probes: the catalogue
stays cheap to import.
"""

from __future__ import annotations

import math

from verify.report.mutation.engine import Mutant

_SX1 = "theorems/test_SX1_population_loss.py"
_SX2 = "theorems/test_SX2_population_gradient.py"
_SX3 = "theorems/test_SX3_cls_equivalence.py"
_SX4 = "theorems/test_SX4_one_step.py"
_SX7 = "theorems/test_SX7_parameter_count.py"
_SX5 = "theorems/test_SX5_softmax_necessity.py"
_SX6 = "theorems/test_SX6_sample_complexity.py"
_SX8 = "theorems/test_SX8_interpretability.py"
#: the tolerance table is shared: paper B's forward-pass check uses its float64 row too
_SG6 = "theorems/test_SG6_random_init_sensitivity.py"

# the targets, one line each (the public seams the mutants wrap)
_STATE = "numeric.xor._forms.ClosedFormState"
_POPULATION = "numeric.xor._population"
_ONE_PASS_GRAD = "numeric.xor._blocks.normalised_one_pass_grad"
_FALLBACK_RATIO = "numeric.xor._blocks.FALLBACK_RATIO"
_MAP = "numeric.xor._attention.map_unchecked"
_METRICS = "numeric.xor._metrics"
_STREAM_STEP_METRICS = "numeric.xor.stream_step_metrics"
_FINITE_SAMPLES = "verify.experiments.finite_samples"
_CLS = "numeric.xor.CLSTransformer"
_RELAXATION_HESSIAN = "verify.reference.linear_bound.relaxation_hessian"
_WILSON = "verify.stats.intervals.wilson_interval"
_CHECK_SUPPORT = "numeric.validation.check_support"


# --------------------------------------------------------------------------- probes
# A probe looks its functions up through the public modules at call time, so the same probe
# sees the original before install and the mutant after.

def xor_probe_instance(d=6, m=3, seed=0):
    """``(V, theta, theta_tilde, support)``: a small float64 instance from a seed, for probes."""
    import torch

    from numeric import xor

    g = torch.Generator().manual_seed(seed)
    V = xor.sample_embeddings(d, m, generator=g)
    th = torch.randn(m, generator=g, dtype=torch.float64) * 2
    tt = torch.randn(m, generator=g, dtype=torch.float64) * 2
    return V, th, tt, (1, 4)


def _loss():
    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return xor.population_loss(V, th, tt, s)


def _grad(attention="softmax"):
    def probe():
        import torch

        from numeric import xor

        V, th, tt, s = xor_probe_instance()
        return torch.cat(xor.population_grad(V, th, tt, s, attention))
    return probe


def _grad_two_pass(attention="softmax"):
    """A batch of one instance: the two-pass path (cotangent of the closed form, then V^T)."""
    def probe():
        import torch

        from numeric import xor

        V, th, tt, s = xor_probe_instance()
        return torch.cat(xor.population_grad(V[None], th[None], tt[None], s, attention), -1)
    return probe


def _grad_near_cancellation():
    """Large logits off the support: the one-pass moments cancel and the exact path is needed."""
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance(d=8, m=3, seed=3)
    return torch.cat(xor.population_grad(V, 40 * th, 40 * tt, s))


def _weights(attention):
    def probe():
        from numeric import xor

        V, th, _, _ = xor_probe_instance()
        return xor.attention_weights(V, th, attention)
    return probe


def _one_step():
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return torch.cat(xor.one_step(V, th, tt, s, 1.0))


def _default_lr():
    from numeric import xor

    return xor.default_lr(10, 4)


def _empirical():
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    X, y = xor.sample_data(16, 6, s, generator=torch.Generator().manual_seed(1))
    return torch.cat(xor.empirical_grad(V, th, tt, X, y))


def _finite_sample_labels():
    import torch

    from verify.experiments import finite_samples as fs

    stream = fs.SampleStream([torch.Generator().manual_seed(2)], 6, 5, (1, 4), torch.float64)
    return torch.cat([y.flatten() for _, y in stream.blocks()])


def _finite_sample_gradient():
    import torch

    from verify.experiments import finite_samples as fs

    g = torch.Generator().manual_seed(2)
    X = (2 * torch.randint(0, 2, (1, 8, 6), generator=g) - 1).to(torch.float64)
    gam = torch.softmax(torch.randn(1, 2, 6, generator=g, dtype=torch.float64), -1)
    return fs.gamma_grad_sum(X, -X[..., 1] * X[..., 4], gam)


def _sample_labels():
    import torch

    from numeric import xor

    return xor.sample_data(8, 6, (1, 4), generator=torch.Generator().manual_seed(1))[1]


def _limit():
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return torch.cat(xor.limit_step_attention(V, th, tt, s))


def _stream_limit():
    import torch

    from numeric.xor import stream_step_metrics, streamed_instance

    E, sup, th, tt = streamed_instance(300, 4, 0, block=64)
    va = E.rows([sup[0]])[0]
    # s = -V grad = V v_a: largest at a (unit rows), so the limit puts head 1 on a
    met = stream_step_metrics(E, th, tt, sup, limit_from=(-va, va))
    return torch.stack([met[k] for k in sorted(met) if k.startswith("limit")])


def _assignment():
    from numeric import xor

    V, th, _, s = xor_probe_instance()
    return xor.predicted_assignment(V, th, s)


def _cls(what):
    def probe():
        import torch

        from numeric.xor import CLSTransformer, all_inputs

        g = torch.Generator().manual_seed(3)
        V, _, _, _ = xor_probe_instance(d=4, m=2)
        model = CLSTransformer(V, torch.randn(2, 2, 3, generator=g, dtype=torch.float64),
                               torch.randn(2, 2, 3, generator=g, dtype=torch.float64),
                               torch.randn(3, generator=g, dtype=torch.float64))
        if what == "lr":
            return model.lr_matrix()
        with torch.no_grad():
            return model(all_inputs(4))
    return probe


def _linear_bound():
    from verify.reference.linear_bound import linear_attention_loss_bound

    V, _, _, s = xor_probe_instance(d=6, m=3)
    return linear_attention_loss_bound(V.numpy(), s)["bound"]


def _wilson():
    from verify.stats.intervals import wilson_interval

    return wilson_interval(50, 100)


def _support():
    from numeric.validation import InputError, check_support

    try:
        return check_support((1, 1), 4)
    except InputError as exc:
        return str(exc)


# --------------------------------------------------------------------------- makers

def _loss_without_t_squared(original):
    def loss(self):
        return original(self) - self.t * self.t           # the t^2 square is missing
    return loss


def _loss_cross_sign(original):
    def loss(self):
        # -2 g_a g~_a P instead of +2: 4 g_a g~_a P less
        return original(self) - 4 * self.ga[..., 0] * self.ga[..., 1] * self.P
    return loss


def _weight_grad_without_support_pull(original):
    def weight_grad(self):
        G, Ga, Gb = original(self)
        Ga = Ga + 2 * self.t[..., None] * self.gb.flip(-1)    # the -2 t g~_b term dropped
        G[..., self.a] = Ga
        return G, Ga, Gb
    return weight_grad


def _weight_grad_ambient_sign(original):
    def weight_grad(self):
        G, Ga, Gb = original(self)
        Gam = self.Gam
        prod = Gam[..., 0:1, :] * Gam[..., 1:2, :]
        G = G - 8 * (self.c0[..., None, None] - prod) * Gam.flip(-2)   # -4 (c0 - g_i g~_i) g~_i
        G[..., self.a] = Ga
        G[..., self.b] = Gb
        return G, Ga, Gb
    return weight_grad


def _cotangent_not_centred(original):
    def logit_cotangent(self, Z, attention):
        if attention != "softmax":
            return original(self, Z, attention)
        G, _, _ = self.weight_grad()
        return self.Gam * G                  # diag(gamma) only: the -gamma gamma^T part is missing
    return logit_cotangent


def _erf_cotangent_halved(original):
    def logit_cotangent(self, Z, attention):
        W = original(self, Z, attention)
        return W / 2 if attention == "erf" else W     # erf' read as e^{-z^2}/sqrt(pi)
    return logit_cotangent


def _grad_halved(original):
    def population_grad(*args, **kwargs):
        g, gt = original(*args, **kwargs)
        return 0.5 * g, 0.5 * gt           # d(r^2) = r dr: the factor 2 of the square lost
    return population_grad


def _grad_heads_swapped(original):
    def population_grad(*args, **kwargs):
        g, gt = original(*args, **kwargs)
        return gt, g
    return population_grad


def _never_fall_back(original):
    return math.inf                         # the one-pass moments trusted however they cancel


def _one_pass_square_moments_swapped(original):
    def one_pass_grad(acc):
        acc.Mom = acc.Mom[[0, 1, 3, 2, 4, 5]]   # sum gamma_i^2 v_i read as the other head's
        return original(acc)
    return one_pass_grad


def _one_pass_support_rows_swapped(original):
    def one_pass_grad(acc):
        acc.va, acc.vb = acc.vb, acc.va         # v_a and v_b exchanged in the support terms
        return original(acc)
    return one_pass_grad


def _softmax_unnormalised(original):
    def map_unchecked(z, attention):
        gamma = original(z, attention)
        if attention != "softmax":
            return gamma
        # times the normaliser sum_j exp(z_j - max z): exp(z - max z), never divided by its sum
        return gamma * (z - z.amax(-1, keepdim=True)).exp().sum(-1, keepdim=True)
    return map_unchecked


def _linear_unscaled(original):
    def map_unchecked(z, attention):
        gamma = original(z, attention)
        return gamma * z.shape[-1] if attention == "linear" else gamma     # z, not z / d
    return map_unchecked


def _erf_scale_inside(original):
    def map_unchecked(z, attention):
        if attention != "erf":
            return original(z, attention)
        d = z.shape[-1]
        return original(z / d, attention) * d           # erf(z / d), not erf(z) / d
    return map_unchecked


def _one_step_ascends(original):
    def one_step(V, theta, theta_tilde, support, lr, attention="softmax"):
        t1, tt1 = original(V, theta, theta_tilde, support, lr, attention)
        return 2 * theta - t1, 2 * theta_tilde - tt1      # theta + eta grad
    return one_step


def _support_off_by_one(original):
    def check_model(*args, **kwargs):
        a, b, batch = original(*args, **kwargs)
        d = args[0].shape[-2]
        b1 = (b + 1) % d
        return a, (b1 if b1 != a else b), batch      # b read 1-based
    return check_model


def _default_lr_linear_in_d(original):
    def default_lr(d, m, c=10.0):
        return original(d, m, c) / d        # c d sqrt(m) ln d: d^2 lost a factor
    return default_lr


def _empirical_half_samples(original):
    def empirical_grad(V, theta, theta_tilde, X, y, attention="softmax"):
        original(V, theta, theta_tilde, X, y, attention)   # the argument checks stay intact
        h = max(1, X.shape[-2] // 2)
        return original(V, theta, theta_tilde, X[..., :h, :], y[..., :h], attention)
    return empirical_grad


def _labels_wrong_sign(original):
    def sample_data(*args, **kwargs):
        X, y = original(*args, **kwargs)
        return X, -y                        # y = +x_a x_b
    return sample_data


def _gamma_grad_sum_half_samples(original):
    def gamma_grad_sum(X, y, gam):
        h = max(1, X.shape[-2] // 2)
        return original(X[..., :h, :], y[..., :h], gam)
    return gamma_grad_sum


def _blocks_labels_wrong_sign(original):
    def blocks(self):
        for X, y in original(self):
            yield X, -y
    return blocks


def _limit_argmin(original):
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


def _stream_limit_ascends(original):
    def stream_step_metrics(*args, limit_from=None, **kwargs):
        if limit_from is not None:
            g, gt = limit_from
            limit_from = (-g, -gt)           # s = +V grad: the limit of a step up the gradient
        return original(*args, limit_from=limit_from, **kwargs)
    return stream_step_metrics


def _assignment_flipped(original):
    def predicted_assignment(V, theta, support):
        a, b = support
        return original(V, theta, (b, a))   # sign((v_b - v_a) . theta)
    return predicted_assignment


def _assignment_reads_the_step(original):
    def predicted_assignment(V, theta, support):
        import torch

        from numeric import xor

        # the "prediction" read from the realised step: head 1's larger post-step weight of a, b
        a, b = support
        th1, _ = xor.one_step(V, theta, -theta, support, xor.default_lr(V.shape[-2], V.shape[-1]))
        gamma = torch.softmax((V @ th1.unsqueeze(-1)).squeeze(-1), -1)
        return torch.where(gamma[..., a] > gamma[..., b], 1.0, -1.0).to(V.dtype)
    return predicted_assignment


def _assignments():
    from numeric import xor
    from verify.experiments.xor_sweeps import make_instances

    V, th, _ = make_instances(50, 4, list(range(40)))
    return xor.predicted_assignment(V, th, (0, 1))


def _instances_repeated(original):
    def make_instances(d, m, seeds, **kw):
        return original(d, m, [seeds[0]] * len(seeds), **kw)
    return make_instances


def _instances_of_two_seeds():
    from verify.experiments import attention_comparison

    V, _, _ = attention_comparison.make_instances(6, 3, [0, 1])
    return float((V[1] - V[0]).abs().sum())


def _threshold_sizes_log10(original):
    def fit_threshold_curves(group, size, successes, trials, **kw):
        # the sizes read on the wrong logarithm: log10 m where the model takes ln m
        return original(group, [math.exp(math.log10(s)) for s in size], successes, trials, **kw)
    return fit_threshold_curves


def _threshold_fit():
    from verify.stats.thresholds import fit_threshold_curves

    fit = fit_threshold_curves([10, 10, 10, 100, 100, 100], [4, 8, 16, 4, 8, 16], [2, 10, 19, 1, 6, 18],
                               [20] * 6, law="free")
    return round(fit.threshold(10), 6)


def _success_head_one_only(original):
    def step_metrics(V, theta, theta_tilde, support, eps=0.01, **kw):
        out = original(V, theta, theta_tilde, support, eps, **kw)
        return dict(out, success=out["eps1"] <= eps)  # the second head never checked
    return step_metrics


def _known_specialisations():
    from numeric.xor import step_metrics
    from verify.experiments.known_answers import specialisation_instances

    V, th, tt, sup, _, _ = specialisation_instances()
    return step_metrics(V, th, tt, sup, exact_sup=False)["success"]


def _lr_matrix_without_c(original):
    def lr_matrix(self):
        return original(self) / (self.cls @ self.cls)     # |c|^2 dropped
    return lr_matrix


def _cls_attends_itself(original):
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.attn_mask[0, 0] = True          # the CLS row also attends to the CLS token
    return __init__


def _hessian_factor(original):
    def relaxation_hessian(U):
        import numpy as np

        d, r = U.shape
        W = np.einsum("ip,iq->ipq", U, U).reshape(d, r * r)
        return original(U) + W.T @ W         # -W^T W instead of -2 W^T W
    return relaxation_hessian


def _wilson_one_sided(original):
    def wilson_interval(successes, trials, confidence=0.95, *, z=None):
        from statistics import NormalDist

        if z is None:
            z = NormalDist().inv_cdf(confidence)     # one-sided quantile: 1.645 at 95%
        return original(successes, trials, confidence, z=z)
    return wilson_interval


def _support_allows_equal(original):
    def check_support(support, d, name="support"):
        try:
            pair = tuple(support)
            if len(pair) == 2 and pair[0] == pair[1] and 0 <= int(pair[0]) < d:
                return int(pair[0]), int(pair[1])     # a == b accepted
        except (TypeError, ValueError):
            pass
        return original(support, d, name)
    return check_support


def _sweep_eps_ten_times(original):
    def run_sweep(*args, eps=0.01, **kwargs):
        return original(*args, eps=10 * eps, **kwargs)     # success at 1 - gamma <= 0.1
    return run_sweep


def _sweep_eps():
    from verify.experiments import xor_sweeps

    return xor_sweeps.run_sweep([4], [2], 1)[0].key["eps"]


def _step_metrics_ten_times_lax(original):
    def step_metrics(V, theta, theta_tilde, support, eps=0.01, **kw):
        return original(V, theta, theta_tilde, support, 10 * eps, **kw)
    return step_metrics


def _near_miss_success():
    from numeric import xor
    from verify.experiments.known_answers import near_miss_heads

    V, th, tt, s = near_miss_heads(8, (0.03,))
    return bool(xor.step_metrics(V, th, tt, s, exact_sup=False)["success"][0])


def _finite_samples_unconditional(original):
    def run_finite_samples(*args, **kwargs):
        import dataclasses

        # every seed counted as a population success: the rate is the unconditional one
        return [dataclasses.replace(c, population_bits="1" * c.n_seeds, population_successes=c.n_seeds,
                                    both_successes=c.successes, rate_given_population=c.rate)
                for c in original(*args, **kwargs)]
    return run_finite_samples


def _finite_samples_population():
    from verify.experiments import finite_samples

    c = finite_samples.run_finite_samples([4], {4: [8]}, 2, 6)[0]
    return c.population_bits, c.both_successes


def _tolerance_rows_float32(original):
    return {**original, "float64": original["float32"]}


def _float64_tolerance():
    from verify.common.tolerances import tolerance

    return tolerance("float64")


# --------------------------------------------------------------------------- the catalogue

PAPER_A: tuple[Mutant, ...] = (
    # loss and gradient
    Mutant("loss_drops_t_squared",
           "population loss without the square t^2 = (1 - g_a g~_b - g_b g~_a)^2 of the support term",
           f"{_STATE}.loss", _loss_without_t_squared, _loss, (_SX3, _SX1)),
    Mutant("loss_cross_term_sign",
           "population loss: -2 g_a g~_a (g_R.g~_R) instead of +2 in the square of the a-coefficients",
           f"{_STATE}.loss", _loss_cross_sign, _loss, (_SX3, _SX1)),
    Mutant("grad_drops_support_pull",
           "dL/dgamma_a without its -2 t g~_b term (the pull towards the support)",
           f"{_STATE}.weight_grad", _weight_grad_without_support_pull, _grad_two_pass(),
           (_SX2, _SX3, _SX8, _SX4)),
    Mutant("grad_ambient_term_sign",
           "dL/dgamma_i: -4(g.g~ - g_i g~_i) g~_i instead of +4",
           f"{_STATE}.weight_grad", _weight_grad_ambient_sign, _grad_two_pass(), (_SX2, _SX3)),
    Mutant("grad_halved", "population gradient half its value (the factor 2 of d(r^2) lost)",
           f"{_POPULATION}.population_grad", _grad_halved, _grad(), (_SX2, _SX3)),
    Mutant("grad_heads_swapped", "population_grad returns (grad theta~, grad theta): heads swapped",
           f"{_POPULATION}.population_grad", _grad_heads_swapped, _grad(), (_SX2, _SX3)),
    Mutant("one_pass_without_fallback",
           "one-pass softmax gradient that never falls back to two passes where its moments cancel",
           _FALLBACK_RATIO, _never_fall_back, _grad_near_cancellation, (_SX2,)),
    Mutant("one_pass_square_moments_swapped",
           "one-pass softmax gradient with the sums of gamma^2 v and gamma~^2 v exchanged",
           _ONE_PASS_GRAD, _one_pass_square_moments_swapped, _grad(), (_SX2, _SX3)),
    Mutant("one_pass_support_rows_swapped",
           "one-pass softmax gradient with the rows v_a and v_b exchanged in the support terms",
           _ONE_PASS_GRAD, _one_pass_support_rows_swapped, _grad(), (_SX2, _SX3)),
    Mutant("softmax_cotangent_not_centred",
           "softmax pull-back gamma * g, without the -(gamma.g) gamma of diag(gamma) - gamma gamma^T",
           f"{_STATE}.logit_cotangent", _cotangent_not_centred, _grad_two_pass(), (_SX2, _SX3)),
    Mutant("erf_cotangent_constant", "erf Jacobian with 1/sqrt(pi) instead of 2/sqrt(pi)",
           f"{_STATE}.logit_cotangent", _erf_cotangent_halved, _grad_two_pass("erf"), (_SX2,)),
    # attention maps
    Mutant("softmax_unnormalised", "softmax weights exp(z - max z) without the division by their sum",
           _MAP, _softmax_unnormalised, _weights("softmax"), (_SX3, _SX1)),
    Mutant("linear_attention_unscaled", "linear attention gamma = z instead of z / d",
           _MAP, _linear_unscaled, _weights("linear"), (_SX2, _SX1)),
    Mutant("erf_attention_scale_inside", "erf attention erf(z / d) instead of erf(z) / d",
           _MAP, _erf_scale_inside, _weights("erf"), (_SX2, _SX1)),
    # the step, the support, the learning rate
    Mutant("one_step_ascends", "one_step moves up the gradient: theta + eta grad",
           f"{_POPULATION}.one_step", _one_step_ascends, _one_step, (_SX3, _SX4)),
    Mutant("support_off_by_one", "the engine reads b one position to the right (1-based b)",
           f"{_POPULATION}.check_model", _support_off_by_one, _loss, (_SX3, _SX1, _SX2)),
    Mutant("default_lr_linear_in_d", "default step size c d sqrt(m) ln d instead of c d^2 sqrt(m) ln d",
           f"{_POPULATION}.default_lr", _default_lr_linear_in_d, _default_lr, (_SX5, _SX4)),
    # SX-6 runs the empirical step of verify.experiments.finite_samples (checked against the
    # engine's in tests/), so these bugs are the claim's; the engine's own empirical step is below
    Mutant("finite_sample_gradient_half_samples",
           "the empirical step sums only the first half of each block of samples (divides by n)",
           f"{_FINITE_SAMPLES}.gamma_grad_sum", _gamma_grad_sum_half_samples,
           _finite_sample_gradient, (_SX6,)),
    Mutant("finite_sample_labels_wrong_sign", "the SX-6 samples carry labels y = +x_a x_b",
           f"{_FINITE_SAMPLES}.SampleStream.blocks", _blocks_labels_wrong_sign,
           _finite_sample_labels, (_SX6,)),
    Mutant("limit_step_argmin", "the eta -> infinity limit puts the weight on the argmin, not the argmax",
           f"{_METRICS}.limit_step_attention", _limit_argmin, _limit, (_SX4,)),
    Mutant("predicted_assignment_flipped", "predicted assignment sign((v_b - v_a).theta0)",
           f"{_METRICS}.predicted_assignment", _assignment_flipped, _assignment, (_SX8,)),
    Mutant("threshold_fit_sizes_log10", "the threshold fit reads the sizes m on log10 instead of ln",
           "verify.stats.thresholds.fit_threshold_curves", _threshold_sizes_log10, _threshold_fit, (_SX4, _SX7)),
    Mutant("comparison_instances_repeated", "the attention comparison gives every seed the first seed's instance",
           "verify.experiments.attention_comparison.make_instances", _instances_repeated, _instances_of_two_seeds,
           (_SX5,)),
    Mutant("threshold_fit_sizes_log10_finite_samples",
           "the threshold fit reads the sizes on log10 instead of ln, seen by the finite-sample claim alone",
           "verify.stats.thresholds.fit_threshold_curves", _threshold_sizes_log10, _threshold_fit, (_SX6,)),
    Mutant("success_head_one_only", "a step counts as a success when head 1 alone specialises",
           f"{_METRICS}.step_metrics", _success_head_one_only, _known_specialisations, (_SX4,)),
    Mutant("predicted_assignment_reads_the_step",
           "the predicted assignment read from the realised step instead of sign((v_a - v_b).theta0)",
           f"{_METRICS}.predicted_assignment", _assignment_reads_the_step, _assignments, (_SX8,)),
    # the CLS transformer, the representational bounds, statistics
    Mutant("cls_lr_matrix_without_c_norm", "CLS step scaling W_K^T W_K without the factor |c|^2",
           f"{_CLS}.lr_matrix", _lr_matrix_without_c, _cls("lr"), (_SX3,)),
    Mutant("cls_attends_to_itself", "the CLS row attends to the CLS token too (mask[0, 0] not cleared)",
           f"{_CLS}.__init__", _cls_attends_itself, _cls("forward"), (_SX3,)),
    Mutant("linear_bound_hessian_factor", "linear-attention bound with -W^T W instead of -2 W^T W in H",
           _RELAXATION_HESSIAN, _hessian_factor, _linear_bound, (_SX5,)),
    Mutant("wilson_one_sided_z", "Wilson interval with the one-sided quantile z = Phi^-1(c) (1.645 at 95%)",
           # no claim decides on a Wilson interval any more (the decisions use Clopper-Pearson);
           # the CLI's tables and the coverage tests of the inference module do
           _WILSON, _wilson_one_sided, _wilson, unit_files=("tests/verify/stats/test_inference.py",)),
    # the instruments' known answers: what each claim prints is checked in its own file
    Mutant("success_criterion_ten_times_lax",
           "the one-step sweep judges success with 1 - gamma <= 0.1 (ten times the claim's eps)",
           "verify.experiments.xor_sweeps.run_sweep", _sweep_eps_ten_times, _sweep_eps, (_SX4, _SX7)),
    Mutant("step_metrics_success_ten_times_lax",
           "the success metric accepts heads missing up to ten times eps of their attention",
           f"{_METRICS}.step_metrics", _step_metrics_ten_times_lax, _near_miss_success, (_SX4, _SX7)),
    Mutant("sweep_instances_repeated", "the one-step sweeps give every seed the first seed's instance",
           "verify.experiments.xor_sweeps.make_instances", _instances_repeated, _instances_of_two_seeds,
           (_SX4, _SX8)),
    Mutant("nstar_unconditional",
           "SX-6's n* from the unconditional success rate (every seed counted as a population success)",
           f"{_FINITE_SAMPLES}.run_finite_samples", _finite_samples_unconditional, _finite_samples_population,
           (_SX6,)),
    Mutant("tolerance_row_float32", "the float64 row of the tolerance table replaced by float32's (rtol 1e-5)",
           "verify.common.tolerances.TOLERANCES", _tolerance_rows_float32, _float64_tolerance,
           (_SX1, _SX2, _SX6, _SG6)),
    # unit-test cases: no claim depends on these
    Mutant("empirical_grad_half_samples", "the engine's empirical gradient averages only the first n/2 samples",
           f"{_POPULATION}.empirical_grad", _empirical_half_samples, _empirical,
           unit_files=("tests/numeric/test_xor_engine.py", "tests/verify/experiments/test_sample_complexity.py")),
    Mutant("sample_labels_wrong_sign", "the engine's sampled labels y = +x_a x_b instead of -x_a x_b",
           f"{_POPULATION}.sample_data", _labels_wrong_sign, _sample_labels,
           unit_files=("tests/numeric/test_xor_engine.py",)),
    Mutant("support_check_allows_a_equal_b", "check_support accepts a == b",
           _CHECK_SUPPORT, _support_allows_equal, _support, unit_files=("tests/numeric/test_xor_engine.py",)),
    Mutant("stream_limit_ascends",
           "streamed sweeps: the eta -> infinity attention from s = +V grad (a step up the gradient)",
           _STREAM_STEP_METRICS, _stream_limit_ascends, _stream_limit,
           unit_files=("tests/verify/experiments/test_sweep_stream.py",)),
)

__all__ = ["PAPER_A"]
