"""Arrays in and out: numpy, and torch / CuPy / JAX / anything with DLPack or an array interface.

ordo compares bits, so nothing is converted silently: an array of another dtype, a non-contiguous or
misaligned one is refused with an error naming it. Host arrays of the right layout are passed to the
library without a copy; device arrays (CUDA) are copied to the host, where the harness computes.
bf16 values travel as their uint16 bit patterns (numpy has no bfloat16): a torch.bfloat16 tensor or an
ml_dtypes.bfloat16 array is viewed as such, a uint16 array is taken as bit patterns.
"""
import ctypes

import numpy as np

from . import _lib
from ._errors import ArgumentError, DTypeError

_NUMPY_OF = {"f32": np.dtype(np.float32), "bf16": np.dtype(np.uint16), "i64": np.dtype(np.int64)}
CODE_OF = {"f32": _lib.DTYPE_F32, "bf16": _lib.DTYPE_BF16, "i64": _lib.DTYPE_I64}
NAME_OF = {v: k for k, v in CODE_OF.items()}


def _is_torch(obj):
    return type(obj).__module__.startswith("torch") and hasattr(obj, "is_cuda")


def _from_torch(t, name):
    import torch  # only reached with a torch tensor in hand

    t = t.detach()
    if t.is_cuda:
        t = t.cpu()
    if not t.is_contiguous():
        raise ArgumentError(f"{name}: a non-contiguous tensor (strides {tuple(t.stride())}); pass {name}.contiguous()")
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def to_numpy(obj, name):
    """A numpy view of `obj` (a copy only for device memory)."""
    if isinstance(obj, np.ndarray):
        return obj
    if _is_torch(obj):
        return _from_torch(obj, name)
    if hasattr(obj, "__cuda_array_interface__"):
        if hasattr(obj, "get"):  # CuPy
            return obj.get()
        raise ArgumentError(f"{name}: device memory of {type(obj).__name__}: copy it to the host first")
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
        return np.asarray(obj)
    if hasattr(obj, "__dlpack__"):
        return np.from_dlpack(obj)
    if isinstance(obj, (list, tuple)):
        raise DTypeError(f"{name}: a Python {type(obj).__name__}; pass a numpy array of the operand dtype "
                         "(ordo compares bits and converts nothing silently)")
    raise DTypeError(f"{name}: {type(obj).__name__} is not an array (numpy, torch, CuPy, DLPack)")


def host_array(obj, name, dtype, shape=None):
    """`obj` as a C-contiguous, aligned numpy array of dtype `dtype` ("f32", "bf16" or "i64") and, if given,
    `shape` (None entries match any size). Raises DTypeError or ArgumentError naming `name`."""
    a = to_numpy(obj, name)
    want = _NUMPY_OF[dtype]
    if dtype == "bf16" and a.dtype.name == "bfloat16":  # ml_dtypes
        a = a.view(np.uint16)
    if a.dtype != want:
        hint = " as uint16 bit patterns (or a torch.bfloat16 tensor)" if dtype == "bf16" else ""
        raise DTypeError(f"{name}: dtype {a.dtype}, expected {want}{hint} for {dtype} "
                         f"(ordo compares bits: convert explicitly, e.g. {name}.astype(np.{want}))")
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape)):
            want_text = "[" + ", ".join("*" if s is None else str(s) for s in shape) + "]"
            raise ArgumentError(f"{name}: shape {list(a.shape)}, expected {want_text}")
    if not a.flags.c_contiguous:
        raise ArgumentError(f"{name}: not C-contiguous (strides {a.strides}); pass np.ascontiguousarray({name})")
    if a.ctypes.data % a.itemsize != 0:
        raise ArgumentError(f"{name}: misaligned (address {a.ctypes.data:#x} is not a multiple of {a.itemsize})")
    return a


def tensor(a, dtype, rows=None, cols=None):
    """The ABI's tensor over numpy array `a` (kept alive by the caller)."""
    if rows is None:
        rows, cols = (1, a.shape[0]) if a.ndim == 1 else a.shape
    return _lib.Tensor(a.ctypes.data if a.size else None, CODE_OF[dtype], rows, cols)


def output(a, dtype):
    rows, cols = (1, a.shape[0]) if a.ndim == 1 else a.shape
    return _lib.Output(a.ctypes.data if a.size else None, CODE_OF[dtype], rows, cols)


def view(ptr, dtype, rows, cols, writable=False):
    """A numpy array over memory the harness owns (valid during a callback only)."""
    np_dtype = _NUMPY_OF[dtype]
    count = rows * cols
    if count == 0 or not ptr:
        return np.zeros((rows, cols), dtype=np_dtype)
    buf = (ctypes.c_char * (count * np_dtype.itemsize)).from_address(ptr)
    a = np.frombuffer(buf, dtype=np_dtype).reshape(rows, cols)
    if not writable:
        a.flags.writeable = False
    return a
