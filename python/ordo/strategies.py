"""Hypothesis strategies for ordo's value families and shapes (needs hypothesis).

    from hypothesis import given
    from ordo import strategies as os_
    @given(os_.forward_cases(contract="fwd.f32.fma-chain/1"))
    def test_matches(case):
        ordo.assert_matches(my_kernel(case.x, case.w, case.b), case.x, case.w, case.b, contract=...)

The values come from ordo's own generators (ordo.generate): Hypothesis draws the family, the shape, the
bias and a seed, and shrinks those, towards the first family ("uniform"), small shapes and seed 0.
"""
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

import ordo

# Sizes at and around the tile edges of GEMM kernels, drawn often: where order and padding bugs live.
EDGE_SIZES = (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129)


def families(names=None):
    """One of ordo's value families (all of them, or those named)."""
    return st.sampled_from(list(names) if names else ordo.families())


def dimension(maximum):
    edges = [s for s in EDGE_SIZES if s <= maximum]
    return st.one_of(st.integers(1, maximum), st.sampled_from(edges))


def shapes(max_m=64, max_n=64, max_k=256):
    """(M, N, K), edges of tiles drawn often."""
    return st.tuples(dimension(max_m), dimension(max_n), dimension(max_k))


@dataclass
class ForwardCase:
    x: np.ndarray
    w: np.ndarray
    b: object  # np.ndarray or None
    family: str
    seed: int

    def __repr__(self):  # what Hypothesis prints for a falsifying example: enough to regenerate it
        M, K = self.x.shape
        return (f"ordo.generate({self.family!r}, {M}, {self.w.shape[0]}, {K}, bias={self.b is not None}, "
                f"bf16={self.x.dtype == np.uint16}, seed={self.seed})")


def forward_cases(contract=None, max_m=64, max_n=64, max_k=256, family=None, bias=None):
    """Operands of generated forward cases: (x, w, b) of a value family, bf16 bit patterns when the contract
    takes bf16 operands."""
    bf16 = contract is not None and ordo.Contract.load(contract).operand_dtype == "bf16"
    fam = families() if family is None else (family if isinstance(family, st.SearchStrategy) else st.just(family))
    with_bias = st.booleans() if bias is None else st.just(bool(bias))

    def build(f, shape, b, seed):
        M, N, K = shape
        x, w, bv = ordo.generate(f, M, N, K, bias=b, bf16=bf16, seed=seed)
        return ForwardCase(x, w, bv, f, seed)

    return st.builds(build, fam, shapes(max_m, max_n, max_k), with_bias, st.integers(0, 2 ** 64 - 1))
