"""The one exception type for bad input.

`verify.errors` is a leaf module (no imports from the rest of the suite) so that the torch
engine in `numeric/` can raise the same type without depending on the symbolic side.
"""


class InputError(ValueError):
    """Bad input to a public function or CLI command.

    The message says what was wrong and what is expected, e.g.
    ``support (3, 3): a and b must differ``.
    """


__all__ = ["InputError"]
