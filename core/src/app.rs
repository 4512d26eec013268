//! What a mini-app declares, and the prepared kernels the runner times.
//!
//! An app is a registry entry: it names its parameters (front ends build their
//! controls and flags from them), expands a [`Request`] into [`Case`]s, and
//! prepares each case on a [`Gpu`] (or on the CPU reference platform) as a
//! [`Kernel`] that the runner records, times and validates.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub use crate::gpu::Timestamps;
use crate::gpu::{Capabilities, Gpu};
use crate::precision::Precision;

/// The kind of value a parameter takes.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// One of a fixed set of names; a comma list sweeps over several.
    Choice(&'static [&'static str]),
    /// An unsigned integer in `min..=max`; a comma list sweeps over several.
    UInt {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
    },
    /// Free text interpreted by the app (sizes such as `small` or `32,64,512`, file paths).
    Text,
}

/// One parameter of an app.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// Name on the command line (`--set name=value`; common ones have their own flags).
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Accepted values.
    pub kind: ParamKind,
    /// Default value (may be a comma list).
    pub default: &'static str,
}

/// What a front end asks one app to run.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Precisions to run; empty means the app's defaults that the device supports.
    pub precisions: Vec<Precision>,
    /// Parameter values by name; a comma list is a sweep.
    pub params: BTreeMap<String, String>,
}

impl Request {
    /// Sets parameter `name` to `value` (builder style).
    pub fn set(mut self, name: &str, value: impl Into<String>) -> Self {
        self.params.insert(name.to_string(), value.into());
        self
    }

    /// Restricts the precisions.
    pub fn precisions(mut self, p: &[Precision]) -> Self {
        self.precisions = p.to_vec();
        self
    }
}

/// One concrete kernel configuration: what a result record describes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// App name, e.g. `su3`.
    pub app: String,
    /// Kernel within the app, e.g. `triad` or `mat-mul`.
    pub kernel: String,
    /// Variant label, e.g. `element/soa`.
    pub variant: String,
    /// Arithmetic.
    pub precision: Precision,
    /// Every parameter value this case runs with.
    pub params: BTreeMap<String, String>,
}

impl Case {
    /// A case with no parameters yet.
    pub fn new(app: &str, kernel: &str, variant: &str, precision: Precision) -> Case {
        Case {
            app: app.to_string(),
            kernel: kernel.to_string(),
            variant: variant.to_string(),
            precision,
            params: BTreeMap::new(),
        }
    }

    /// Adds a parameter (builder style).
    pub fn param(mut self, name: &str, value: impl ToString) -> Case {
        self.params.insert(name.to_string(), value.to_string());
        self
    }

    /// A parameter parsed as an integer; `BadParameter` if absent or malformed.
    pub fn uint(&self, name: &str) -> Result<u64> {
        self.params
            .get(name)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| Error::bad_param(name, "missing or not a whole number"))
    }

    /// A parameter's text ("" if absent).
    pub fn text(&self, name: &str) -> &str {
        self.params.get(name).map(String::as_str).unwrap_or("")
    }

    /// One-line label: `app/kernel [variant] precision`.
    pub fn label(&self) -> String {
        format!(
            "{}/{} [{}] {}",
            self.app, self.kernel, self.variant, self.precision
        )
    }
}

/// Work and traffic of one run of a kernel, from the app's analytic model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Floating-point operations (df64 counts the double-precision operations it emulates).
    pub flops: f64,
    /// Minimum bytes moved through device memory.
    pub bytes: f64,
}

/// Outcome of checking a kernel's output against its reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// Largest error found, in the metric `detail` names (relative unless stated).
    pub max_error: f64,
    /// The bound it had to stay within.
    pub tolerance: f64,
    /// `max_error <= tolerance`, every element written, and any extra check passed.
    pub passed: bool,
    /// What was compared, and any failure.
    pub detail: String,
    /// The record is the reference itself (the CPU f64 platform): nothing
    /// independent was compared, so it neither passed nor failed. Absent
    /// (false) in files written before the field existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reference: bool,
}

/// What a [`Validation`] says about a record, as front ends show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Checked against an independent reference, and within tolerance.
    Passed,
    /// Checked, and wrong (or not checkable).
    Failed,
    /// The reference itself: not validated against anything.
    Reference,
}

impl Status {
    /// The word tables show: `ok`, `FAIL` or `reference`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Passed => "ok",
            Status::Failed => "FAIL",
            Status::Reference => "reference",
        }
    }
}

impl Validation {
    /// The validation of a run of the reference code itself (the CPU f64
    /// platform): there is nothing independent to compare it with, so it
    /// is neither passed nor failed.
    pub fn reference(what: &str) -> Validation {
        Validation {
            max_error: 0.0,
            tolerance: 0.0,
            passed: false,
            detail: format!("{what} itself: not validated against anything"),
            reference: true,
        }
    }

    /// Passed, failed, or the reference itself.
    pub fn status(&self) -> Status {
        if self.reference {
            Status::Reference
        } else if self.passed {
            Status::Passed
        } else {
            Status::Failed
        }
    }

