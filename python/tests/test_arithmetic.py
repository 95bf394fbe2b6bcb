"""emulate, exact, check and assert_matches: the answers of ordo's engine, seen from Python."""
import numpy as np
import pytest

import ordo

FWD = "fwd.f32.fma-chain/1"


def f32(*values):
    return np.array(values, dtype=np.float32)


def test_chain_order_is_visible():
    # acc = fma(1, 1, 0) = 1; fma(2^-24, 1, 1) = 1 (a tie, to even); fma(-1, 1, 1) = 0. Exactly: 2^-24.
    x = f32(1.0, 2.0 ** -24, -1.0).reshape(1, 3)
    w = f32(1.0, 1.0, 1.0).reshape(1, 3)
    assert ordo.emulate(x, w, contract=FWD)[0, 0] == 0.0
    e = ordo.exact(x, w, contract=FWD)
    assert e.y[0, 0] == np.float32(2.0 ** -24) and e.exact[0, 0] == 2.0 ** -24
    assert e.bound[0, 0] >= 2.0 ** -24  # the chain's result is within its bound
    r = ordo.check(e.y, x, w, contract=FWD)  # the correctly rounded value is not the contract's bits
    assert r.verdict == "mismatch" and r.indices == [(0, 0)]
    assert (r.mismatches[0].got, r.mismatches[0].want) == ("0x33800000", "0x00000000")


def test_single_product_is_correctly_rounded():
    x, w, _ = ordo.generate("wide_exponent", 5, 7, 1, seed=3)
    assert np.array_equal(ordo.emulate(x, w, contract=FWD).view(np.uint32), ordo.exact(x, w).y.view(np.uint32))


def test_emulate_deterministic_and_bias_added():
    x, w, b = ordo.generate("uniform", 9, 6, 33, bias=True, seed=11)
    y = ordo.emulate(x, w, b, contract=FWD)
    assert y.dtype == np.float32 and y.shape == (9, 6)
    assert np.array_equal(y.view(np.uint32), ordo.emulate(x, w, b, contract=FWD).view(np.uint32))
    y0 = ordo.emulate(x, w, None, contract=FWD)
    assert np.array_equal((y0 + b).view(np.uint32), y.view(np.uint32))  # the bias: one add after the chain


def test_bf16_contract_and_output():
    x, w, b = ordo.generate("uniform", 4, 5, 32, bias=True, bf16=True, seed=2)
    assert x.dtype == np.uint16
    y32 = ordo.emulate(x, w, b, contract="fwd.bf16.tc-fdpa-sm90/1")
    y16 = ordo.emulate(x, w, b, contract="fwd.bf16.tc-fdpa-sm90/1", y_dtype="bf16")
    assert y16.dtype == np.uint16
    assert ordo.check(y16, x, w, b, contract="fwd.bf16.tc-fdpa-sm90/1").passed
    assert ordo.check(y32, x, w, b, contract="fwd.bf16.tc-fdpa-sm90/1").passed
    with pytest.raises(ordo.ArgumentError, match="no bf16 output"):
        ordo.emulate(*ordo.generate("uniform", 2, 2, 2, seed=1)[:2], contract=FWD, y_dtype="bf16")


def test_backward_emulators():
    g = ordo.generate("uniform", 6, 1, 5, seed=4)[0]    # G [M=6, N=5]
    w = ordo.generate("uniform", 5, 1, 3, seed=5)[0]    # W [N=5, K=3]
    dx = ordo.emulate_backward_data(g, w, contract="bwd.dx.f32.fma-chain/1")
    assert dx.shape == (6, 3)
    x = ordo.generate("uniform", 8, 1, 3, seed=6)[0]    # X [T=8, K=3]
    gg = ordo.generate("uniform", 8, 1, 4, seed=7)[0]   # G [T=8, N=4]
    keys = np.array([[0, i] for i in range(8)], dtype=np.int64)
    dw, db = ordo.emulate_backward_weight(x, gg, keys, contract="bwd.dw.f32.fma-chain/1")
    assert dw.shape == (4, 3) and db.shape == (4,)
    # The same tokens in another order, with their keys: the same bits (logical-key order).
    perm = np.array([3, 7, 0, 5, 1, 6, 2, 4])
    dw2, db2 = ordo.emulate_backward_weight(x[perm].copy(), gg[perm].copy(), keys[perm].copy(),
                                            contract="bwd.dw.f32.fma-chain/1")
    assert np.array_equal(dw.view(np.uint32), dw2.view(np.uint32)) and np.array_equal(db.view(np.uint32), db2.view(np.uint32))


