//! `cache`: a working-set sweep of a read kernel (16 KiB up to 1 GiB or the
//! binding limit) that shows the steps from each cache level to device memory.

use crate::app::{
    App, Case, Kernel, Model, ParamKind, ParamSpec, Request, Timestamps, Validation, wg_param,
};
use crate::apps::common::{check_binding, parse_size};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Capabilities, Gpu, Pipeline, dispatch_shape};
use crate::params::{Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

const SOURCE: &str = include_str!("../../../shaders/cache/cache.wgsl");

/// One cache case, typed (its data are integers: the precision is f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Working set in bytes.
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
        Case::new("cache", "read", &variant, Precision::F32)
            .param("ws", self.ws)
            .param("threads", self.threads)
            .param("wg", self.wg)
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
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
        "working-set sweep of a read kernel: cache and memory bandwidth steps"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "ws",
                help: "working sets in bytes (powers of two, e.g. 16k, 4m, 1g); a list sweeps",
                kind: ParamKind::Text,
                default: "16k,64k,256k,1m,4m,16m,64m,256m,1g",
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
        let limit = caps.max_storage_binding.min(caps.max_buffer);
        let mut sets = Vec::new();
        for ws in r.text("ws").split(',') {
            let bytes = parse_size("ws", ws.trim(), &[])?;
            if !bytes.is_power_of_two() || bytes < 16 {
                return Err(Error::bad_param(
                    "ws",
                    format!("{bytes} is not a power of two of at least 16 bytes"),
                ));
            }
            if bytes > limit {
                if req.params.contains_key("ws") {
                    check_binding(bytes, caps)?;
                }
                log::warn!(
                    "cache: working set {bytes} B passes the binding limit {limit} B; skipped"
                );
                continue;
            }
            sets.push(bytes);
        }
        let wgs = match sets.is_empty() {
            true => Vec::new(),
            false => r.wgs(caps)?,
        };
        let base = Params {
            ws: 0,
            threads,
            wg: 1,
        };
        Ok(Grid::new(base)
            .axis(&sets, |c, ws| c.ws = ws)
            .axis(&wgs, |c, wg| c.wg = wg)
            .points()
            .iter()
            .map(Params::case)
            .collect())
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(CacheGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        vec![spec(p, 256)]
    }
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
        .with_include(sources::GRID)
}

struct CacheGpu {
    m: u64,
    threads: u64,
    reps: u64,
    out: wgpu::Buffer,
    pipe: Pipeline,
    bg: wgpu::BindGroup,
    groups: (u32, u32),
}

impl CacheGpu {
    fn new(gpu: &Gpu, params: &Params) -> Result<CacheGpu> {
        let (ws, threads, wg) = (params.ws, params.threads, params.wg);
        let m = ws / 16;
        // At least 32 reads per invocation, and the whole set read at least once.
        let reps = (m / threads).max(32);
        let data: Vec<u32> = (0..m * 4).map(|j| j as u32).collect();
        let groups = dispatch_shape(threads, wg, gpu.caps.max_workgroups_per_dim)?;
        let pipe = gpu.pipeline(
            &spec(Precision::F32, wg),
            "sweep_read",
            &[Bind::Read, Bind::ReadWrite, Bind::Uniform],
        )?;
        let input = gpu.storage_init("data", bytemuck::cast_slice(&data))?;
        let out = gpu.storage_poisoned("out", threads * 4, &0xdead_beef_u32.to_le_bytes())?;
        let dims = gpu.uniform(
            "dims",
            bytemuck::cast_slice(&[(m - 1) as u32, threads as u32, reps as u32, 0]),
        );
        let bg = gpu.bind(&pipe, &[&input, &out, &dims]);
        Ok(CacheGpu {
            m,
            threads,
            reps,
            out,
            pipe,
            bg,
            groups,
        })
    }
}

impl Kernel for CacheGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("cache"),
            timestamp_writes: ts.pass(true, true),
        });
        self.pipe.set(&mut pass, &self.bg);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.out]
    }

    /// Element j of the buffer holds (4j, 4j+1, 4j+2, 4j+3), so each read adds 16j + 6 (mod 2^32).
    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let got: &[u32] = bytemuck::cast_slice(outputs[0]);
        let mask = self.m - 1;
        let wrong = got
            .iter()
            .enumerate()
            .filter(|&(i, &g)| {
                let mut j = i as u64 & mask;
                let mut acc = 0u32;
                for _ in 0..self.reps {
                    acc = acc.wrapping_add((16 * j as u32).wrapping_add(6));
                    j = (j + self.threads) & mask;
                }
                acc != g
            })
            .count();
        Validation {
            reference: false,
            max_error: wrong as f64,
            tolerance: 0.0,
            passed: wrong == 0 && got.len() as u64 == self.threads,
            detail: format!("exact integer sums: {wrong} of {} wrong", got.len()),
        }
    }

    fn model(&self) -> Model {
        Model {
            flops: 0.0,
            bytes: (self.threads * self.reps * 16) as f64,
        }
    }
}