    /// Whether the record's figures can be used (tables, rooflines,
    /// portability): it passed validation, or it is the reference itself.
    pub fn usable(&self) -> bool {
        self.passed || self.reference
    }

    /// Compares `got` with `want` element by element with relative error
    /// `|g - w| / max(|w|, floor)`; NaN (an unwritten, poisoned element) fails.
    pub fn compare(
        got: &[f64],
        want: &[f64],
        tolerance: f64,
        floor: f64,
        what: &str,
    ) -> Validation {
        if got.len() != want.len() {
            return Validation::fail(format!(
                "{what}: {} values read, {} expected",
                got.len(),
                want.len()
            ));
        }
        Validation::compare_by(got.len(), |i| got[i], |i| want[i], tolerance, floor, what)
    }

    /// [`Validation::compare`] of `n` elements given by index: a check
    /// reads each element where it lies (in a mapped readback, through a
    /// layout) and computes what it wants on the fly, without an array of
    /// either.
    pub fn compare_by(
        n: usize,
        got: impl Fn(usize) -> f64 + Sync + Send,
        want: impl Fn(usize) -> f64 + Sync + Send,
        tolerance: f64,
        floor: f64,
        what: &str,
    ) -> Validation {
        let (worst, worst_at, unwritten) = crate::parallel::worst(n, |i| {
            let (g, w) = (got(i), want(i));
            g.is_finite().then(|| (g - w).abs() / w.abs().max(floor))
        });
        if unwritten > 0 {
            return Validation {
                reference: false,
                max_error: f64::INFINITY,
                tolerance,
                passed: false,
                detail: format!("{what}: {unwritten} of {n} elements unwritten or not finite"),
            };
        }
        Validation {
            reference: false,
            max_error: worst,
            tolerance,
            passed: worst <= tolerance,
            detail: format!(
                "{what}: {n} elements, max rel. error {worst:.3e} at {worst_at} (tol {tolerance:.1e})"
            ),
        }
    }

    /// A failed validation with a reason.
    pub fn fail(detail: String) -> Validation {
        Validation {
            reference: false,
            max_error: f64::INFINITY,
            tolerance: 0.0,
            passed: false,
            detail,
        }
    }

    /// Both checks must pass; the larger error ratio is kept.
    pub fn and(self, other: Validation) -> Validation {
        let ratio = |v: &Validation| {
            if v.tolerance > 0.0 {
                v.max_error / v.tolerance
            } else {
                f64::INFINITY
            }
        };
        let (worse, _) = if ratio(&other) > ratio(&self) {
            (&other, &self)
        } else {
            (&self, &other)
        };
        Validation {
            reference: false,
            max_error: worse.max_error,
            tolerance: worse.tolerance,
            passed: self.passed && other.passed,
            detail: format!("{}; {}", self.detail, other.detail),
        }
    }
}

/// Records `runs` back-to-back runs of a kernel whose run lies in one
/// compute pass as one pass named `label`, timed by `ts` as one interval:
/// `record(pass, r)` records run r's dispatches (a kernel of one pipeline
/// sets it at run 0 only: wgpu binds a pipeline again each time it is set).
/// Its [`Kernel::encode`] is this with one run, and its
/// [`Kernel::encode_runs`] this with `runs`.
pub fn one_pass_runs(
    enc: &mut wgpu::CommandEncoder,
    label: &str,
    runs: u32,
    ts: Timestamps<'_>,
    mut record: impl FnMut(&mut wgpu::ComputePass<'_>, u32),
) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: ts.pass(true, true),
    });
    for r in 0..runs {
        record(&mut pass, r);
    }
}

/// A case prepared on a GPU: buffers allocated and uploaded, pipelines built,
/// outputs poisoned.
pub trait Kernel {
    /// Records one run (every dispatch it needs) into `enc`.
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>);
    /// Records `runs` back-to-back runs that `ts` times as one interval,
    /// each as [`Kernel::encode`] records it. A kernel whose run lies in
    /// one compute pass records them in one pass instead ([`one_pass_runs`]),
    /// as a loop of kernel launches runs: each pass boundary costs the GPU
    /// more than the ordering between dispatches (WebGPU still starts each
    /// dispatch after the last one's storage writes).
    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        for r in 0..runs {
            self.encode(enc, ts.run(r, runs));
        }
    }
    /// Whether pass timestamps time the whole run: `encode` records only
    /// compute passes, or nothing outside them worth timing (GPP's clear of
    /// a few bytes of atomic slots); runs that are not are timed in the
    /// encoder ([`crate::gpu::timer::method`]).
    fn pass_timed(&self) -> bool {
        true
    }
    /// Buffers the runner reads back after the first run, for [`Kernel::validate`].
    fn outputs(&self) -> Vec<&wgpu::Buffer>;
    /// Checks the outputs of exactly one run after poisoning (the bytes of
    /// each of [`Kernel::outputs`], in order).
    fn validate(&self, outputs: &[&[u8]]) -> Validation;
    /// Work and traffic of one run.
    fn model(&self) -> Model;

    /// Bytes of data one run works on, where that differs from the
    /// model's bytes of one run (a kernel that re-reads its data, as the
    /// `cache` sweep does): it picks the memory level the run is rated
    /// against. `None`: the model's bytes stand for it.
    fn working_set(&self) -> Option<f64> {
        None
    }

    /// Bytes one run's loads and stores request, every access counted
    /// (what the nearest cache serves), where the app's model can say
    /// them: the kernel's intensity at L1 beside the model's at device
    /// memory, for the hierarchical roofline. `None`: not modelled.
    fn issued_bytes(&self) -> Option<f64> {
        None
    }
    /// App-specific figures for the record (for example `rms_force_deviation`).
    fn metrics(&self, _outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }
    /// [`Kernel::validate`] and [`Kernel::metrics`] of one readback (what the
    /// runner calls); a kernel whose two decode the same large output
    /// overrides it to decode once.
    fn check(&self, outputs: &[&[u8]]) -> (Validation, BTreeMap<String, f64>) {
        (self.validate(outputs), self.metrics(outputs))
    }
}

