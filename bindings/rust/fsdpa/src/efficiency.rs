//! Devices (`deviceProperties`) and, with the `experimental` feature, what
//! the busy time went to: the kernel table, the op table with FLOPs and
//! achieved rates, MFU per window and step, and the peak table (fsdpa.h,
//! group "efficiency").  Values the header documents as absent are `None`.
#[cfg(feature = "experimental")]
use crate::error::cstr;
use crate::error::{check, Result};
use crate::list::list_item;
#[cfg(feature = "experimental")]
use crate::Query;
use crate::{opt, sys, Analyzer};
use std::os::raw::c_char;

/// A fixed `char[N]` field, up to its NUL.
fn chars(a: &[c_char]) -> String {
    let bytes: Vec<u8> = a
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
#[cfg(feature = "experimental")]
fn ratio(v: f64) -> Option<f64> {
    (v >= 0.0).then_some(v)
}
#[cfg(feature = "experimental")]
unsafe fn opt_cstr(p: *const c_char) -> Option<String> {
    (!p.is_null()).then(|| cstr(p))
}

/// A GPU as the trace's `deviceProperties` describes it (`fsdpa_device_info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Device {
    /// `id`: the device index GPU events carry as their pid
    pub device: i64,
    /// `name` ("" if absent; at most 63 bytes)
    pub name: String,
    /// `numSms` (compute units on ROCm)
    pub sms: Option<i64>,
    /// `computeMajor`
    pub compute_major: Option<i64>,
    /// `computeMinor`
    pub compute_minor: Option<i64>,
    /// `totalGlobalMem`
    pub total_memory_bytes: Option<i64>,
}

impl From<&sys::fsdpa_device_info> for Device {
    fn from(d: &sys::fsdpa_device_info) -> Device {
        Device {
            device: d.device,
            name: chars(&d.name),
            sms: opt(d.sms),
            compute_major: opt(d.compute_major),
            compute_minor: opt(d.compute_minor),
            total_memory_bytes: opt(d.total_memory_bytes),
        }
    }
}
list_item!(Device, sys::fsdpa_device_info, sys::FSDPA_LIST_DEVICES);

impl Analyzer {
    /// The devices described so far (the trace's `deviceProperties`, or
    /// [`Analyzer::set_device`]), by device (`fsdpa_device_list()`).
    pub fn devices(&mut self) -> Result<Vec<Device>> {
        Ok(self
            .list(|c, l| unsafe { sys::fsdpa_device_list(c, l) })?
            .to_vec())
    }

    /// Describe a device, as a trace's `deviceProperties` entry does (for
    /// structured events); replaces an earlier description of that device
    /// (`fsdpa_device_info_set()`).  The name is cut to 63 bytes.
    pub fn set_device(&mut self, d: &Device) -> Result<()> {
        let mut i = std::mem::MaybeUninit::<sys::fsdpa_device_info>::uninit();
        let mut i = unsafe {
            sys::fsdpa_device_info_init(i.as_mut_ptr());
            i.assume_init()
        };
        i.device = d.device;
        for (k, b) in d.name.as_bytes().iter().take(i.name.len() - 1).enumerate() {
            i.name[k] = *b as c_char;
        }
        let abs = |v: Option<i64>| v.unwrap_or(sys::FSDPA_ABSENT);
        i.sms = abs(d.sms);
        i.compute_major = abs(d.compute_major);
        i.compute_minor = abs(d.compute_minor);
        i.total_memory_bytes = abs(d.total_memory_bytes);
        check(
            unsafe { sys::fsdpa_device_info_set(self.p(), &i) },
            self.p(),
            false,
        )
    }
}

/// One row of the kernel table (`fsdpa_kernel_stat`; experimental).
#[cfg(feature = "experimental")]
#[derive(Clone, Debug, PartialEq)]
pub struct KernelStat {
    /// the GPU op's name; `None` for the folded row
    pub name: Option<String>,
    /// display name ("(other)" for the folded row)
    pub short_name: String,
    /// "compute", "communication", "memcpy", "memset"; `None` for the folded row
    pub kernel_class: Option<String>,
    /// communication: its comm_families family
    pub family: Option<String>,
    /// GPU ops
    pub count: u64,
    /// names in the row (the folded row's count of names)
    pub names: u64,
    /// Σ clipped durations
    pub total_ns: i64,
    /// floor(total / count)
    pub mean_ns: i64,
    /// nearest-rank median; `None` for the folded row
    pub p50_ns: Option<i64>,
    /// shortest
    pub min_ns: i64,
    /// longest
    pub max_ns: i64,
    /// total / busy of the selection
    pub share: Option<f64>,
}

