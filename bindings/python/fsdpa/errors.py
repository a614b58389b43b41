"""Exceptions: one class per fsdpa_status, all derived from FsdpaError."""
from . import _lib


class FsdpaError(Exception):
    """A libfsdpa call failed.

    Attributes:
        status:  the fsdpa_status value (negative int)
        code:    its name, e.g. "FSDPA_EPARSE"
        message: fsdpa_errmsg() of the context ("" if the call had no context)
        offset:  fsdpa_error_offset(): byte offset of an input error (in the
                 decompressed stream for gzip input), or None
    """

    def __init__(self, status, message="", offset=None):
        self.status = status
        self.code = _CODES.get(status, f"status {status}")
        self.message = message
        self.offset = offset
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


_BY_STATUS = {
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


def error_for(status, ctx=None, input_call=False):
    """The exception for a failed call on `ctx` (an fsdpa_ctx pointer or None).
    The offset is only read after feeding calls: it belongs to the last input
    error and would be stale after, say, a bad parameter name."""
    message, offset = "", None
    if ctx:
        message = (_lib.lib.fsdpa_errmsg(ctx) or b"").decode("utf-8", "replace")
        if input_call:
            off = _lib.lib.fsdpa_error_offset(ctx)
            offset = None if off == _lib.ABSENT else off
    cls = _BY_STATUS.get(status, FsdpaError)
    return cls(status, message, offset)


def check(status, ctx=None, input_call=False):
    if status != 0:
        raise error_for(status, ctx, input_call)
