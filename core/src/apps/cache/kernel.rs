//! The cache app's GPU kernel and its exact integer check.

use super::{KernelName, Params, SHARED, spec};
use crate::app::{Kernel, Model, Timestamps, Validation};
use crate::error::Result;
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::precision::Precision;

/// What an output word must not hold after a run.
const POISON: u32 = 0xdead_beef;

/// One prepared case: the data, its output and the pipeline.
pub struct CacheGpu {
    params: Params,
    /// Elements (16 bytes each) read; for `copy`, in each half.
    m: u64,
    reps: u64,
    out: wgpu::Buffer,
    pipe: Pipeline,
    bg: wgpu::BindGroup,
    groups: (u32, u32),
}

impl CacheGpu {
    /// Uploads element j = (4j, 4j+1, 4j+2, 4j+3) and poisons the output.
    pub fn new(gpu: &Gpu, params: &Params) -> Result<CacheGpu> {
        let (threads, wg) = (params.threads, params.wg);
        let m = match params.kernel {
            KernelName::Read => params.ws / 16,
            KernelName::Copy => params.ws / 32,
            KernelName::Shared => SHARED,
        };
        let reps = params.reps();
        let data: Vec<u32> = (0..m * 4).map(|j| j as u32).collect();
        let groups = dispatch_shape(threads, wg, gpu.caps.max_workgroups_per_dim)?;
        let entry = match params.kernel {
            KernelName::Read => "sweep_read",
            KernelName::Copy => "sweep_copy",
            KernelName::Shared => "shared_read",
        };
        let pipe = gpu.pipeline(
            &spec(Precision::F32, wg),
            entry,
            &[Bind::Read, Bind::ReadWrite, Bind::Uniform],
        )?;
        let input = gpu.storage_init("data", bytemuck::cast_slice(&data))?;
        let out_len = match params.kernel {
            KernelName::Copy => m * 16,
            _ => threads * 16,
        };
        let out = gpu.storage_poisoned("out", out_len, &POISON.to_le_bytes())?;
        let dims = gpu.uniform(
            "dims",
            bytemuck::cast_slice(&[
                (m - 1) as u32,
                threads as u32,
                reps as u32,
                stride(params, m) as u32,
            ]),
        );
        let bg = gpu.bind(&pipe, &[&input, &out, &dims]);
        Ok(CacheGpu {
            params: *params,
            m,
            reps,
            out,
            pipe,
            bg,
            groups,
        })
    }

    /// The sum invocation `i` must write: element k adds 16k + 6 (mod
    /// 2^32), read from its workgroup's start plus its place in it, then
    /// every workgroup size on (mod m).
    fn want_sum(&self, i: u64) -> u32 {
        let wg = u64::from(self.params.wg);
        let start = match self.params.kernel {
            KernelName::Shared => 0,
            _ => (i / wg) * stride(&self.params, self.m),
        };
        let mask = self.m - 1;
        let mut j = (start + i % wg) & mask;
        let mut acc = 0u32;
        for _ in 0..self.reps {
            acc = acc.wrapping_add((16 * j as u32).wrapping_add(6));
            j = (j + wg) & mask;
        }
        acc
    }
}

/// Elements between neighbouring workgroups' windows: the set spread
/// evenly over the workgroups (0 when it has fewer elements than there are
/// workgroups: each then reads it all). Each window ([`Params::reps`] x wg
/// elements) is at least this long, so the windows cover the set.
fn stride(params: &Params, m: u64) -> u64 {
    m / (params.threads / u64::from(params.wg)).max(1)
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

    /// Exact integers: each invocation's sum of what it read (`read`,
    /// `shared`, from the first word of its output element), or every
    /// element of the copy's half plus one (`copy`).
    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let got: &[[u32; 4]] = bytemuck::cast_slice(outputs[0]);
        let (wrong, what) = match self.params.kernel {
            KernelName::Copy => {
                let wrong = got
                    .iter()
                    .enumerate()
                    .filter(|&(j, g)| (0..4).any(|c| g[c] != (4 * j + c) as u32 + 1))
                    .count();
                (wrong, "copied elements")
            }
            _ => {
                let wrong = got
                    .iter()
                    .enumerate()
                    .filter(|&(i, g)| g[0] != self.want_sum(i as u64))
                    .count();
                (wrong, "sums")
            }
        };
        let len = match self.params.kernel {
            KernelName::Copy => self.m,
            _ => self.params.threads,
        };
        Validation {
            reference: false,
            max_error: wrong as f64,
            tolerance: 0.0,
            passed: wrong == 0 && got.len() as u64 == len,
            detail: format!("exact integer {what}: {wrong} of {} wrong", got.len()),
        }
    }

    /// Bytes at the level the working set lives in (workgroup memory for
    /// `shared`): 16 a read, 32 a copied element.
    fn model(&self) -> Model {
        let per = match self.params.kernel {
            KernelName::Copy => 32,
            _ => 16,
        };
        Model {
            flops: 0.0,
            bytes: (self.params.threads * self.reps * per) as f64,
        }
    }

    fn working_set(&self) -> Option<f64> {
        Some(self.params.ws as f64)
    }
}
