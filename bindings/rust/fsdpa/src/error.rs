//! `fsdpa::Error`: a failed libfsdpa call, with the status, the message and,
//! for input errors, the byte offset.  Calls on one analyzer read the
//! message from its context (`fsdpa_errmsg()`, `fsdpa_error_offset()`);
//! calls over several analyzers or over summaries get it from the
//! `fsdpa_error` they fill (which input, where, why).
use fsdpa_sys as sys;
use std::ffi::CStr;
use std::fmt;

/// What kind of failure (one per `fsdpa_status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// `FSDPA_ENOMEM`: an allocation failed (the analyzer stays safe to drop).
    OutOfMemory,
    /// `FSDPA_EINVAL`: bad argument (unknown parameter, index out of range, NUL in a string).
    InvalidArgument,
    /// `FSDPA_EPARSE`: malformed JSON or gzip; see [`Error::offset`].
    Parse,
    /// `FSDPA_ENOTTRACE`: well-formed input that is not a Kineto/Chrome trace.
    NotATrace,
    /// `FSDPA_ETRUNCATED`: the input ended inside the document.
    Truncated,
    /// `FSDPA_ELIMIT`: a configured memory or input cap was reached.
    Limit,
    /// `FSDPA_ESTATE`: call not valid now (feed after finish or after an input error).
    State,
    /// `FSDPA_EBUFS`: caller buffer too small (no 0.2 function returns it:
    /// lists replaced the caller arrays).
    BufferTooSmall,
    /// `FSDPA_EIO`, or an I/O error of a reader fed by this crate.
    Io,
    /// A status this binding does not know (a newer library).
    Other(i32),
}

impl Status {
    /// The status of a C return code (`None` for `FSDPA_OK`).
    pub fn from_raw(st: sys::fsdpa_status) -> Option<Status> {
        Some(match st {
            sys::FSDPA_OK => return None,
            sys::FSDPA_ENOMEM => Status::OutOfMemory,
            sys::FSDPA_EINVAL => Status::InvalidArgument,
            sys::FSDPA_EPARSE => Status::Parse,
            sys::FSDPA_ENOTTRACE => Status::NotATrace,
            sys::FSDPA_ETRUNCATED => Status::Truncated,
            sys::FSDPA_ELIMIT => Status::Limit,
            sys::FSDPA_ESTATE => Status::State,
            sys::FSDPA_EBUFS => Status::BufferTooSmall,
            sys::FSDPA_EIO => Status::Io,
            other => Status::Other(other.0),
        })
    }
    /// The C value.
    pub fn raw(self) -> i32 {
        match self {
            Status::OutOfMemory => sys::FSDPA_ENOMEM.0,
            Status::InvalidArgument => sys::FSDPA_EINVAL.0,
            Status::Parse => sys::FSDPA_EPARSE.0,
            Status::NotATrace => sys::FSDPA_ENOTTRACE.0,
            Status::Truncated => sys::FSDPA_ETRUNCATED.0,
            Status::Limit => sys::FSDPA_ELIMIT.0,
            Status::State => sys::FSDPA_ESTATE.0,
            Status::BufferTooSmall => sys::FSDPA_EBUFS.0,
            Status::Io => sys::FSDPA_EIO.0,
            Status::Other(v) => v,
        }
    }
}

/// A failed call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// the kind of failure
    pub status: Status,
    /// `fsdpa_errmsg()` of the context or `fsdpa_error.message`, else the
    /// library's name of the status
    pub message: String,
    /// byte offset of an input error: `fsdpa_error_offset()` (in the
    /// decompressed trace) after a feed, `fsdpa_error.offset` (in the
    /// summary) after a summary merge or report; `None` otherwise
    pub offset: Option<i64>,
    /// for a call over several analyzers or summaries: the index of the one
    /// the error is about (`fsdpa_error.input`); `None` if none in
    /// particular, and for calls on one analyzer
    pub input: Option<i64>,
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
            offset: None,
            input: None,
        }
    }

    /// The error a call with an `fsdpa_error *err` argument returned `st`
    /// with.
    pub(crate) fn from_error(st: sys::fsdpa_status, e: &sys::fsdpa_error) -> Error {
        let status = Status::from_raw(st).unwrap_or(Status::Other(0));
        let bytes: Vec<u8> = e
            .message
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        let mut message = String::from_utf8_lossy(&bytes).into_owned();
        if message.is_empty() {
            message = unsafe { cstr(sys::fsdpa_status_str(st)) };
        }
        let opt = |v: i64| (v != sys::FSDPA_ABSENT).then_some(v);
        Error {
            status,
            message,
            offset: opt(e.offset),
            input: opt(e.input),
        }
    }

    /// The error for `st` on `ctx` (may be null).  The offset is read only
    /// after input calls: it belongs to the last input error.
    pub(crate) fn from_ctx(
        st: sys::fsdpa_status,
        ctx: *const sys::fsdpa_ctx,
        input: bool,
    ) -> Error {
        let status = Status::from_raw(st).unwrap_or(Status::Other(0));
        let mut message = String::new();
        let mut offset = None;
        if !ctx.is_null() {
            // SAFETY: ctx is a live context; the message is a NUL-terminated
            // string owned by it, copied before any other call.
            message = unsafe { cstr(sys::fsdpa_errmsg(ctx)) };
            if input {
                let off = unsafe { sys::fsdpa_error_offset(ctx) };
                offset = (off != sys::FSDPA_ABSENT).then_some(off);
            }
        }
        if message.is_empty() {
            message = unsafe { cstr(sys::fsdpa_status_str(st)) };
        }
        Error {
            status,
            message,
            offset,
            input: None,
        }
    }
}

pub(crate) unsafe fn cstr(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

pub(crate) fn check(st: sys::fsdpa_status, ctx: *const sys::fsdpa_ctx, input: bool) -> Result<()> {
    if st == sys::FSDPA_OK {
        Ok(())
    } else {
        Err(Error::from_ctx(st, ctx, input))
    }
}

/// Call `f(&mut err)` (a C function with a trailing `fsdpa_error *`) and
/// turn a failure into an [`Error`] with the details it filled in.
pub(crate) fn with_error(f: impl FnOnce(*mut sys::fsdpa_error) -> sys::fsdpa_status) -> Result<()> {
    let mut e = sys::fsdpa_error::sized();
    // SAFETY: e is a blank fsdpa_error with its size set.
    unsafe { sys::fsdpa_error_init(&mut e) };
    let st = f(&mut e);
    if st == sys::FSDPA_OK {
        Ok(())
    } else {
        Err(Error::from_error(st, &e))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match self.offset {
            Some(o) if !self.message.contains("offset") => write!(f, " (at byte {o})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(Status::Io, e.to_string())
    }
}
