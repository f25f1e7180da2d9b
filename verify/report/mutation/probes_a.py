"""The probes of paper A's mutants (:mod:`verify.report.mutation.catalogue_a`): each is a tiny call
whose result the bug changes. A probe looks its functions up through the public modules at call
time, so the same probe sees the original before install and the mutant after. torch is imported
inside the probes: the catalogue stays cheap to import.
"""

from __future__ import annotations


def xor_probe_instance(d=6, m=3, seed=0):
    """``(V, theta, theta_tilde, support)``: a small float64 instance from a seed, for probes."""
    import torch

    from numeric import xor

    g = torch.Generator().manual_seed(seed)
    V = xor.sample_embeddings(d, m, generator=g)
    th = torch.randn(m, generator=g, dtype=torch.float64) * 2
    tt = torch.randn(m, generator=g, dtype=torch.float64) * 2
    return V, th, tt, (1, 4)


def loss_probe():
    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return xor.population_loss(V, th, tt, s)


def grad_probe(attention="softmax"):
    def probe():
        import torch

        from numeric import xor

        V, th, tt, s = xor_probe_instance()
        return torch.cat(xor.population_grad(V, th, tt, s, attention))
    return probe


def one_pass_grad_probe():
    """The one-pass path forced (a small V runs the two-pass one by default)."""
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return torch.cat(xor.population_grad(V, th, tt, s, path="one-pass"))


def grad_two_pass_probe(attention="softmax"):
    """A batch of one instance: the two-pass path (cotangent of the closed form, then V^T)."""
    def probe():
        import torch

        from numeric import xor

        V, th, tt, s = xor_probe_instance()
        return torch.cat(xor.population_grad(V[None], th[None], tt[None], s, attention), -1)
    return probe


def grad_near_cancellation_probe():
    """Large logits off the support: the one-pass moments cancel and the exact path is needed."""
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance(d=8, m=3, seed=3)
    return torch.cat(xor.population_grad(V, 40 * th, 40 * tt, s, path="one-pass"))


def weights_probe(attention):
    def probe():
        from numeric import xor

        V, th, _, _ = xor_probe_instance()
        return xor.attention_weights(V, th, attention)
    return probe


def one_step_probe():
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return torch.cat(xor.one_step(V, th, tt, s, 1.0))


def default_lr_probe():
    from numeric import xor

    return xor.default_lr(10, 4)


def empirical_probe():
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    X, y = xor.sample_data(16, 6, s, generator=torch.Generator().manual_seed(1))
    return torch.cat(xor.empirical_grad(V, th, tt, X, y))


def finite_sample_labels_probe():
    import torch

    from verify.experiments import finite_samples as fs

    stream = fs.SampleStream([torch.Generator().manual_seed(2)], 6, 5, (1, 4), torch.float64)
    return torch.cat([y.flatten() for _, y in stream.blocks()])


def finite_sample_gradient_probe():
    import torch

    from verify.experiments import finite_samples as fs

    g = torch.Generator().manual_seed(2)
    X = (2 * torch.randint(0, 2, (1, 8, 6), generator=g) - 1).to(torch.float64)
    gam = torch.softmax(torch.randn(1, 2, 6, generator=g, dtype=torch.float64), -1)
    return fs.gamma_grad_sum(X, -X[..., 1] * X[..., 4], gam)


def sample_labels_probe():
    import torch

    from numeric import xor

    return xor.sample_data(8, 6, (1, 4), generator=torch.Generator().manual_seed(1))[1]


def limit_probe():
    import torch

    from numeric import xor

    V, th, tt, s = xor_probe_instance()
    return torch.cat(xor.limit_step_attention(V, th, tt, s))


def stream_limit_probe():
    import torch

    from numeric.xor import stream_step_metrics, streamed_instance

    E, sup, th, tt = streamed_instance(300, 4, 0, block=64)
    va = E.rows([sup[0]])[0]
    # s = -V grad = V v_a: largest at a (unit rows), so the limit puts head 1 on a
    met = stream_step_metrics(E, th, tt, sup, limit_from=(-va, va))
    return torch.stack([met[k] for k in sorted(met) if k.startswith("limit")])


def assignment_probe():
    from numeric import xor

    V, th, _, s = xor_probe_instance()
    return xor.predicted_assignment(V, th, s)


def cls_probe(what):
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


def linear_bound_probe():
    from verify.reference.linear_bound import linear_attention_loss_bound

    V, _, _, s = xor_probe_instance(d=6, m=3)
    return linear_attention_loss_bound(V.numpy(), s)["bound"]


def wilson_probe():
    from verify.stats.intervals import wilson_interval

    return wilson_interval(50, 100)


def support_probe():
    from numeric.validation import InputError, check_support

    try:
        return check_support((1, 1), 4)
    except InputError as exc:
        return str(exc)


def assignments_probe():
    from numeric import xor
    from verify.experiments.xor_sweeps import make_instances

    V, th, _ = make_instances(50, 4, list(range(40)))
    return xor.predicted_assignment(V, th, (0, 1))


def instances_of_two_seeds_probe():
    from verify.experiments import attention_comparison

    V, _, _ = attention_comparison.make_instances(6, 3, [0, 1])
    return float((V[1] - V[0]).abs().sum())


def threshold_fit_probe():
    from verify.stats.thresholds import fit_threshold_curves

    fit = fit_threshold_curves([10, 10, 10, 100, 100, 100], [4, 8, 16, 4, 8, 16], [2, 10, 19, 1, 6, 18],
                               [20] * 6, law="free")
    return round(fit.threshold(10), 6)


def known_specialisations_probe():
    from numeric.xor import step_metrics
    from verify.experiments.known_answers import specialisation_instances

    V, th, tt, sup, _, _ = specialisation_instances()
    return step_metrics(V, th, tt, sup, exact_sup=False)["success"]


def sweep_eps_probe():
    from verify.experiments import xor_sweeps

    return xor_sweeps.run_sweep([4], [2], 1)[0].key["eps"]


def near_miss_success_probe():
    from numeric import xor
    from verify.experiments.known_answers import near_miss_heads

    V, th, tt, s = near_miss_heads(8, (0.03,))
    return bool(xor.step_metrics(V, th, tt, s, exact_sup=False)["success"][0])


def finite_samples_population_probe():
    from verify.experiments import finite_samples

    c = finite_samples.run_finite_samples([4], {4: [8]}, 2, 6)[0]
    return c.population_bits, c.both_successes


def float64_tolerance_probe():
    from verify.common.tolerances import tolerance

    return tolerance("float64")


def init_gradient_probe():
    from verify.symbolic import one_step

    return str(one_step.init_gradient("g"))
