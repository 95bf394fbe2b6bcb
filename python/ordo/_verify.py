"""ordo.verify: the property suite of `ordo verify --plugin`, run by the harness against a Python callable.

The callable is bound as a callback subject (include/ordo/harness.h): ordo generates the cases (every value
family, shapes, batch sizes and positions, permutations, padding rows, keys, shards, microbatches), calls
the callable, compares its outputs with the contract's emulator bit for bit, shrinks a failure to a
minimal case and writes the report (ordo.report/1). Python adds only the conversion of arrays.
"""
import ctypes
import json
from dataclasses import dataclass, field

import numpy as np

from . import _lib
from ._arrays import NAME_OF, host_array, to_numpy, view
from ._contracts import resolve
from ._errors import ArgumentError, CallbackError, RefusedError, VerificationFailed, raise_for

OPS = {"forward": _lib.OP_FORWARD, "backward_data": _lib.OP_BACKWARD_DATA, "backward_weight": _lib.OP_BACKWARD_WEIGHT}


@dataclass
class Failure:
    property: str
    detail: str        # what differed, both values in hex, on the minimised case
    minimised: str     # the minimal case (shapes, family, values)
    original: str      # the case as first found
    reproduce: str     # the call that re-runs exactly this case
    case_index: int = -1
    family: str = ""

    def __str__(self):
        return (f"{self.property}: {self.detail}\n  minimal case: {self.minimised or self.original}\n"
                f"  reproduce: {self.reproduce}")


@dataclass
class Row:
    property: str
    verdict: str
    cases: int
    failed: int
    skip_reason: str = ""
    failures: list = field(default_factory=list)


@dataclass
class VerifyResult:
    """What ordo.verify found: the report's verdict and rows, the failures with their minimal cases and
    reproduce calls, the report itself (`report`, an ordo.report/1 dict) and where it was written."""
    verdict: str
    rows: list
    report: dict
    report_dir: str = None

    @property
    def passed(self):
        return self.verdict in ("pass", "pass_with_inconclusive")

    def __bool__(self):
        return self.passed

    @property
    def failures(self):
        return [f for r in self.rows for f in r.failures]

    @property
    def cases(self):
        return sum(r.cases for r in self.rows)

    def __str__(self):
        lines = [f"ordo.verify: {self.verdict.upper()}: {len(self.rows)} properties, {self.cases} cases"]
        for r in self.rows:
            extra = f" ({r.skip_reason})" if r.skip_reason else ""
            lines.append(f"  {r.verdict:<22} {r.property}: {r.cases} cases, {r.failed} failed{extra}")
        for f in self.failures:
            lines.append(str(f))
        if self.report_dir:
            lines.append(f"report: {self.report_dir}/report.json, report.md")
        return "\n".join(lines)

    def raise_for_failure(self):
        if not self.passed:
            raise VerificationFailed(str(self))
        return self


def _rows(report):
    rows = []
    for r in report.get("results", []):
        failures = [Failure(r["property"], f.get("detail", ""), f.get("minimised", ""), f.get("original", ""),
                            f.get("reproduce", ""), f.get("case_index", -1), f.get("family", ""))
                    for f in r.get("failures", [])]
        rows.append(Row(r["property"], r["verdict"], r["cases"], r["failed"], r.get("skip_reason", ""), failures))
    return rows


