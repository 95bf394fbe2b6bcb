"""torch tensors in and out (skipped where torch is not installed; the CUDA cases where no GPU is usable)."""
import numpy as np
import pytest

import ordo
import subjects

torch = pytest.importorskip("torch")

FWD = subjects.FWD
BF16 = "fwd.bf16.tc-fdpa-sm90/1"


def test_f32_tensors_share_the_numpy_answer():
    x, w, b = ordo.generate("ties", 6, 5, 40, bias=True, seed=3)
    y = ordo.emulate(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), contract=FWD)
    assert np.array_equal(y.view(np.uint32), ordo.emulate(x, w, b, contract=FWD).view(np.uint32))
    assert ordo.check(torch.from_numpy(y), torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), contract=FWD).passed


def test_bf16_tensors_are_viewed_as_bits():
    x, w, b = ordo.generate("uniform", 4, 3, 32, bias=True, bf16=True, seed=4)
    xt = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    wt = torch.from_numpy(w.view(np.int16)).view(torch.bfloat16)
    y = ordo.emulate(xt, wt, torch.from_numpy(b), contract=BF16)
    assert np.array_equal(y.view(np.uint32), ordo.emulate(x, w, b, contract=BF16).view(np.uint32))
    with pytest.raises(ordo.DTypeError, match="x: dtype float16"):
        ordo.emulate(xt.to(torch.float16), wt, contract=BF16)


def test_non_contiguous_tensor_is_refused():
    x, w, _ = ordo.generate("uniform", 4, 4, 8, seed=5)
    with pytest.raises(ordo.ArgumentError, match="non-contiguous"):
        ordo.emulate(torch.from_numpy(x).t(), torch.from_numpy(w), contract=FWD)


def test_verify_passes_torch_tensors():
    seen = set()

    def linear(x, w, b):
        seen.add(type(x).__module__.split(".")[0])
        return torch.from_numpy(ordo.emulate(x, w, b, contract=FWD))

    assert ordo.verify(linear, contract=FWD, arrays="torch", cases=20).passed
    assert seen == {"torch"}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device for torch")
def test_cuda_tensors_are_copied_to_the_host():
    x, w, b = ordo.generate("uniform", 64, 32, 128, bias=True, seed=6)
    xc, wc, bc = (torch.from_numpy(a).cuda() for a in (x, w, b))
    y = ordo.emulate(xc, wc, bc, contract=FWD)
    assert np.array_equal(y.view(np.uint32), ordo.emulate(x, w, b, contract=FWD).view(np.uint32))
    # cuBLAS's own order is not this contract's; whatever it is, the check names every differing element.
    r = ordo.check(torch.nn.functional.linear(xc, wc, bc), x, w, b, contract=FWD, bound_elements=64)
    assert r.elements == 64 * 32 and r.mismatch_count == len(r.mismatches)
