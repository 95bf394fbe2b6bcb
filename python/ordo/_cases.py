"""Generated operands: ordo's value families (properties/value_families.h), drawn as `ordo verify` draws them."""
import numpy as np

from . import _lib
from ._errors import ArgumentError, raise_for


def families():
    """The names of ordo's value families ("uniform", "order_2m24", "ties", "nan_inf", ...)."""
    lib = _lib.lib
    return [lib.ordo_harness_family_name(i).decode() for i in range(lib.ordo_harness_family_count())]


def generate(family, M, N, K, *, bias=False, bf16=False, seed=0):
    """(x [M, K], w [N, K], b [N] or None) of one generated case, deterministic in every argument: float32
    operands, or with bf16=True their uint16 bit patterns (as ordo.emulate takes bf16 operands); b is float32."""
    for name, v in (("M", M), ("N", N), ("K", K)):
        if not isinstance(v, (int, np.integer)) or v < 1:
            raise ArgumentError(f"{name}: {v!r}, expected an integer >= 1")
    x = np.empty((M, K), dtype=np.float32)
    w = np.empty((N, K), dtype=np.float32)
    b = np.empty((N,), dtype=np.float32) if bias else None
    raise_for(_lib.lib.ordo_harness_generate_forward(str(family).encode(), M, N, K, 1 if bias else 0, 1 if bf16 else 0,
                                                     int(seed) % (1 << 64), x.ctypes.data, w.ctypes.data,
                                                     b.ctypes.data if bias else None))
    if bf16:  # the values are bfloat16 already: their bits are the high half of the float32 bits
        x = (x.view(np.uint32) >> 16).astype(np.uint16)
        w = (w.view(np.uint32) >> 16).astype(np.uint16)
    return x, w, b
