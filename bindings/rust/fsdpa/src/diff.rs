//! Two runs compared (`fsdpa_diff`; experimental in the C API: the metrics
//! compared may grow).  Each run is a JSON report ([`crate::analyze`],
//! [`crate::summary_report`]) or a summary; the output is the library's
//! text (`fsdpa.diff/1` JSON, text or HTML) and whether the regression gate
//! was crossed.  docs/report-contract.md ("Diff") defines every number.
use crate::error::Result;
use crate::job::text_with_error;
use crate::{sys, Format};
use std::os::raw::c_int;

/// Options of [`diff`] (`fsdpa_diff_options`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffOptions {
    /// JSON (`fsdpa.diff/1`), text or HTML
    pub format: Format,
    /// the gate, ppm of the base (50000 = 5 %); `None`: no gate
    pub fail_on_regression_ppm: Option<i64>,
    /// the smallest change called worse / better, ppm of the base; `None`: the library's 5 %
    pub min_change_ppm: Option<i64>,
    /// text: columns (40 .. 1000); 0 = 100
    pub width: i32,
    /// text: ANSI colors
    pub color: bool,
    /// refuse to hold more than this many bytes (0 = no cap)
    pub max_memory_bytes: u64,
}

impl Default for DiffOptions {
    /// JSON, no gate, the library's minimum change, 100 columns, no color, no cap.
    fn default() -> DiffOptions {
        DiffOptions {
            format: Format::Json,
            fail_on_regression_ppm: None,
            min_change_ppm: None,
            width: 0,
            color: false,
            max_memory_bytes: 0,
        }
    }
}

/// The comparison: the library's text and the gate's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// `fsdpa.diff/1` JSON, text or HTML, as asked
    pub text: String,
    /// the gate was set and the job's step time or exposed communication crossed it
    pub regressed: bool,
}

/// Compare `base` with `next`, each a JSON report or a summary (`&str`,
/// `String`, `Vec<u8>`).  Errors carry the library's message,
/// [`Error::input`](crate::Error::input) (0 = base, 1 = next) and the byte
/// offset.
pub fn diff<B: AsRef<[u8]>, N: AsRef<[u8]>>(base: B, next: N, o: &DiffOptions) -> Result<Diff> {
    let (b, n) = (base.as_ref(), next.as_ref());
    let mut opts = sys::fsdpa_diff_options::sized();
    unsafe { sys::fsdpa_diff_options_init(&mut opts) };
    opts.format = o.format.raw();
    opts.fail_on_regression_ppm = o.fail_on_regression_ppm.unwrap_or(-1);
    if let Some(m) = o.min_change_ppm {
        opts.min_change_ppm = m;
    }
    opts.width = o.width as c_int;
    opts.color = o.color as c_int;
    opts.max_memory_bytes = o.max_memory_bytes;
    let mut regressed: c_int = 0;
    let text = text_with_error(|out, len, err| unsafe {
        sys::fsdpa_diff(
            b.as_ptr().cast(),
            b.len(),
            n.as_ptr().cast(),
            n.len(),
            &opts,
            out,
            len,
            &mut regressed,
            err,
        )
    })?;
    Ok(Diff {
        text,
        regressed: regressed != 0,
    })
}
