"""The two-head model's gradient as public code often writes it, for the `verify.crossval`
library API (docs/crossval.md, tested by docs/examples/test_my_implementation.py): torch tensors,
the two support positions as separate 1-based arguments, the ½-MSE loss, and a dict returned.
"""

import torch


def half_mse_grads(V, theta, theta_tilde, i, j):
    """Gradients of ½ E[(f - y)^2] for support {i, j} (1-based), softmax attention."""
    theta = theta.clone().requires_grad_(True)
    theta_tilde = theta_tilde.clone().requires_grad_(True)
    g = torch.softmax(V @ theta, 0)
    h = torch.softmax(V @ theta_tilde, 0)
    a, b = i - 1, j - 1
    loss = (g @ g) * (h @ h) + 2 * (g @ h) ** 2 - 2 * torch.sum(g**2 * h**2) - 2 * (g[a] * h[b] + g[b] * h[a]) + 1
    (0.5 * loss).backward()
    return {"theta": theta.grad, "theta_tilde": theta_tilde.grad}
