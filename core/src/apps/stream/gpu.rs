//! stream on a GPU: the three arrays (separate or packed), the output
//! poisoned, and one kernel's pipeline, or the driver's buffer copy.

use std::sync::Arc;

use super::{Alloc, Inputs, KernelName, Params, SCALAR, model, output_array, spec, validate};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::params::Choice;
use crate::precision::Precision;

/// A case prepared on a GPU.
pub(super) struct StreamGpu {
    kernel: KernelName,
    precision: Precision,
    n: u64,
    inputs: Arc<Inputs>,
    arrays: Arrays,
    partial: wgpu::Buffer,
    /// `None` for the driver copy.
    pipeline: Option<(Pipeline, wgpu::BindGroup)>,
    groups: (u32, u32),
}

/// Where the three arrays live: three allocations, or one with padded offsets.
struct Arrays {
    buffers: Vec<wgpu::Buffer>,
    /// (buffer index, byte offset) of a, b and c.
    at: [(usize, u64); 3],
    /// Bytes of one array.
    bytes: u64,
}

impl Arrays {
    fn new(gpu: &Gpu, params: &Params, bytes: u64) -> Result<Arrays> {
        gpu.check_size(bytes)?;
        // The driver copy cannot copy within one buffer: it always uses three.
        if params.alloc == Alloc::Separate || params.kernel == KernelName::CopyBuffer {
            let buffers = vec![
                gpu.storage("a", bytes)?,
                gpu.storage("b", bytes)?,
                gpu.storage("c", bytes)?,
            ];
            return Ok(Arrays {
                buffers,
                at: [(0, 0), (1, 0), (2, 0)],
                bytes,
            });
        }
        let align = gpu.limits.min_storage_buffer_offset_alignment as u64;
        let stride = (bytes + params.pad).div_ceil(align) * align;
        let buffers = vec![gpu.storage("abc", 2 * stride + bytes)?];
        Ok(Arrays {
            buffers,
            at: [(0, 0), (0, stride), (0, 2 * stride)],
            bytes,
        })
    }

    fn buffer(&self, i: usize) -> &wgpu::Buffer {
        &self.buffers[self.at[i].0]
    }

    fn binding(&self, i: usize) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: self.buffer(i),
            offset: self.at[i].1,
            size: wgpu::BufferSize::new(self.bytes),
        })
    }

    /// Array `i`'s bytes out of the read-back copy of its buffer.
    fn slice<'a>(&self, i: usize, read: &'a [u8]) -> &'a [u8] {
        let off = self.at[i].1 as usize;
        &read[off..off + self.bytes as usize]
    }
}

impl StreamGpu {
    /// Uploads the request's arrays for `params` and builds its pipeline.
    pub(super) fn new(gpu: &Gpu, params: &Params) -> Result<StreamGpu> {
        let (p, kernel) = (params.precision, params.kernel);
        let (n, wg, epi) = (params.n, params.wg, params.epi);
        // Every kernel, workgroup size and allocation of a request shares
        // the arrays (fresh random ones per request).
        let inputs = gpu
            .memo
            .get_or_make(&format!("stream/{n}/{p}"), || Inputs::new(n as usize, p));
        let arrays = Arrays::new(gpu, params, n * p.real_bytes())?;
        let out_index = output_array(kernel);
        let poison = p.poison_pattern();
        // nstream reads the array it writes, so it cannot be poisoned; its
        // result differs from the initial values, so an unwritten element still fails.
        for (i, v) in inputs.encoded(p).iter().enumerate() {
            let (b, off) = arrays.at[i];
            if i == out_index && kernel != KernelName::Nstream {
                gpu.poison_range(&arrays.buffers[b], off, arrays.bytes, &poison);
            } else {
                gpu.write(&arrays.buffers[b], off, v)?;
            }
        }
        let lanes = params.load.lanes(p);
        let threads = (n / lanes).div_ceil(epi as u64);
        let groups = dispatch_shape(threads, wg, gpu.caps.max_workgroups_per_dim)?;
        let total_threads = groups.0 as u64 * groups.1 as u64 * wg as u64;
        let partial = gpu.storage_poisoned(
            "partial",
            groups.0 as u64 * groups.1 as u64 * p.real_bytes(),
            &poison,
        )?;
        let pipeline = if kernel == KernelName::CopyBuffer {
            None
        } else {
            let pipe = gpu.pipeline(
                &spec(p, wg, epi, params.load),
                kernel.name(),
                &[
                    Bind::ReadWrite,
                    Bind::ReadWrite,
                    Bind::ReadWrite,
                    Bind::Read,
                    Bind::Uniform,
                    Bind::ReadWrite,
                ],
            )?;
            let scalars = gpu.storage_init("scalars", &p.encode(&[SCALAR]))?;
            let dims = gpu.uniform(
                "dims",
                bytemuck::cast_slice(&[(n / lanes) as u32, total_threads as u32, 0, 0]),
            );
            let bg = gpu.bind_resources(
                &pipe,
                &[
                    arrays.binding(0),
                    arrays.binding(1),
                    arrays.binding(2),
                    scalars.as_entire_binding(),
                    dims.as_entire_binding(),
                    partial.as_entire_binding(),
                ],
            );
            Some((pipe, bg))
        };
        if n > u32::MAX as u64 || total_threads > u32::MAX as u64 {
            return Err(Error::bad_param("size", "more than 2^32 - 1 elements"));
        }
        Ok(StreamGpu {
            kernel,
            precision: p,
            n,
            inputs,
            arrays,
            partial,
            pipeline,
            groups,
        })
    }
}

impl Kernel for StreamGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        self.encode_runs(enc, 1, ts);
    }

    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        match &self.pipeline {
            None => (0..runs).for_each(|_| {
                enc.copy_buffer_to_buffer(
                    self.arrays.buffer(0),
                    0,
                    self.arrays.buffer(2),
                    0,
                    self.arrays.bytes,
                )
            }),
            Some((pipe, bg)) => one_pass_runs(enc, self.kernel.name(), runs, ts, |pass, r| {
                if r == 0 {
                    pipe.set(pass, bg);
                }
                pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
            }),
        }
    }

    fn pass_timed(&self) -> bool {
        self.pipeline.is_some()
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        match output_array(self.kernel) {
            usize::MAX => vec![&self.partial],
            i => vec![self.arrays.buffer(i)],
        }
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let bytes = match output_array(self.kernel) {
            usize::MAX => outputs[0],
            i => self.arrays.slice(i, outputs[0]),
        };
        let p = self.precision;
        let n = bytes.len() / p.real_bytes() as usize;
        validate(self.kernel, p, &self.inputs, n, |i| p.read(bytes, i))
    }

    fn model(&self) -> Model {
        model(self.kernel, self.n, self.precision)
    }

    /// Every element is loaded and stored once: the model's bytes.
    fn issued_bytes(&self) -> Option<f64> {
        Some(self.model().bytes)
    }
}