def test_duplicate_keys_are_refused_with_the_status():
    x = np.ones((2, 2), np.float32)
    keys = np.array([[0, 1], [0, 1]], dtype=np.int64)
    with pytest.raises(ordo.RefusedError, match="duplicate_key") as e:
        ordo.emulate_backward_weight(x, x, keys, contract="bwd.dw.f32.fma-chain/1")
    assert e.value.status == "duplicate_key"


def test_check_compares_every_element():
    # A check that skipped any element would miss the change there.
    x, w, b = ordo.generate("uniform", 5, 6, 17, bias=True, seed=7)
    y = ordo.emulate(x, w, b, contract=FWD)
    for i in range(y.size):
        bad = y.copy().reshape(-1)
        bad[i] = np.nextafter(bad[i], np.float32(np.inf))
        r = ordo.check(bad.reshape(y.shape), x, w, b, contract=FWD)
        assert r.verdict == "mismatch" and r.mismatch_count == 1, i
        assert r.indices == [divmod(i, y.shape[1])]


def test_check_reports_hex_values_and_error_over_bound():
    x, w, b = ordo.generate("uniform", 3, 4, 50, bias=True, seed=8)
    y = ordo.emulate(x, w, b, contract=FWD)
    bad = y.copy()
    bad[1, 2] = np.float32(bad[1, 2] * 1.5)
    r = ordo.check(bad, x, w, b, contract=FWD)
    m = r.mismatches[0]
    assert m.index == (1, 2) and m.got == f"0x{bad.view(np.uint32)[1, 2]:08x}" and m.want == f"0x{y.view(np.uint32)[1, 2]:08x}"
    assert m.error_over_bound > 1 and r.outside_bound == 1 and r.judged == 12
    assert "y[1,2]" in str(r)
    with pytest.raises(ordo.VerificationFailed, match=r"y\[1,2\]: got 0x"):
        ordo.assert_matches(bad, x, w, b, contract=FWD)
    assert ordo.assert_matches(y, x, w, b, contract=FWD).passed


def test_check_samples_the_bound_when_asked():
    x, w, b = ordo.generate("uniform", 20, 20, 8, bias=False, seed=9)
    y = ordo.emulate(x, w, b, contract=FWD)
    assert ordo.check(y, x, w, contract=FWD).judged == 400
    assert ordo.check(y, x, w, contract=FWD, bound_elements=10).judged == 10
    assert ordo.check(y, x, w, contract=FWD, bound_elements=0).judged == 0


def test_nan_inputs_get_no_bound():
    x = f32(np.nan, 1.0).reshape(1, 2)
    w = f32(1.0, 1.0).reshape(1, 2)
    e = ordo.exact(x, w, contract=FWD)
    assert np.isnan(e.bound[0, 0])
    y = ordo.emulate(x, w, contract=FWD)
    assert y.view(np.uint32)[0, 0] == 0x7FFFFFFF  # the contract's NaN bits
    r = ordo.check(y, x, w, contract=FWD)
    assert r.passed and r.nonfinite_inputs == 1


def test_generate_is_deterministic_and_knows_the_families():
    assert "order_2^-24" in ordo.families() and "nan_inf" in ordo.families()
    a = ordo.generate("ties", 3, 4, 5, bias=True, seed=42)
    b = ordo.generate("ties", 3, 4, 5, bias=True, seed=42)
    assert all(np.array_equal(p.view(np.uint32), q.view(np.uint32)) for p, q in zip(a, b))
    with pytest.raises(ordo.ArgumentError, match="no value family"):
        ordo.generate("nope", 1, 1, 1)
