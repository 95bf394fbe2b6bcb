"""emulate, exact, check, assert_matches: one call each into the harness (the ordo program's engine)."""
import ctypes
import math
from dataclasses import dataclass, field

import numpy as np

from . import _lib
from ._arrays import host_array, output, tensor
from ._contracts import resolve
from ._errors import ArgumentError, VerificationFailed, raise_for

_OUT_NUMPY = {"f32": np.float32, "bf16": np.uint16}


def _y_dtype(y_dtype, contract=None):
    if y_dtype not in ("f32", "bf16"):
        raise ArgumentError(f"y_dtype: {y_dtype!r}, expected 'f32' or 'bf16'")
    if contract is not None and y_dtype not in contract.output_dtypes:
        raise ArgumentError(f"y_dtype: contract {contract.id} has no {y_dtype} output (it has {', '.join(contract.output_dtypes)})")
    return y_dtype


def _forward_operands(x, w, b, operand_dtype):
    """Checked operands and the ABI's args over them (the arrays are returned to keep them alive)."""
    xa = host_array(x, "x", operand_dtype, (None, None))
    wa = host_array(w, "w", operand_dtype, (None, xa.shape[1]))
    ba = None
    if b is not None:
        ba = host_array(b, "b", "f32")
        if ba.ndim == 2 and ba.shape[0] == 1:
            ba = ba.reshape(-1)
        if ba.ndim != 1 or ba.shape[0] != wa.shape[0]:
            raise ArgumentError(f"b: shape {list(ba.shape)}, expected [{wa.shape[0]}] (one per row of w)")
    args = _lib.ForwardArgs()
    args.struct_size = ctypes.sizeof(_lib.ForwardArgs)
    args.x = tensor(xa, operand_dtype)
    args.w = tensor(wa, operand_dtype)
    if ba is not None:
        args.bias = tensor(ba, "f32", 1, ba.shape[0])
    return args, (xa, wa, ba)


def _operand_dtype_of(x):
    """f32 or bf16 from the array itself, for calls without a contract."""
    from ._arrays import to_numpy
    a = to_numpy(x, "x")
    return "bf16" if a.dtype in (np.uint16,) or a.dtype.name == "bfloat16" else "f32"


def emulate(x, w, b=None, *, contract, y_dtype="f32"):
    """Y = X W^T + b as the contract computes it (the ordo program's emulator): float32 [M, N], or the
    bf16 bit patterns (uint16) for y_dtype='bf16'."""
    c = resolve(contract, "forward")
    y_dtype = _y_dtype(y_dtype, c)
    args, keep = _forward_operands(x, w, b, c.operand_dtype)
    y = np.empty((keep[0].shape[0], keep[1].shape[0]), dtype=_OUT_NUMPY[y_dtype])
    args.y = output(y, y_dtype)
    raise_for(_lib.lib.ordo_harness_emulate_forward(c._handle, ctypes.byref(args)))
    return y


def emulate_backward_data(g, w, *, contract):
    """dX = G W as a backward_data contract computes it: float32 [M, K]."""
    c = resolve(contract, "backward_data")
    ga = host_array(g, "g", c.operand_dtype, (None, None))
    wa = host_array(w, "w", c.operand_dtype, (ga.shape[1], None))
    dx = np.empty((ga.shape[0], wa.shape[1]), dtype=np.float32)
    args = _lib.BackwardDataArgs(ctypes.sizeof(_lib.BackwardDataArgs), tensor(ga, c.operand_dtype),
                                 tensor(wa, c.operand_dtype), output(dx, "f32"), None)
    raise_for(_lib.lib.ordo_harness_emulate_backward_data(c._handle, ctypes.byref(args)))
    return dx


def emulate_backward_weight(x, g, keys=None, *, contract, db=True):
    """(dW [N, K], db [N] or None) as a backward_weight contract computes them, over the tokens in its row
    order: `keys` int64 [T, 2|3] for a logical-key order (a row whose first key is negative is padding)."""
    c = resolve(contract, "backward_weight")
    xa = host_array(x, "x", c.operand_dtype, (None, None))
    ga = host_array(g, "g", c.operand_dtype, (xa.shape[0], None))
    args = _lib.BackwardWeightArgs()
    args.struct_size = ctypes.sizeof(_lib.BackwardWeightArgs)
    args.x = tensor(xa, c.operand_dtype)
    args.g = tensor(ga, c.operand_dtype)
    ka = None
    if keys is not None:
        ka = host_array(keys, "keys", "i64", (xa.shape[0], None))
        args.keys = tensor(ka, "i64")
    dw = np.empty((ga.shape[1], xa.shape[1]), dtype=np.float32)
    dba = np.empty((ga.shape[1],), dtype=np.float32) if db else None
    args.dw = output(dw, "f32")
    if dba is not None:
        args.db = output(dba, "f32")
    raise_for(_lib.lib.ordo_harness_emulate_backward_weight(c._handle, ctypes.byref(args)))
    return dw, dba


@dataclass
class ExactResult:
    """The exact Y rounded once: `y` (float32, or bf16 bits), `exact` (binary64), and with a contract
    `bound`, the a-priori error bound of each element of the contract's result (NaN: no bound applies)."""
    y: np.ndarray
    exact: np.ndarray
    bound: np.ndarray = None


