"""Every bad input at the Python boundary is an exception naming it, never a crash."""
import numpy as np
import pytest

import ordo
from subjects import FWD, fma_chain

x, w, b = ordo.generate("uniform", 4, 3, 8, bias=True, seed=1)


@pytest.mark.parametrize("bad, kind, text", [
    (dict(x=x.astype(np.float64)), ordo.DTypeError, "x: dtype float64"),
    (dict(w=w.astype(np.float16)), ordo.DTypeError, "w: dtype float16"),
    (dict(x=x.tolist()), ordo.DTypeError, "x: a Python list"),
    (dict(x="not an array"), ordo.DTypeError, "x: str is not an array"),
    (dict(x=np.ascontiguousarray(np.repeat(x, 2, axis=1))[:, ::2]), ordo.ArgumentError, "x: not C-contiguous"),
    (dict(w=np.asfortranarray(w)), ordo.ArgumentError, "w: not C-contiguous"),
    (dict(w=w[:, :7].copy()), ordo.ArgumentError, r"w: shape \[3, 7\], expected \[\*, 8\]"),
    (dict(b=b[:2].copy()), ordo.ArgumentError, r"b: shape \[2\], expected \[3\]"),
    (dict(x=x.reshape(-1)), ordo.ArgumentError, r"x: shape \[32\]"),
    (dict(b=b.astype(np.float64)), ordo.DTypeError, "b: dtype float64"),
])
def test_bad_operands(bad, kind, text):
    args = dict(x=x, w=w, b=b)
    args.update(bad)
    with pytest.raises(kind, match=text):
        ordo.emulate(args["x"], args["w"], args["b"], contract=FWD)
    with pytest.raises(kind, match=text):
        ordo.check(np.zeros((4, 3), np.float32), args["x"], args["w"], args["b"], contract=FWD)


def test_misaligned_array():
    raw = np.zeros(4 * x.size + 1, dtype=np.uint8)
    mis = np.frombuffer(raw.data, dtype=np.float32, count=x.size, offset=1).reshape(x.shape)
    with pytest.raises(ordo.ArgumentError, match="x: misaligned"):
        ordo.emulate(mis, w, b, contract=FWD)


def test_bad_output_to_check():
    with pytest.raises(ordo.ArgumentError, match=r"y: shape \[3, 4\], expected \[4, 3\]"):
        ordo.check(np.zeros((3, 4), np.float32), x, w, b, contract=FWD)
    with pytest.raises(ordo.DTypeError, match="y: dtype float64"):
        ordo.check(np.zeros((4, 3)), x, w, b, contract=FWD)


def test_bf16_operands_must_be_bit_patterns():
    with pytest.raises(ordo.DTypeError, match="uint16 bit patterns"):
        ordo.emulate(x, w, contract="fwd.bf16.tc-fdpa-sm90/1")


def test_bad_options():
    with pytest.raises(ordo.ArgumentError, match="y_dtype"):
        ordo.emulate(x, w, contract=FWD, y_dtype="f16")
    with pytest.raises(ordo.ContractError, match="required"):
        ordo.emulate(x, w, contract=None)
    with pytest.raises(ordo.ArgumentError, match="level"):
        ordo.verify(fma_chain, contract=FWD, level=3)
    with pytest.raises(ordo.ArgumentError, match="not callable"):
        ordo.verify(42, contract=FWD)
    with pytest.raises(ordo.ArgumentError, match="no property named"):
        ordo.verify(fma_chain, contract=FWD, property="forward.nope")
    with pytest.raises(ordo.ArgumentError, match="accumulate"):
        ordo.verify(fma_chain, contract=FWD, accumulate=True)


def test_unwritable_report_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ordo.ReportError):
        ordo.verify(fma_chain, contract=FWD, cases=1, report_dir=blocker / "sub")


def test_callable_that_raises():
    def explodes(x, w, b):
        raise ZeroDivisionError("boom")

    with pytest.raises(ordo.CallbackError, match=r"explodes raised ZeroDivisionError: boom \(on forward x \[") as e:
        ordo.verify(explodes, contract=FWD)
    assert isinstance(e.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize("returned, text", [
    (lambda x, w, b: np.zeros((x.shape[0] + 1, w.shape[0]), np.float32), r"y returned by .*: shape \["),
    (lambda x, w, b: np.zeros((x.shape[0], w.shape[0])), r"y returned by .*: dtype float64"),
    (lambda x, w, b: None, r"y returned by .*: NoneType is not an array"),
    (lambda x, w, b: np.zeros((w.shape[0], x.shape[0]), np.float32).T, r"shape|not C-contiguous"),
])
def test_callable_that_returns_the_wrong_thing(returned, text):
    with pytest.raises(ordo.CallbackError, match=text):
        ordo.verify(returned, contract=FWD)


def test_backward_weight_callable_without_db():
    def dw_only(x, g, keys):
        return ordo.emulate_backward_weight(x, g, keys, contract="bwd.dw.f32.fma-chain/1")[0]

    with pytest.raises(ordo.CallbackError, match="returned no db"):
        ordo.verify(dw_only, contract="bwd.dw.f32.fma-chain/1")


def test_inputs_are_read_only_views():
    seen = {}

    def writes(x, w, b):
        seen["writeable"] = x.flags.writeable
        x[0, 0] = 1.0  # numpy refuses: the buffer is ordo's input
        return fma_chain(x, w, b)

    with pytest.raises(ordo.CallbackError, match="read-only"):
        ordo.verify(writes, contract=FWD)
    assert seen["writeable"] is False
