"""Contracts: the built-in ones and those loaded from an ordo.contract/1 file or text."""
import ctypes
import json
import os

from . import _lib
from ._errors import ArgumentError, ContractError, raise_for

OPS = {_lib.OP_FORWARD: "forward", _lib.OP_BACKWARD_DATA: "backward_data", _lib.OP_BACKWARD_WEIGHT: "backward_weight"}


class Contract:
    """A contract: the arithmetic of every output element, as data (docs/contract-format.md).

    Attributes: id, summary, op ("forward", "backward_data", "backward_weight"), operand_dtype ("f32" or
    "bf16"), output_dtypes (a tuple of "f32" / "bf16"), json (the ordo.contract/1 object, a dict)."""

    def __init__(self, handle):
        self._handle = ctypes.c_void_p(handle)
        lib = _lib.lib
        self.id = lib.ordo_harness_contract_id(self._handle).decode()
        self.summary = lib.ordo_harness_contract_summary(self._handle).decode()
        self.op = OPS[lib.ordo_harness_contract_op(self._handle)]
        self.operand_dtype = "bf16" if lib.ordo_harness_contract_operand_dtype(self._handle) == _lib.DTYPE_BF16 else "f32"
        bits = lib.ordo_harness_contract_output_dtypes(self._handle)
        self.output_dtypes = tuple(n for n, c in (("f32", _lib.DTYPE_F32), ("bf16", _lib.DTYPE_BF16)) if bits & (1 << c))
        self._json_text = lib.ordo_harness_contract_json(self._handle).decode()

    @property
    def json(self):
        return json.loads(self._json_text)

    @classmethod
    def load(cls, source):
        """A built-in id ("fwd.f32.fma-chain/1"), the path of a contract file, its JSON text, or a dict."""
        if isinstance(source, Contract):
            return source
        if isinstance(source, dict):
            source = json.dumps(source)
        if isinstance(source, os.PathLike):
            source = os.fspath(source)
        if not isinstance(source, str):
            raise ArgumentError(f"contract: {type(source).__name__}; expected an id, a path, a JSON text or a dict")
        handle = ctypes.c_void_p()
        raise_for(_lib.lib.ordo_harness_contract_load(source.encode(), ctypes.byref(handle)))
        return cls(handle.value)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.value and _lib is not None and _lib.lib is not None:
            _lib.lib.ordo_harness_contract_free(handle)
            self._handle = None

    def __repr__(self):
        return f"Contract({self.id!r})"

    def __eq__(self, other):
        return isinstance(other, Contract) and self._json_text == other._json_text

    def __hash__(self):
        return hash(self._json_text)


def contracts():
    """Every built-in contract, forward ones first."""
    out = []
    for i in range(_lib.lib.ordo_harness_builtin_count()):
        handle = ctypes.c_void_p()
        raise_for(_lib.lib.ordo_harness_contract_builtin(i, ctypes.byref(handle)))
        out.append(Contract(handle.value))
    return out


def resolve(contract, op=None):
    """A Contract from whatever the caller passed, checked against the operation it is used for."""
    if contract is None:
        raise ContractError("contract: required (an id such as 'fwd.f32.fma-chain/1', a file, a JSON text, a dict)")
    c = Contract.load(contract)
    if op is not None and c.op != op:
        raise ContractError(f"contract {c.id} is a {c.op} contract; this call needs a {op} one")
    return c