#[cfg(feature = "experimental")]
impl From<&sys::fsdpa_kernel_stat> for KernelStat {
    fn from(k: &sys::fsdpa_kernel_stat) -> KernelStat {
        unsafe {
            KernelStat {
                name: opt_cstr(k.name),
                short_name: opt_cstr(k.short_name).unwrap_or_default(),
                kernel_class: opt_cstr(k.kernel_class),
                family: opt_cstr(k.family),
                count: k.count,
                names: k.names,
                total_ns: k.total_ns,
                mean_ns: k.mean_ns,
                p50_ns: opt(k.p50_ns),
                min_ns: k.min_ns,
                max_ns: k.max_ns,
                share: ratio(k.share),
            }
        }
    }
}
#[cfg(feature = "experimental")]
list_item!(KernelStat, sys::fsdpa_kernel_stat, sys::FSDPA_LIST_KERNELS);

/// One row of the op table (`fsdpa_op_stat`; experimental).
#[cfg(feature = "experimental")]
#[derive(Clone, Debug, PartialEq)]
pub struct OpStat {
    /// the CPU op; `None` for unattributed GPU ops and the folded row
    pub name: Option<String>,
    /// unattributed rows: the GPU op name
    pub gpu_op: Option<String>,
    /// "gemm", "attention", ...; `None` for the folded row
    pub category: Option<String>,
    /// `Input Dims` as JSON text
    pub input_dims: Option<String>,
    /// `Input type` as JSON text
    pub input_types: Option<String>,
    /// `Concrete Inputs` as JSON text
    pub concrete_inputs: Option<String>,
    /// the FLOPs model applied
    pub model: Option<String>,
    /// compute dtype ("bf16", ...)
    pub dtype: Option<String>,
    /// calls
    pub count: u64,
    /// their GPU ops
    pub gpu_ops: u64,
    /// rows in it (the folded row's count)
    pub names: u64,
    /// Σ durations of those GPU ops
    pub kernel_ns: i64,
    /// FLOPs of one call (the folded row: Σ over its calls)
    pub flops: Option<i64>,
    /// bytes one call moves
    pub bytes: Option<i64>,
    /// flops × count / kernel_ns / 1000
    pub tflops_per_s: Option<f64>,
    /// bytes × count / kernel_ns / 1000
    pub tb_per_s: Option<f64>,
    /// tflops_per_s / the device's dense peak for dtype
    pub peak_share: Option<f64>,
}

#[cfg(feature = "experimental")]
impl From<&sys::fsdpa_op_stat> for OpStat {
    fn from(o: &sys::fsdpa_op_stat) -> OpStat {
        unsafe {
            OpStat {
                name: opt_cstr(o.name),
                gpu_op: opt_cstr(o.gpu_op),
                category: opt_cstr(o.category),
                input_dims: opt_cstr(o.input_dims),
                input_types: opt_cstr(o.input_types),
                concrete_inputs: opt_cstr(o.concrete_inputs),
                model: opt_cstr(o.model),
                dtype: opt_cstr(o.dtype),
                count: o.count,
                gpu_ops: o.gpu_ops,
                names: o.names,
                kernel_ns: o.kernel_ns,
                flops: opt(o.flops),
                bytes: opt(o.bytes),
                tflops_per_s: ratio(o.tflops_per_s),
                tb_per_s: ratio(o.tb_per_s),
                peak_share: ratio(o.peak_share),
            }
        }
    }
}
#[cfg(feature = "experimental")]
list_item!(OpStat, sys::fsdpa_op_stat, sys::FSDPA_LIST_OPS);

/// Busy-time efficiency of a window or step (`fsdpa_efficiency`; experimental).
#[cfg(feature = "experimental")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Efficiency {
    /// ProfilerStep number (step rows)
    pub step: Option<i64>,
    /// length of the window
    pub window_ns: Option<i64>,
    /// Σ kernel time of the window's calls
    pub kernel_ns: i64,
    /// of which calls with a GEMM / attention / convolution model
    pub modelled_ns: i64,
    /// modelled_ns / kernel_ns
    pub modelled_share: Option<f64>,
    /// kernel time per category
    pub gemm_ns: i64,
    /// attention
    pub attention_ns: i64,
    /// convolution
    pub conv_ns: i64,
    /// elementwise
    pub elementwise_ns: i64,
    /// reduction
    pub reduction_ns: i64,
    /// normalization
    pub normalization_ns: i64,
    /// copy
    pub copy_ns: i64,
    /// communication
    pub communication_ns: i64,
    /// other
    pub other_ns: i64,
    /// Σ FLOPs of the modelled calls
    pub flops: i64,
    /// model FLOPs utilization (a lower bound)
    pub mfu: Option<f64>,
    /// the rank's device
    pub device: Option<i64>,
}