class _Callbacks:
    """The ctypes callbacks of one verify call. A Python exception never crosses into C: it is kept, the
    callback returns CALLBACK_ABORT, the run stops, and verify raises it (chained) when the call returns."""

    def __init__(self, fn, contract, arrays, y_dtypes, accumulate):
        self.fn, self.contract, self.arrays = fn, contract, arrays
        self.bf16_output = "bf16" in y_dtypes
        self.accumulate = accumulate
        self.error = None
        self.where = ""
        self.name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__

    # Inputs as the caller wants them: numpy (read-only views of ordo's buffers, no copy), or torch.
    def _wrap(self, a):
        if a is None or self.arrays == "numpy":
            return a
        import torch
        if a.dtype == np.uint16:
            return torch.from_numpy(a.copy().view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(a.copy())

    def _input(self, t, name):
        return view(t.data, NAME_OF[t.dtype], t.rows, t.cols) if t.data else None

    def _store(self, result, out, what):
        dtype = NAME_OF[out.dtype]
        shape = (out.rows, out.cols)
        a = to_numpy(result, what)
        if a.ndim == 1 and out.rows == 1:
            a = a.reshape(1, -1)
        a = host_array(a, what, dtype, shape)
        ctypes.memmove(out.data, a.ctypes.data, a.nbytes)

    def _fail(self, e, message, size):
        if isinstance(e, RefusedError):
            text = str(e).encode("utf-8", "replace")[: max(size - 1, 0)]
            if size:
                ctypes.memmove(message, text + b"\0", len(text) + 1)
            return _lib.STATUS_CODES[e.status]
        self.error = e
        return _lib.CALLBACK_ABORT

    def forward(self, _user, args_p, message, size):
        try:
            a = args_p.contents
            x, w = self._input(a.x, "x"), self._input(a.w, "w")
            b = self._input(a.bias, "b")
            b = b.reshape(-1) if b is not None else None
            self.where = f"forward x {list(x.shape)}, w {list(w.shape)}, b {'none' if b is None else list(b.shape)}"
            kwargs = {"y_dtype": NAME_OF[a.y.dtype]} if self.bf16_output else {}
            y = self.fn(self._wrap(x), self._wrap(w), self._wrap(b), **kwargs)
            self._store(y, a.y, f"y returned by {self.name}")
            return _lib.OK
        except BaseException as e:  # noqa: B902 - KeyboardInterrupt too: it must not unwind through C
            return self._fail(e, message, size)

    def backward_data(self, _user, args_p, message, size):
        try:
            a = args_p.contents
            g, w = self._input(a.g, "g"), self._input(a.w, "w")
            self.where = f"backward_data g {list(g.shape)}, w {list(w.shape)}"
            dx = self.fn(self._wrap(g), self._wrap(w))
            self._store(dx, a.dx, f"dx returned by {self.name}")
            return _lib.OK
        except BaseException as e:  # noqa: B902
            return self._fail(e, message, size)

    def backward_weight(self, _user, args_p, message, size):
        try:
            a = args_p.contents
            x, g, keys = self._input(a.x, "x"), self._input(a.g, "g"), self._input(a.keys, "keys")
            want_db = bool(a.db.data)
            self.where = (f"backward_weight x {list(x.shape)}, g {list(g.shape)}, "
                          f"keys {'none' if keys is None else list(keys.shape)}, db {'wanted' if want_db else 'not wanted'}")
            kwargs = {}
            if self.accumulate:
                kwargs["dw"] = view(a.dw.data, "f32", a.dw.rows, a.dw.cols).copy() if a.accumulate else None
                kwargs["db"] = (view(a.db.data, "f32", 1, a.db.cols).reshape(-1).copy()
                                if a.accumulate and want_db else None)
            out = self.fn(self._wrap(x), self._wrap(g), self._wrap(keys), **kwargs)
            dw, db = (out if isinstance(out, tuple) else (out, None))
            self._store(dw, a.dw, f"dw returned by {self.name}")
            if want_db:
                if db is None:
                    raise ArgumentError(f"{self.name} returned no db, but ordo asked for db (the bias gradient): "
                                        "return (dw, db)")
                self._store(db, a.db, f"db returned by {self.name}")
            return _lib.OK
        except BaseException as e:  # noqa: B902
            return self._fail(e, message, size)


def verify(fn, *, contract, op=None, level=1, seed=1, cases=None, case=None, property=None, report_dir=None,
           y_dtypes=("f32",), accumulate=False, contract_properties=False, arrays="numpy", name=None):
    """Runs the properties `ordo verify --plugin` runs, against `fn`, and returns a VerifyResult.

    fn's signature by op: forward fn(x, w, b) -> y [M, N] (b may be None; with 'bf16' in y_dtypes it also
    gets y_dtype='f32'|'bf16'); backward_data fn(g, w) -> dx [M, K]; backward_weight fn(x, g, keys) -> dw
    or (dw, db) (keys int64 [T, 2|3] or None for call order; with accumulate=True also dw=, db= to continue
    from, None on a batch's first call). Operands are float32 arrays, or uint16 bf16 bit patterns; to refuse
    a call, raise ordo.RefusedError(status=...). level 1 or 2; seed; cases per property (None: the level's);
    case and property re-run one failure (its reproduce line); report_dir: write report.json and report.md."""
    c = resolve(contract, op)
    op = c.op
    if level not in (1, 2):
        raise ArgumentError(f"level: {level!r}, expected 1 or 2")
    if arrays not in ("numpy", "torch"):
        raise ArgumentError(f"arrays: {arrays!r}, expected 'numpy' or 'torch'")
    if not callable(fn):
        raise ArgumentError(f"fn: {type(fn).__name__} is not callable")
    for d in y_dtypes:
        if d not in c.output_dtypes:
            raise ArgumentError(f"y_dtypes: contract {c.id} has no {d} output")
    if accumulate and op != "backward_weight":
        raise ArgumentError("accumulate: applies to backward_weight only")
    seed = int(seed)
    if not 0 <= seed < 2 ** 64:
        raise ArgumentError(f"seed: {seed} is not in [0, 2^64)")
    callbacks = _Callbacks(fn, c, arrays, y_dtypes, accumulate)
    subject_name = name or "python"
    operation = _lib.OperationInfo(OPS[op], c._json_text.encode(), _lib.DTYPE_BF16 if c.operand_dtype == "bf16" else _lib.DTYPE_F32,
                                   sum(1 << (_lib.DTYPE_BF16 if d == "bf16" else _lib.DTYPE_F32) for d in y_dtypes) if op == "forward" else 0,
                                   1, 0, 0, 0, _lib.SUBJECT_ACCUMULATE if accumulate else 0)
    keep = [subject_name.encode(), b"python", operation]
    info = _lib.SubjectInfo(_lib.SUBJECT_ABI_VERSION, ctypes.sizeof(_lib.SubjectInfo), keep[0], keep[1], _lib.BUFFERS_HOST,
                            1, ctypes.pointer(operation))
    fwd = _lib.FORWARD_FN(callbacks.forward) if op == "forward" else _lib.FORWARD_FN()
    bwd_d = _lib.BACKWARD_DATA_FN(callbacks.backward_data) if op == "backward_data" else _lib.BACKWARD_DATA_FN()
    bwd_w = _lib.BACKWARD_WEIGHT_FN(callbacks.backward_weight) if op == "backward_weight" else _lib.BACKWARD_WEIGHT_FN()
    subject = _lib.HarnessSubject(ctypes.sizeof(_lib.HarnessSubject), info, None, fwd, bwd_d, bwd_w)
    call = (f"ordo.verify({callbacks.name}, contract={c.id!r}, op={op!r}, level={level}, seed=")
    reproduce = call + "{seed}, property='{property}', case={case})"
    command = f"{call}{seed}" + (f", cases={cases}" if cases else "") + ")"
    options = _lib.VerifyOptions(ctypes.sizeof(_lib.VerifyOptions), level, seed, -1 if cases is None else int(cases),
                                 -1 if case is None else int(case), property.encode() if property else None,
                                 1 if contract_properties else 0, str(report_dir).encode() if report_dir else None,
                                 command.encode(), reproduce.encode())
    handle = ctypes.c_void_p()
    code = _lib.lib.ordo_harness_verify(ctypes.byref(subject), ctypes.byref(options), ctypes.byref(handle))
    if callbacks.error is not None:
        if handle.value:
            _lib.lib.ordo_harness_result_free(handle)
        e = callbacks.error
        if isinstance(e, KeyboardInterrupt):
            raise e
        raise CallbackError(f"{callbacks.name} raised {type(e).__name__}: {e} (on {callbacks.where}); "
                            "ordo stopped the run") from e
    raise_for(code)
    try:
        report = json.loads(_lib.lib.ordo_harness_result_json(handle).decode())
        verdict = _lib.lib.ordo_harness_result_verdict(handle).decode()
    finally:
        _lib.lib.ordo_harness_result_free(handle)
    return VerifyResult(verdict, _rows(report), report, str(report_dir) if report_dir else None)


def assert_verified(fn, **kwargs):
    """verify(), raising VerificationFailed with the minimal counterexamples and reproduce calls."""
    return verify(fn, **kwargs).raise_for_failure()
