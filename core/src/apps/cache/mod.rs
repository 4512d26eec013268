//! `cache`: the bandwidth of each memory level. A working-set sweep of a
//! read kernel and of a read-write (copy) kernel, from 16 KiB up to 1 GiB
//! or the binding limit, whose plateaus the roofline names L1, L2, ...
//! and device memory ([`crate::roofline::levels`]); and a read loop over
//! workgroup (shared) memory.

mod kernel;

use crate::app::{App, Case, Kernel, ParamKind, ParamSpec, Request, wg_param};
use crate::apps::common::{check_binding, parse_size};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

use kernel::CacheGpu;

const SOURCE: &str = include_str!("../../../../shaders/cache/cache.wgsl");

/// Workgroup memory the `shared` kernel reads, in 16-byte elements (16 KiB:
/// every WebGPU adapter's guaranteed minimum).
const SHARED: u64 = 1024;

choice! {
    /// The kernels.
    pub enum KernelName("kernel") {
        /// Reads the working set over and over.
        Read = "read",
        /// Copies one half of the working set into the other, over and over.
        Copy = "copy",
        /// Reads 16 KiB of workgroup memory over and over.
        Shared = "shared",
    }
}

/// One cache case, typed (its data are integers: the precision is f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// What is read.
    pub kernel: KernelName,
    /// Working set in bytes (the workgroup array for `shared`).
    pub ws: u64,
    /// Invocations.
    pub threads: u64,
    /// Workgroup size.
    pub wg: u32,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every cache result file).
    pub fn case(&self) -> Case {
        let variant = format!("{}/wg{}", human(self.ws), self.wg);
        Case::new("cache", self.kernel.name(), &variant, Precision::F32)
            .param("ws", self.ws)
            .param("threads", self.threads)
            .param("wg", self.wg)
    }

    /// Passes over the data by each invocation: every element at least
    /// once, and at least 256 (1024 for workgroup memory) so that a run at
    /// the default size moves gigabytes and outlasts its launch by far.
    fn reps(&self) -> u64 {
        match self.kernel {
            KernelName::Shared => 1024,
            KernelName::Read => (self.ws / 16 / self.threads).max(256),
            KernelName::Copy => (self.ws / 32 / self.threads).max(256),
        }
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            kernel: case.kernel_as()?,
            ws: case.uint("ws")?,
            threads: case.uint("threads")?,
            wg: case.u32("wg")?,
        })
    }
}

/// The `cache` app.
pub struct Cache;

impl App for Cache {
    fn name(&self) -> &'static str {
        "cache"
    }

    fn about(&self) -> &'static str {
        "memory levels: working-set sweeps (read, copy) and workgroup memory"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "read and copy (working-set sweeps), shared (workgroup memory)",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "read,copy,shared",
            },
            ParamSpec {
                name: "ws",
                help: "working sets in bytes (powers of two, e.g. 16k, 4m, 1g); a list sweeps",
                kind: ParamKind::Text,
                default: "16k,32k,64k,128k,256k,512k,1m,2m,4m,8m,16m,32m,64m,128m,256m,512m,1g",
            },
            ParamSpec {
                name: "size",
                help: "invocations: default (2^18), small (2^12), or a number (power of two)",
                kind: ParamKind::Text,
                default: "default",
            },
            wg_param("256"),
        ]
    }

    fn problem(&self) -> &'static [&'static str] {
        &["ws"]
    }

    /// Integer data: bandwidth does not depend on the precision, so one run.
    fn default_precisions(&self) -> Vec<Precision> {
        vec![Precision::F32]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let threads = parse_size(
            "size",
            r.text("size"),
            &[("default", 1 << 18), ("small", 1 << 12)],
        )?;
        if !threads.is_power_of_two() {
            return Err(Error::bad_param("size", "must be a power of two"));
        }
        let sets = working_sets(&r, req, caps)?;
        let wgs = r.wgs(caps)?;
        let mut cases = Vec::new();
        for kernel in r.choices::<KernelName>() {
            let sets = match kernel {
                KernelName::Shared => vec![SHARED * 16],
                _ => sets.clone(),
            };
            let base = Params {
                kernel,
                ws: 0,
                threads,
                wg: 1,
            };
            let points = Grid::new(base)
                .axis(&sets, |c, ws| c.ws = ws)
                .axis(&wgs, |c, wg| c.wg = wg)
                .points();
            cases.extend(points.iter().map(Params::case));
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(CacheGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        vec![spec(p, 256)]
    }
}

/// The requested working sets that fit one binding. Sets over the limit
/// are an error when asked for by name, else left out with a warning (the
/// default list runs to 1 GiB, past lavapipe's 128 MiB binding).
fn working_sets(r: &Resolved, req: &Request, caps: &Capabilities) -> Result<Vec<u64>> {
    let limit = caps.max_storage_binding.min(caps.max_buffer);
    let mut sets = Vec::new();
    for ws in r.text("ws").split(',') {
        let bytes = parse_size("ws", ws.trim(), &[])?;
        if !bytes.is_power_of_two() || bytes < 64 {
            return Err(Error::bad_param(
                "ws",
                format!("{bytes} is not a power of two of at least 64 bytes"),
            ));
        }
        if bytes > limit {
            if req.params.contains_key("ws") {
                check_binding(bytes, caps)?;
            }
            log::warn!("cache: working set {bytes} B passes the binding limit {limit} B; skipped");
            continue;
        }
        sets.push(bytes);
    }
    Ok(sets)
}

/// A working set as a label: `16KiB`, `4MiB`, ...
fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{}GiB", b >> 30),
        b if b >= 1 << 20 => format!("{}MiB", b >> 20),
        b if b >= 1 << 10 => format!("{}KiB", b >> 10),
        b => format!("{b}B"),
    }
}

fn spec(p: Precision, wg: u32) -> ShaderSpec {
    ShaderSpec::new("cache", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("SHARED", SHARED as u32)
        .with_include(sources::GRID)
}
