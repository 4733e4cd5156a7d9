"""The exceptions of c3advisor: one per c3a_status of the C API, all subclasses of
c3advisor.Error, each carrying the library's message (one sentence naming the value,
field, file or line)."""
from . import _capi


class Error(Exception):
    """A call into c3advisor failed; `status` is the C API's status name."""

    def __init__(self, message, status="C3A_ERR_INTERNAL"):
        super().__init__(message)
        self.message = message
        self.status = status


class InvalidArgumentError(Error, ValueError):
    """A value is invalid (zero size, fewer than 2 ranks, unknown dtype or collective), or
    a required value is missing."""


class ProfileNotFoundError(Error, LookupError):
    """Neither an embedded profile name nor an existing profile file."""


class BadFileError(Error):
    """A profile or trace (file or text) is malformed or unreadable."""


class OutOfDomainError(Error, ValueError):
    """The profile cannot answer this pair (more ranks than its node's GPUs, ...)."""


class UnsupportedError(Error, NotImplementedError):
    """Reserved for a later version (a dependency other than "none")."""


class InternalError(Error):
    """Anything else the library reported (out of memory, a bug)."""


_BY_STATUS = {
    _capi.ERR_NULL_ARGUMENT: InvalidArgumentError,
    _capi.ERR_INVALID_ARGUMENT: InvalidArgumentError,
    _capi.ERR_PROFILE_NOT_FOUND: ProfileNotFoundError,
    _capi.ERR_BAD_FILE: BadFileError,
    _capi.ERR_OUT_OF_DOMAIN: OutOfDomainError,
    _capi.ERR_NOT_IMPLEMENTED: UnsupportedError,
}


def check(status):
    """Raises the exception of `status` with this thread's message; returns on OK."""
    if status == _capi.OK:
        return
    lib = _capi.lib()
    message = lib.c3a_last_error().decode("utf-8", "replace")
    name = lib.c3a_status_name(status).decode()
    raise _BY_STATUS.get(status, InternalError)(message, name)
