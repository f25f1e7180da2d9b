"""What a cross-validation check returns and how it is shown: the shrunk :class:`Mismatch`, the
:class:`CrossvalResult` verdict and :func:`render_hint`, which turns a convention hint into the
command-line options or the conventions object that would make the values agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: What a cross-validated function returns, in words (the name of the quantity compared).
QUANTITY = {
    "loss": "population loss",
    "grad": "population gradient (grad_theta, grad_theta_tilde)",
    "profile": "sensitivity profile K_0..K_N",
    "average": "average sensitivity as(f)",
    "normalised": "normalised average sensitivity as(f)/N",
    "influences": "per-variable influences Inf_i(f) = Pr[f(x) != f(x with bit i flipped)]",
}


@dataclass
class Mismatch:
    """The smallest failing input found, what boolverify computes there and what was received.

    ``hints`` lists ``(text, changes)``: conventions under which the received values agree
    (``changes`` maps a field of the conventions object to the value that would make them agree)
    or a description of the received values (``changes`` empty)."""

    inputs: dict
    expected: list
    received: list
    error: str = ""
    hints: list = field(default_factory=list)
    conventions: object = None

    def describe(self, style="cli") -> str:
        if "N" in self.inputs:
            lines = [_describe_table(self.inputs)]
        else:
            d, m = self.inputs["d"], self.inputs["m"]
            support = tuple(self.inputs["support"])
            base = getattr(self.conventions, "index_base", 0)
            passed = f" (passed 1-based as {tuple(x + 1 for x in support)})" if base else ""
            lines = [f"smallest counterexample found: d={d}, m={m}, support={support}{passed}, "
                     f"attention={self.inputs['attention']}"]
            for key in ("V", "theta", "theta_tilde"):
                lines.append(f"  {key} = {self.inputs[key]}")
        if self.error:
            lines.append(f"  the function raised {self.error}")
        else:
            lines.append(f"  expected = {self.expected}")
            lines.append(f"  received = {self.received}")
        lines.extend(f"  hint: {render_hint(text, changes, style, self.conventions)}" for text, changes in self.hints)
        return "\n".join(lines)


def _describe_table(inputs):
    N, bits = inputs["N"], inputs["table"]
    if inputs.get("recipe") is None:
        return f"smallest table found: N={N}, table = {list(bits)}"
    r = inputs["recipe"]
    return (f"smallest table found: N={N}, 2^{N} entries = seeded_table({N}, seed={r['seed']}, "
            f"density={r['density']}, junta={r['junta']}, noise={r['noise']}) "
            f"(verify.crossval.profile_functions.seeded_table), starting {list(bits[:16])}...")


_CLI_OPTION = {
    ("loss_scale", 0.5): "--half-mse",
    ("loss_scale", 1.0): "no --half-mse",
    ("index_base", 1): "--one-based",
    ("index_base", 0): "no --one-based",
    ("values", "pm1"): "--values pm1",
    ("values", "01"): "--values 01",
    ("order", "msb"): "--order msb",
    ("order", "lsb"): "--order lsb",
}


def render_hint(text, changes, style="cli", conventions=None):
    """A hint as printed: ``text`` and, for a change of conventions, the options (``style="cli"``)
    or the conventions object (``style="api"``; with the ``conventions`` in use, the whole
    object that would make the values agree) that would make them agree."""
    if not changes:
        return text
    if style == "cli":
        opts = [_CLI_OPTION.get((k, v), f"--{k} {v}") for k, v in changes.items()]
        return f"{text}; did you mean {' '.join(opts)}?"
    if conventions is None:
        cls = ("XorConventions" if set(changes) & {"loss_scale", "index_base", "attention"} else
               "InfluenceConventions" if "order" in changes else "ProfileConventions")
        fields = changes
    else:
        import dataclasses

        cls = type(conventions).__name__
        merged, default = dataclasses.replace(conventions, **changes), type(conventions)()
        fields = {f.name: getattr(merged, f.name) for f in dataclasses.fields(merged)
                  if getattr(merged, f.name) != getattr(default, f.name)}
    args = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    return f"{text}; did you mean {cls}({args})?"


@dataclass
class CrossvalResult:
    """Verdict of one check: ``ok``, the number of ``examples`` (instances, tables) compared,
    the shrunk ``mismatch``, the per-quantity ``rows`` of a file, what was ``compared`` and the
    ``sizes`` tested (``{"d": {2: 17, ...}, "m": {...}}`` or ``{"N": {1: 9, ...}}``), the
    ``conventions`` compared in words, and the ``interpreter`` that ran the target when it was
    not boolverify's own."""

    ok: bool
    examples: int
    mismatch: Mismatch | None = None
    rows: list = field(default_factory=list)
    compared: str = ""
    sizes: dict = field(default_factory=dict)
    conventions: str = ""
    interpreter: str = ""

    def agreement_text(self) -> str:
        """What agreed, beyond the quantity and the sizes: the conventions compared and, for a
        target run by another interpreter, which one."""
        parts = [f"conventions compared: {self.conventions}"] if self.conventions else []
        if self.interpreter:
            parts.append(f"run by {self.interpreter}")
        return "; ".join(parts)

    def sizes_text(self) -> str:
        """The sizes tested, e.g. ``N = 1..12 (tables per N: 1:9 2:8 ...)``."""
        parts = []
        for key, counts in self.sizes.items():
            if not counts:
                continue
            ks = sorted(counts)
            per = " ".join(f"{k}:{counts[k]}" for k in ks)
            parts.append(f"{key} = {ks[0]}..{ks[-1]} (cases per {key}: {per})")
        return "; ".join(parts)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "examples": self.examples, "compared": self.compared,
                "conventions_compared": self.conventions, "interpreter": self.interpreter or None,
                "sizes": {k: {str(n): c for n, c in sorted(v.items())} for k, v in self.sizes.items()},
                "mismatch": None if self.mismatch is None else {
                    "inputs": {k: v for k, v in self.mismatch.inputs.items() if k != "table" or len(v) <= 4096},
                    "expected": self.mismatch.expected, "received": self.mismatch.received,
                    "error": self.mismatch.error,
                    "hints": [render_hint(t, c, "cli") for t, c in self.mismatch.hints]},
                "rows": self.rows}