/// A case prepared on the CPU reference platform (f64, rayon).
pub trait CpuKernel: Send {
    /// Runs once.
    fn run(&mut self);
    /// Checks the result of the runs so far (the first run is checked).
    fn validate(&self) -> Validation;
    /// Work and traffic of one run.
    fn model(&self) -> Model;
}

/// A mini-app: one module in `core/src/apps` plus one folder in `shaders/`.
pub trait App: Send + Sync {
    /// Registry name, e.g. `stream`.
    fn name(&self) -> &'static str;
    /// One line describing the app.
    fn about(&self) -> &'static str;
    /// Parameters the app accepts, with defaults.
    fn params(&self) -> Vec<ParamSpec>;
    /// Precisions run when the request names none.
    fn default_precisions(&self) -> Vec<Precision> {
        Precision::ALL.to_vec()
    }
    /// Parameter values `skylight sweep` uses when the user sets none of
    /// them: the app's characteristic sweep (workgroup sizes, layouts, ...).
    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// The parameters `skylight tune` searches ([`crate::tune`]), each with
    /// the values it tries (a comma list; the parameter's default is tried
    /// first): parameters that change how fast a kernel runs, never what it
    /// computes. Most influential first: a search cut short by its budget
    /// has moved along those. None: the app has nothing to tune.
    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
    /// Expands a request into cases; errors on bad values.
    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>>;
    /// Allocates, uploads and poisons on `gpu` and builds the pipelines.
    /// Called inside the runner's error scopes; submits no work but the
    /// uploads and poisoning (no run of the kernel).
    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>>;
    /// Every kernel module the app builds in precision `p` (with default
    /// constants), for the naga validation test of all kernel x prelude pairs.
    fn shaders(&self, p: Precision) -> Vec<crate::shader::ShaderSpec>;
    /// The same case on the CPU reference platform, in f64 (`None` if the app has none).
    fn prepare_cpu(&self, _case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        None
    }
    /// The case parameters that define the problem solved (its size and
    /// inputs), as opposed to how it is solved (layout, mapping, launch
    /// shape): records that agree on these solve the same problem, so a
    /// native baseline and Skylight's variants of it can be compared.
    fn problem(&self) -> &'static [&'static str] {
        &[]
    }
    /// The case parameters, besides the problem's ([`App::problem`], which
    /// it always solves), that the CPU reference implementation
    /// ([`App::prepare_cpu`]) honours. The CPU platform runs one case per
    /// kernel and distinct values of these, labelled `reference`; every
    /// other parameter (layout, mapping, workgroup size, ...) is the GPU's
    /// way of solving the problem, which the reference does not have, so
    /// the other requested variants are reported as not run there.
    /// Default: none.
    fn cpu_params(&self) -> &'static [&'static str] {
        &[]
    }
    /// Other names a request may give a parameter, as (alias, parameter):
    /// a renamed parameter keeps its old name so commands and links work.
    fn aliases(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// The parameter a request's `name` sets: its own, or the one it is an
    /// alias of; `None` when the app has neither.
    fn param_name(&self, name: &str) -> Option<&'static str> {
        let name = self
            .aliases()
            .iter()
            .find(|(alias, _)| *alias == name)
            .map_or(name, |(_, param)| *param);
        self.params()
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.name)
    }
}

/// A parameter spec for the common workgroup-size parameter.
pub fn wg_param(default: &'static str) -> ParamSpec {
    ParamSpec {
        name: "wg",
        help: "workgroup size (invocations); a comma list sweeps",
        kind: ParamKind::UInt { min: 1, max: 1024 },
        default,
    }
}

/// `OverLimit` unless `wg` fits the adapter's invocations per workgroup.
pub fn check_wg(wg: u64, caps: &Capabilities) -> Result<u32> {
    if wg == 0 || wg > caps.max_workgroup_invocations as u64 {
        return Err(Error::OverLimit {
            limit: "max_compute_invocations_per_workgroup",
            needed: wg,
            max: caps.max_workgroup_invocations as u64,
        });
    }
    Ok(wg as u32)
}