def exact(x, w, b=None, *, contract=None, y_dtype="f32"):
    """The correctly rounded Y = X W^T + b (every output rounded once from its exact value) and, with a
    contract, the contract's error bound per element."""
    c = resolve(contract, "forward") if contract is not None else None
    y_dtype = _y_dtype(y_dtype, c)
    args, keep = _forward_operands(x, w, b, c.operand_dtype if c else _operand_dtype_of(x))
    M, N = keep[0].shape[0], keep[1].shape[0]
    y = np.empty((M, N), dtype=_OUT_NUMPY[y_dtype])
    f64 = np.empty((M, N), dtype=np.float64)
    bound = np.empty((M, N), dtype=np.float64) if c else None
    args.y = output(y, y_dtype)
    raise_for(_lib.lib.ordo_harness_exact_forward(c._handle if c else None, ctypes.byref(args), f64.ctypes.data,
                                                  bound.ctypes.data if c else None))
    return ExactResult(y, f64, bound)


def _hex(bits, y_dtype):
    return f"0x{bits:04x}" if y_dtype == "bf16" else f"0x{bits:08x}"


def _value(bits, y_dtype):
    v = np.array([bits << 16 if y_dtype == "bf16" else bits], dtype=np.uint32).view(np.float32)[0]
    return float(v)


@dataclass
class Mismatch:
    index: tuple       # (m, n)
    got: str           # the bits in hex
    want: str          # the contract's bits in hex
    got_value: float
    want_value: float
    exact: float       # the exact value (binary64; NaN: none)
    error_over_bound: float  # |got - exact| / bound (NaN: not judged)

    def __str__(self):
        over = "" if math.isnan(self.error_over_bound) else f", error/bound {self.error_over_bound:.3g}"
        return (f"y[{self.index[0]},{self.index[1]}]: got {self.got} ({self.got_value!r}), contract "
                f"{self.want} ({self.want_value!r}), exact {self.exact!r}{over}")


@dataclass
class CheckResult:
    """The check of one output against a contract: every element bit for bit, and against the exact
    result and the contract's bound (all elements, or those of `bound_elements`)."""
    verdict: str          # "pass", "mismatch" or "bound_violation"
    contract: str
    y_dtype: str
    elements: int
    mismatch_count: int
    mismatches: list = field(default_factory=list)  # Mismatch, the first `max_listed`
    judged: int = 0
    outside_bound: int = 0
    nonfinite_inputs: int = 0
    max_error_over_bound: float = 0.0

    @property
    def passed(self):
        return self.verdict == "pass"

    def __bool__(self):
        return self.passed

    @property
    def indices(self):
        """The (m, n) of every listed mismatching element."""
        return [m.index for m in self.mismatches]

    def __str__(self):
        head = (f"{self.verdict.upper()}: contract {self.contract}: {self.mismatch_count} of {self.elements} elements "
                f"differ from the contract's bits; {self.outside_bound} of {self.judged} judged outside the bound "
                f"(max error/bound {self.max_error_over_bound:.3g})")
        lines = [head] + ["  " + str(m) for m in self.mismatches[:10]]
        if self.mismatch_count > 10:
            lines.append(f"  ... {self.mismatch_count - 10} more (result.mismatches)")
        return "\n".join(lines)


_VERDICTS = {_lib.VERDICT_PASS: "pass", _lib.VERDICT_MISMATCH: "mismatch", _lib.VERDICT_BOUND_VIOLATION: "bound_violation"}


def check(y, x, w, b=None, *, contract, bound_elements=None, max_listed=1 << 20):
    """Judges an output `y` of X W^T + b against `contract`: every element bit for bit (NaN bits as the
    contract states them) and against the exact result and the bound; returns a CheckResult.
    bound_elements=None judges every element (MPFR: ~100 ns a term); an int judges the mismatching ones and
    that many others."""
    c = resolve(contract, "forward")
    args, keep = _forward_operands(x, w, b, c.operand_dtype)
    M, N = keep[0].shape[0], keep[1].shape[0]
    from ._arrays import to_numpy
    y_np = to_numpy(y, "y")
    y_dtype = "bf16" if y_np.dtype == np.uint16 or y_np.dtype.name == "bfloat16" else "f32"
    _y_dtype(y_dtype, c)
    ya = host_array(y_np, "y", y_dtype, (M, N))
    args.y = output(ya, y_dtype)
    summary = _lib.CheckSummary()
    summary.struct_size = ctypes.sizeof(_lib.CheckSummary)
    capacity = min(M * N, max_listed)
    listed = (_lib.Mismatch * max(capacity, 1))()
    raise_for(_lib.lib.ordo_harness_check_forward(c._handle, ctypes.byref(args),
                                                  -1 if bound_elements is None else int(bound_elements),
                                                  ctypes.byref(summary), listed, capacity))
    mismatches = []
    for i in range(min(summary.mismatches, capacity)):
        m = listed[i]
        mismatches.append(Mismatch((m.row, m.col), _hex(m.got_bits, y_dtype), _hex(m.want_bits, y_dtype),
                                   _value(m.got_bits, y_dtype), _value(m.want_bits, y_dtype), m.exact, m.error_over_bound))
    return CheckResult(_VERDICTS[summary.verdict], c.id, y_dtype, summary.elements, summary.mismatches, mismatches,
                       summary.judged, summary.outside_bound, summary.nonfinite_inputs, summary.max_error_over_bound)


def assert_matches(y, x, w, b=None, *, contract, bound_elements=None):
    """check(), raising VerificationFailed (an AssertionError) with the mismatching elements in hex."""
    r = check(y, x, w, b, contract=contract, bound_elements=bound_elements)
    if not r.passed:
        raise VerificationFailed(str(r))
    return r
