"""ordo's exceptions: every bad input at the boundary is one of these, naming what was wrong."""
from . import _lib


class OrdoError(Exception):
    """Base of every error ordo raises."""


class ArgumentError(OrdoError, ValueError):
    """A bad argument: a shape that disagrees, a non-contiguous or misaligned array, a bad option."""


class DTypeError(OrdoError, TypeError):
    """An array of the wrong element type."""


class ContractError(OrdoError, ValueError):
    """An unknown contract id, or a malformed contract file or text."""


class RefusedError(OrdoError, ValueError):
    """The contract refuses the problem (duplicate keys, a padding row's nonzero gradient, ...).

    `status` names the refusal ("duplicate_key", ...; the ORDO_STATUS_* codes of ordo/subject.h). A callable
    under ordo.verify raises it to refuse a call: ordo then judges the refusal as a plugin's status code,
    and a RefusedError that ordo.emulate_* raised inside the callable passes through as the same refusal."""

    def __init__(self, message="", status="other"):
        super().__init__(message or status)
        if status not in _lib.STATUS_CODES:
            raise ValueError(f"RefusedError: unknown status {status!r}; one of {', '.join(_lib.STATUS_CODES)}")
        self.status = status


class SubjectError(OrdoError, ValueError):
    """A subject's description is invalid (verify)."""


class CallbackError(OrdoError, RuntimeError):
    """The callable under verification raised, or returned something unusable; the cause is chained."""


class ReportError(OrdoError, OSError):
    """The report folder cannot be written."""


class VerificationFailed(OrdoError, AssertionError):
    """assert_matches / assert_verified: the subject broke its contract. The message holds the evidence."""


_BY_CODE = {
    _lib.E_ARGUMENT: ArgumentError,
    _lib.E_CONTRACT: ContractError,
    _lib.E_REFUSED: RefusedError,
    _lib.E_SUBJECT: SubjectError,
    _lib.E_UNWRITABLE: ReportError,
}


def raise_for(code):
    """Raises the exception of a harness return code, with the library's message."""
    if code == _lib.OK:
        return
    if code == _lib.E_REFUSED:
        refusal = _lib.lib.ordo_harness_last_refusal()
        names = {v: k for k, v in _lib.STATUS_CODES.items()}
        raise RefusedError(_lib.last_error(), names.get(refusal, "other"))
    raise _BY_CODE.get(code, OrdoError)(_lib.last_error())