#[cfg(feature = "experimental")]
impl From<&sys::fsdpa_efficiency> for Efficiency {
    fn from(e: &sys::fsdpa_efficiency) -> Efficiency {
        Efficiency {
            step: opt(e.step),
            window_ns: opt(e.window_ns),
            kernel_ns: e.kernel_ns,
            modelled_ns: e.modelled_ns,
            modelled_share: ratio(e.modelled_share),
            gemm_ns: e.gemm_ns,
            attention_ns: e.attention_ns,
            conv_ns: e.conv_ns,
            elementwise_ns: e.elementwise_ns,
            reduction_ns: e.reduction_ns,
            normalization_ns: e.normalization_ns,
            copy_ns: e.copy_ns,
            communication_ns: e.communication_ns,
            other_ns: e.other_ns,
            flops: e.flops,
            mfu: ratio(e.mfu),
            device: opt(e.device),
        }
    }
}
#[cfg(feature = "experimental")]
list_item!(
    Efficiency,
    sys::fsdpa_efficiency,
    sys::FSDPA_LIST_EFFICIENCY_STEPS
);

/// A device's dense peaks (`fsdpa_device_peak`; experimental).
#[cfg(feature = "experimental")]
#[derive(Clone, Debug, PartialEq)]
pub struct DevicePeak {
    /// the device
    pub device: Option<i64>,
    /// the peak-table row ("H100 SXM"); `None` for an unknown device
    pub model: Option<String>,
    /// dense FP64 peak, TFLOP/s
    pub fp64_tflops: Option<f64>,
    /// dense FP32 peak
    pub fp32_tflops: Option<f64>,
    /// dense TF32 tensor-core peak
    pub tf32_tflops: Option<f64>,
    /// dense FP16 peak
    pub fp16_tflops: Option<f64>,
    /// dense BF16 peak
    pub bf16_tflops: Option<f64>,
    /// dense FP8 peak
    pub fp8_tflops: Option<f64>,
    /// memory bandwidth, TB/s
    pub hbm_tb_per_s: Option<f64>,
}

#[cfg(feature = "experimental")]
impl Analyzer {
    /// The kernel table of the query's window and streams
    /// (`fsdpa_kernel_list()`): `fsdp_unit` selects one entry of
    /// [`Analyzer::fsdp_units`] (a unit in one phase), `max_rows` > 0 folds
    /// the rows past it into one.
    pub fn kernels(
        &mut self,
        q: &Query,
        fsdp_unit: Option<usize>,
        max_rows: u64,
    ) -> Result<Vec<KernelStat>> {
        let cq = q.raw();
        let mut sel = std::mem::MaybeUninit::<sys::fsdpa_kernel_select>::uninit();
        let mut sel = unsafe {
            sys::fsdpa_kernel_select_init(sel.as_mut_ptr());
            sel.assume_init()
        };
        sel.fsdp_unit = fsdp_unit.map_or(-1, |u| u as i64);
        sel.max_rows = max_rows;
        Ok(self
            .list(|c, l| unsafe { sys::fsdpa_kernel_list(c, &cq, &sel, l) })?
            .to_vec())
    }

    /// The op table of the query's window and streams (`fsdpa_op_list()`).
    pub fn ops(&mut self, q: &Query, max_rows: u64) -> Result<Vec<OpStat>> {
        let cq = q.raw();
        Ok(self
            .list(|c, l| unsafe { sys::fsdpa_op_list(c, &cq, max_rows, l) })?
            .to_vec())
    }

    /// Busy-time efficiency and MFU of the query's window (`fsdpa_efficiency_query()`).
    pub fn efficiency(&mut self, q: &Query) -> Result<Efficiency> {
        let cq = q.raw();
        let mut e = sys::fsdpa_efficiency::sized();
        check(
            unsafe { sys::fsdpa_efficiency_query(self.p(), &cq, &mut e) },
            self.p(),
            false,
        )?;
        Ok((&e).into())
    }

    /// Efficiency per ProfilerStep (`fsdpa_efficiency_step_list()`).
    pub fn efficiency_steps(&mut self, q: &Query) -> Result<Vec<Efficiency>> {
        let cq = q.raw();
        Ok(self
            .list(|c, l| unsafe { sys::fsdpa_efficiency_step_list(c, &cq, l) })?
            .to_vec())
    }

    /// The peak-table row of `device` (`None`: the rank's device)
    /// (`fsdpa_device_peak_get()`).
    pub fn device_peak(&mut self, device: Option<i64>) -> Result<DevicePeak> {
        let mut p = sys::fsdpa_device_peak::sized();
        check(
            unsafe {
                sys::fsdpa_device_peak_get(self.p(), device.unwrap_or(sys::FSDPA_ABSENT), &mut p)
            },
            self.p(),
            false,
        )?;
        let model = chars(&p.model);
        Ok(DevicePeak {
            device: opt(p.device),
            model: (!model.is_empty()).then_some(model),
            fp64_tflops: ratio(p.fp64_tflops),
            fp32_tflops: ratio(p.fp32_tflops),
            tf32_tflops: ratio(p.tf32_tflops),
            fp16_tflops: ratio(p.fp16_tflops),
            bf16_tflops: ratio(p.bf16_tflops),
            fp8_tflops: ratio(p.fp8_tflops),
            hbm_tb_per_s: ratio(p.hbm_tb_per_s),
        })
    }
}
