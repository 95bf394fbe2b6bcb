"""Host subjects in Python for the tests: one correct, two broken the way real kernels break.

Each computes with ordo's emulator of some contract (the arithmetic of a kernel stated as data), so the
subject is exact about what it does; the broken ones state, in their contract, the defect they have.
"""
import ordo

FWD = "fwd.f32.fma-chain/1"
DX = "bwd.dx.f32.fma-chain/1"
DW = "bwd.dw.f32.fma-chain/1"


def _variant(base, **changes):
    j = ordo.Contract.load(base).json
    j.update(changes)
    return ordo.Contract.load(j)


# Split-K: K in segments of 4 summed as a pairwise tree, what a kernel does when it splits a long K.
SPLIT_K = _variant(FWD, id="test.fwd.f32.split-k-4/1", k_structure={"kind": "segments", "length": 4,
                                                                      "combine": "pairwise_tree"})
# dW over the tokens in the order they arrive, not in logical-key order (the seed's dW/db bug).
CALL_ORDER_DW = _variant(DW, id="test.bwd.dw.call-order/1", row_order="call_order")


def fma_chain(x, w, b):
    """Correct: the FMA chain of fwd.f32.fma-chain/1."""
    return ordo.emulate(x, w, b, contract=FWD)


def batch_dependent(x, w, b):
    """Changes its reduction order with the batch size: from 8 rows on, a split-K schedule."""
    return ordo.emulate(x, w, b, contract=SPLIT_K if x.shape[0] >= 8 else FWD)


def dx_chain(g, w):
    return ordo.emulate_backward_data(g, w, contract=DX)


def dw_key_order(x, g, keys):
    """Correct: dW and db over the active tokens in ascending logical-key order (refuses what the contract
    refuses: ordo.emulate_backward_weight raises RefusedError, which verify takes as the refusal)."""
    return ordo.emulate_backward_weight(x, g, keys, contract=DW)


def dw_call_order(x, g, keys):
    """Reduces dW and db over the tokens in call order: drops padding rows, ignores the keys otherwise."""
    if keys is not None:
        active = keys[:, 0] >= 0
        x, g = x[active], g[active]
    return ordo.emulate_backward_weight(x, g, contract=CALL_ORDER_DW)
