"""The ctypes binding of include/ordo/harness.h: the structs, the signatures, and the library's loading.

Nothing here computes: every answer comes from libordo_harness.so, the engine the ordo program runs.
ctypes (not a compiled extension) so that one build serves any Python 3 on any machine the library runs on.
"""
import ctypes
import os
import pathlib

ABI_VERSION = 1

# ordo/subject.h
DTYPE_F32, DTYPE_BF16, DTYPE_F16, DTYPE_F64, DTYPE_I64 = 1, 2, 3, 4, 5
OP_FORWARD, OP_BACKWARD_DATA, OP_BACKWARD_WEIGHT = 1, 2, 3
BUFFERS_DEVICE, BUFFERS_HOST = 0, 1
SUBJECT_FAIL_CLOSED, SUBJECT_ACCUMULATE = 1, 2
STATUS_OTHER = 20
# The ORDO_STATUS_* codes of ordo/subject.h by name: a callable refuses a call by raising
# ordo.RefusedError(status=NAME), and ordo judges the refusal as a plugin's.
STATUS_CODES = {
    "unsupported_device": 2, "wrong_dtype": 4, "bad_size": 5, "inconsistent_size": 6, "null_pointer": 7,
    "host_pointer": 8, "wrong_device": 9, "unsupported_shape": 10, "misaligned": 11, "aliasing": 12,
    "bad_keys": 13, "duplicate_key": 14, "padding_gradient_nonzero": 15, "launch_failed": 19, "other": 20,
}
SUBJECT_ABI_VERSION = 1

# ordo/harness.h
OK, E_ARGUMENT, E_CONTRACT, E_REFUSED, E_SUBJECT, E_UNWRITABLE, E_INTERNAL = 0, 1, 2, 3, 4, 5, 9
VERDICT_PASS, VERDICT_MISMATCH, VERDICT_BOUND_VIOLATION = 0, 1, 2
CALLBACK_ABORT = 1000


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rows", ctypes.c_int64), ("cols", ctypes.c_int64)]


class Output(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rows", ctypes.c_int64), ("cols", ctypes.c_int64)]


class ForwardArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("x", Tensor), ("w", Tensor), ("bias", Tensor), ("y", Output),
                ("stream", ctypes.c_void_p)]


class BackwardDataArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("g", Tensor), ("w", Tensor), ("dx", Output), ("stream", ctypes.c_void_p)]


class BackwardWeightArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("x", Tensor), ("g", Tensor), ("keys", Tensor), ("dw", Output),
                ("db", Output), ("accumulate", ctypes.c_int32), ("stream", ctypes.c_void_p)]


class OperationInfo(ctypes.Structure):
    _fields_ = [("op", ctypes.c_int32), ("contract", ctypes.c_char_p), ("operand_dtype", ctypes.c_int32),
                ("output_dtypes", ctypes.c_uint32), ("k_multiple", ctypes.c_int32), ("alignment", ctypes.c_int32),
                ("min_sm", ctypes.c_int32), ("max_sm", ctypes.c_int32), ("flags", ctypes.c_uint32)]


class SubjectInfo(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("version", ctypes.c_char_p), ("buffers", ctypes.c_int32), ("operation_count", ctypes.c_uint32),
                ("operations", ctypes.POINTER(OperationInfo))]


class Mismatch(ctypes.Structure):
    _fields_ = [("row", ctypes.c_int64), ("col", ctypes.c_int64), ("got_bits", ctypes.c_uint32),
                ("want_bits", ctypes.c_uint32), ("exact", ctypes.c_double), ("error_over_bound", ctypes.c_double)]


class CheckSummary(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("verdict", ctypes.c_int32), ("elements", ctypes.c_int64),
                ("mismatches", ctypes.c_int64), ("judged", ctypes.c_int64), ("outside_bound", ctypes.c_int64),
                ("nonfinite_inputs", ctypes.c_int64), ("max_error_over_bound", ctypes.c_double)]


FORWARD_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ForwardArgs), ctypes.c_void_p, ctypes.c_size_t)
BACKWARD_DATA_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(BackwardDataArgs), ctypes.c_void_p,
                                    ctypes.c_size_t)
BACKWARD_WEIGHT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(BackwardWeightArgs), ctypes.c_void_p,
                                      ctypes.c_size_t)


class HarnessSubject(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("info", SubjectInfo), ("user", ctypes.c_void_p),
                ("forward", FORWARD_FN), ("backward_data", BACKWARD_DATA_FN), ("backward_weight", BACKWARD_WEIGHT_FN)]


class VerifyOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("level", ctypes.c_int32), ("seed", ctypes.c_uint64),
                ("cases", ctypes.c_int64), ("only_case", ctypes.c_int64), ("property", ctypes.c_char_p),
                ("contract_properties", ctypes.c_int32), ("report_dir", ctypes.c_char_p), ("command", ctypes.c_char_p),
                ("reproduce_format", ctypes.c_char_p)]


_P = ctypes.c_void_p
_SIGNATURES = {
    "ordo_harness_abi_version": (ctypes.c_uint32, []),
    "ordo_harness_version": (ctypes.c_char_p, []),
    "ordo_harness_last_error": (ctypes.c_char_p, []),
    "ordo_harness_last_refusal": (ctypes.c_int32, []),
    "ordo_harness_builtin_count": (ctypes.c_size_t, []),
    "ordo_harness_contract_builtin": (ctypes.c_int, [ctypes.c_size_t, ctypes.POINTER(_P)]),
    "ordo_harness_contract_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "ordo_harness_contract_free": (None, [_P]),
    "ordo_harness_contract_id": (ctypes.c_char_p, [_P]),
    "ordo_harness_contract_summary": (ctypes.c_char_p, [_P]),
    "ordo_harness_contract_json": (ctypes.c_char_p, [_P]),
    "ordo_harness_contract_op": (ctypes.c_int32, [_P]),
    "ordo_harness_contract_operand_dtype": (ctypes.c_int32, [_P]),
    "ordo_harness_contract_output_dtypes": (ctypes.c_uint32, [_P]),
    "ordo_harness_emulate_forward": (ctypes.c_int, [_P, ctypes.POINTER(ForwardArgs)]),
    "ordo_harness_emulate_backward_data": (ctypes.c_int, [_P, ctypes.POINTER(BackwardDataArgs)]),
    "ordo_harness_emulate_backward_weight": (ctypes.c_int, [_P, ctypes.POINTER(BackwardWeightArgs)]),
    "ordo_harness_exact_forward": (ctypes.c_int, [_P, ctypes.POINTER(ForwardArgs), _P, _P]),
    "ordo_harness_check_forward": (ctypes.c_int, [_P, ctypes.POINTER(ForwardArgs), ctypes.c_int64,
                                                  ctypes.POINTER(CheckSummary), ctypes.POINTER(Mismatch), ctypes.c_int64]),
    "ordo_harness_family_count": (ctypes.c_size_t, []),
    "ordo_harness_family_name": (ctypes.c_char_p, [ctypes.c_size_t]),
    "ordo_harness_generate_forward": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                                     ctypes.c_int32, ctypes.c_int32, ctypes.c_uint64, _P, _P, _P]),
    "ordo_harness_verify": (ctypes.c_int, [ctypes.POINTER(HarnessSubject), ctypes.POINTER(VerifyOptions),
                                           ctypes.POINTER(_P)]),
    "ordo_harness_result_free": (None, [_P]),
    "ordo_harness_result_json": (ctypes.c_char_p, [_P]),
    "ordo_harness_result_verdict": (ctypes.c_char_p, [_P]),
    "ordo_harness_result_aborted": (ctypes.c_int32, [_P]),
}

LIBRARY_NAME = "libordo_harness.so"


def _candidates():
    """Where the library may be, first match wins: $ORDO_HARNESS_LIB, the package's own copy (a bundle),
    then the build folder of the repository the package sits in."""
    env = os.environ.get("ORDO_HARNESS_LIB")
    if env:
        yield pathlib.Path(env)
        return
    here = pathlib.Path(__file__).resolve().parent
    yield here / "_native" / LIBRARY_NAME
    for root in here.parents:
        for build in ("build", "build-gpu-bundle"):
            yield root / build / "api" / LIBRARY_NAME


class LibraryNotFound(ImportError):
    pass


def _load():
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.is_file():
            lib = ctypes.CDLL(str(path))  # CDLL releases the GIL around every call
            break
    else:
        raise LibraryNotFound(
            "ordo: libordo_harness.so not found (tried: " + ", ".join(tried) + "); build it with "
            "`scripts/build.sh default ordo_harness` or set ORDO_HARNESS_LIB to its path")
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    version = lib.ordo_harness_abi_version()
    if version != ABI_VERSION:
        raise ImportError(f"ordo: {path} speaks harness ABI {version}, this package {ABI_VERSION}")
    lib.path = str(path)
    return lib


lib = _load()


def last_error():
    return lib.ordo_harness_last_error().decode("utf-8", "replace")
