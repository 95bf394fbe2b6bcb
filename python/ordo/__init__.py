"""ordo from Python: the checks of fixed-order GEMM kernels (docs/python.md).

A ctypes binding of ordo's harness API (include/ordo/harness.h, libordo_harness.so): every result comes
from the C++ engine the `ordo` program runs; nothing is reimplemented here.

    import ordo
    y = ordo.emulate(x, w, b, contract="fwd.f32.fma-chain/1")      # the contract's bits
    ordo.assert_matches(my_kernel(x, w, b), x, w, b, contract="fwd.f32.fma-chain/1")
    result = ordo.verify(my_kernel, contract="fwd.f32.fma-chain/1")  # the property suite, shrunk failures
"""
from ._lib import lib as _library
from ._errors import (ArgumentError, CallbackError, ContractError, DTypeError, OrdoError, RefusedError, ReportError,
                      SubjectError, VerificationFailed)
from ._contracts import Contract, contracts
from ._arithmetic import (CheckResult, ExactResult, Mismatch, assert_matches, check, emulate, emulate_backward_data,
                          emulate_backward_weight, exact)
from ._verify import Failure, Row, VerifyResult, assert_verified, verify
from ._cases import families, generate

__version__ = "0.1.0"
library_path = _library.path
library_version = _library.ordo_harness_version().decode()

__all__ = [
    "ArgumentError", "CallbackError", "CheckResult", "Contract", "ContractError", "DTypeError", "ExactResult",
    "Failure", "Mismatch", "OrdoError", "RefusedError", "ReportError", "Row", "SubjectError", "VerificationFailed",
    "VerifyResult", "assert_matches", "assert_verified", "check", "contracts", "emulate", "emulate_backward_data",
    "emulate_backward_weight", "exact", "families", "generate", "library_path", "library_version", "verify",
]
