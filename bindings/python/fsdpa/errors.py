"""Exceptions: one class per fsdpa_status, all derived from FsdpaError."""
from typing import Any, Dict, Optional, Type

from . import _capi, _lib


class FsdpaError(Exception):
    """A libfsdpa call failed.

    Attributes:
        status:  the fsdpa_status value (negative int)
        code:    its name, e.g. "FSDPA_EPARSE"
        message: the library's message: fsdpa_errmsg() of the context for a
                 call on one context, fsdpa_error.message for a call over
                 several contexts or summaries ("" if it gave none)
        offset:  byte offset of an input error (fsdpa_error_offset(): in the
                 decompressed stream for gzip input; for a summary call, the
                 offset inside that summary), or None
        input:   for a call over several contexts or summaries, the index of
                 the one the error is about (fsdpa_error.input), or None
    """

    def __init__(self, status: int, message: str = "", offset: Optional[int] = None,
                 input: Optional[int] = None) -> None:
        self.status = status
        self.code = _CODES.get(status, f"status {status}")
        self.message = message
        self.offset = offset
        self.input = input
        text = message or _lib.lib.fsdpa_status_str(status).decode()
        if offset is not None and "offset" not in text:
            text += f" (at byte {offset})"
        super().__init__(text)


class OutOfMemoryError(FsdpaError):
    """FSDPA_ENOMEM: an allocation failed; the object is still safe to close."""


class InvalidArgumentError(FsdpaError, ValueError):
    """FSDPA_EINVAL: bad argument (unknown parameter, index out of range, ...)."""


class ParseError(FsdpaError):
    """FSDPA_EPARSE: malformed JSON or gzip; `offset` says where."""


class NotATraceError(FsdpaError):
    """FSDPA_ENOTTRACE: well-formed input that is not a Kineto/Chrome trace."""


class EmptyTraceError(NotATraceError):
    """A trace that holds no event at all (`[]`, `{"traceEvents":[]}`):
    refused by analyze() unless allow_empty=True, as `fsdpa analyze` refuses
    it (exit status 3) unless --allow-empty."""


class TruncatedError(FsdpaError):
    """FSDPA_ETRUNCATED: the input ended inside the document."""


class LimitError(FsdpaError):
    """FSDPA_ELIMIT: a configured memory or input cap was reached."""


class StateError(FsdpaError):
    """FSDPA_ESTATE: call not valid now (feed after finish or after an input error)."""


class BufferTooSmallError(FsdpaError):
    """FSDPA_EBUFS (internal: the binding sizes its buffers itself)."""


class FileReadError(FsdpaError, OSError):
    """FSDPA_EIO: reading a file failed."""


_BY_STATUS: Dict[int, Type[FsdpaError]] = {
    _lib.STATUS["FSDPA_ENOMEM"]: OutOfMemoryError,
    _lib.STATUS["FSDPA_EINVAL"]: InvalidArgumentError,
    _lib.STATUS["FSDPA_EPARSE"]: ParseError,
    _lib.STATUS["FSDPA_ENOTTRACE"]: NotATraceError,
    _lib.STATUS["FSDPA_ETRUNCATED"]: TruncatedError,
    _lib.STATUS["FSDPA_ELIMIT"]: LimitError,
    _lib.STATUS["FSDPA_ESTATE"]: StateError,
    _lib.STATUS["FSDPA_EBUFS"]: BufferTooSmallError,
    _lib.STATUS["FSDPA_EIO"]: FileReadError,
}
_CODES = {v: k for k, v in _lib.STATUS.items()}


def _opt(v: int) -> Optional[int]:
    return None if v == _lib.ABSENT else v


def error_for(status: int, ctx: Any = None) -> FsdpaError:
    """The exception for a failed call on `ctx` (an fsdpa_ctx pointer or
    None).  Every call on a context clears its message and offset on entry,
    so both belong to this call (the offset is None unless it was an input
    error)."""
    message, offset = "", None
    if ctx:
        message = (_lib.lib.fsdpa_errmsg(ctx) or b"").decode("utf-8", "replace")
        offset = _opt(_lib.lib.fsdpa_error_offset(ctx))
    cls = _BY_STATUS.get(status, FsdpaError)
    return cls(status, message, offset)


def check(status: int, ctx: Any = None) -> None:
    """Raise for a failed call on one context (or on a list: ctx None, the
    status says it all)."""
    if status != 0:
        raise error_for(status, ctx)


def new_error() -> Any:
    """An fsdpa_error for the calls that have no single context."""
    err = _capi.fsdpa_error()
    _lib.init(err)
    return err


def error_from(status: int, err: Any) -> FsdpaError:
    """The exception for a failed call that filled the fsdpa_error `err`:
    its status and message (the header promises err.status is the call's
    return value; if the library left it OK, the return value is used)."""
    if err.status != 0:
        status = err.status
    message = err.message.decode("utf-8", "replace")
    cls = _BY_STATUS.get(status, FsdpaError)
    return cls(status, message, _opt(err.offset), _opt(err.input))


def check_err(status: int, err: Any) -> None:
    if status != 0:
        raise error_from(status, err)
