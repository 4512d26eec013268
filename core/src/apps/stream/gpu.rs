//! stream on a GPU: the three arrays (separate or packed, in blocks of
//! elements where one binding cannot hold an array), the output poisoned,
//! and one kernel's pipeline, or the driver's buffer copy.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Inputs, KernelName, Params, SCALAR, fit, model, output_array, spec, validate};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::apps::blocks::Blocks;
use crate::error::{Error, Result};
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::params::Choice;
use crate::precision::Precision;

/// A case prepared on a GPU: its arrays in blocks of elements (one block
/// where a binding holds an array), each block dispatched on its own.
pub(super) struct StreamGpu {
    kernel: KernelName,
    precision: Precision,
    n: u64,
    inputs: Arc<Inputs>,
    blocks: Blocks,
    parts: Vec<Part>,
    /// `None` for the driver copy.
    pipeline: Option<Pipeline>,
}

/// One block of the arrays: its buffers, its partial sums and its dispatch.
struct Part {
    arrays: Arrays,
    partial: wgpu::Buffer,
    /// `None` for the driver copy.
    bind: Option<wgpu::BindGroup>,
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
        if !fit::packed(params) {
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
        let (p, kernel, n) = (params.precision, params.kernel, params.n);
        let blocks = fit::fits(params, &gpu.caps)?;
        // Every kernel, workgroup size and allocation of a request shares
        // the arrays (fresh random ones per request).
        let inputs = gpu
            .memo
            .get_or_make(&format!("stream/{n}/{p}"), || Inputs::new(n as usize, p));
        let pipeline = match kernel {
            KernelName::CopyBuffer => None,
            _ => Some(gpu.pipeline(
                &spec(p, params.wg, params.epi, params.load),
                kernel.name(),
                &[
                    Bind::ReadWrite,
                    Bind::ReadWrite,
                    Bind::ReadWrite,
                    Bind::Read,
                    Bind::Uniform,
                    Bind::ReadWrite,
                ],
            )?),
        };
        let scalars = gpu.storage_init("scalars", &p.encode(&[SCALAR]))?;
        let parts = (0..blocks.count())
            .map(|k| {
                let range = (blocks.first(k), blocks.len(k));
                Part::new(gpu, params, &inputs, range, pipeline.as_ref(), &scalars)
            })
            .collect::<Result<Vec<Part>>>()?;
        Ok(StreamGpu {
            kernel,
            precision: p,
            n,
            inputs,
            blocks,
            parts,
            pipeline,
        })
    }
}

impl Part {
    /// Block `(first, len)` of the arrays: uploaded, its output poisoned,
    /// and bound to `pipeline` with `scalars`.
    fn new(
        gpu: &Gpu,
        params: &Params,
        inputs: &Inputs,
        (first, len): (u64, u64),
        pipeline: Option<&Pipeline>,
        scalars: &wgpu::Buffer,
    ) -> Result<Part> {
        let (p, kernel, wg) = (params.precision, params.kernel, params.wg);
        let rb = p.real_bytes();
        let arrays = Arrays::new(gpu, params, len * rb)?;
        let out_index = output_array(kernel);
        let poison = p.poison_pattern();
        let range = (first * rb) as usize..((first + len) * rb) as usize;
        // nstream reads the array it writes, so it cannot be poisoned; its
        // result differs from the initial values, so an unwritten element still fails.
        for (i, v) in inputs.encoded(p).iter().enumerate() {
            let (b, off) = arrays.at[i];
            if i == out_index && kernel != KernelName::Nstream {
                gpu.poison_range(&arrays.buffers[b], off, arrays.bytes, &poison);
            } else {
                gpu.write(&arrays.buffers[b], off, &v[range.clone()])?;
            }
        }
        let lanes = params.load.lanes(p);
        let threads = (len / lanes).div_ceil(u64::from(params.epi));
        let groups = dispatch_shape(threads, wg, gpu.caps.max_workgroups_per_dim)?;
        let total_threads =
            u32::try_from(u64::from(groups.0) * u64::from(groups.1) * u64::from(wg))
                .map_err(|_| Error::bad_param("size", "more than 2^32 - 1 invocations a block"))?;
        let partial = gpu.storage_poisoned(
            "partial",
            u64::from(groups.0) * u64::from(groups.1) * rb,
            &poison,
        )?;
        let bind = pipeline.map(|pipe| {
            let dims = gpu.uniform(
                "dims",
                bytemuck::cast_slice(&[(len / lanes) as u32, total_threads, 0, 0]),
            );
            gpu.bind_resources(
                pipe,
                &[
                    arrays.binding(0),
                    arrays.binding(1),
                    arrays.binding(2),
                    scalars.as_entire_binding(),
                    dims.as_entire_binding(),
                    partial.as_entire_binding(),
                ],
            )
        });
        Ok(Part {
            arrays,
            partial,
            bind,
            groups,
        })
    }
}

impl Kernel for StreamGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        self.encode_runs(enc, 1, ts);
    }

    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        let Some(pipe) = &self.pipeline else {
            for _ in 0..runs {
                for part in &self.parts {
                    let a = &part.arrays;
                    enc.copy_buffer_to_buffer(a.buffer(0), 0, a.buffer(2), 0, a.bytes);
                }
            }
            return;
        };
        // One block binds once for every run, as before the split.
        let rebind = self.parts.len() > 1;
        one_pass_runs(enc, self.kernel.name(), runs, ts, |pass, r| {
            for part in &self.parts {
                if let (true, Some(bg)) = (r == 0 || rebind, &part.bind) {
                    pipe.set(pass, bg);
                }
                pass.dispatch_workgroups(part.groups.0, part.groups.1, 1);
            }
        });
    }

    fn pass_timed(&self) -> bool {
        self.pipeline.is_some()
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        match output_array(self.kernel) {
            usize::MAX => self.parts.iter().map(|part| &part.partial).collect(),
            i => self
                .parts
                .iter()
                .map(|part| part.arrays.buffer(i))
                .collect(),
        }
    }

    /// Every element compared on all cores, whatever the size, read where
    /// its block puts it.
    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let p = self.precision;
        let rb = p.real_bytes() as usize;
        let mut v = match output_array(self.kernel) {
            usize::MAX => {
                let sums: Vec<f64> = outputs
                    .iter()
                    .flat_map(|b| (0..b.len() / rb).map(|j| p.read(b, j)))
                    .collect();
                validate(self.kernel, p, &self.inputs, sums.len(), |i| sums[i])
            }
            i => {
                let slices: Vec<&[u8]> = (self.parts.iter().zip(outputs))
                    .map(|(part, read)| part.arrays.slice(i, read))
                    .collect();
                let n = slices.iter().map(|s| s.len() / rb).sum();
                let blocks = self.blocks;
                validate(self.kernel, p, &self.inputs, n, |j| {
                    let (k, at) = blocks.locate(j as u64);
                    p.read(slices[k], at as usize)
                })
            }
        };
        if self.parts.len() > 1 {
            v.detail
                .push_str(&format!("; whole, over {} blocks", self.parts.len()));
        }
        v
    }

    /// The blocks each array is split into, where it is.
    fn metrics(&self, _outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        match self.parts.len() {
            1 => BTreeMap::new(),
            k => BTreeMap::from([("blocks".to_string(), k as f64)]),
        }
    }

    fn model(&self) -> Model {
        model(self.kernel, self.n, self.precision)
    }

    /// Every element is loaded and stored once: the model's bytes.
    fn issued_bytes(&self) -> Option<f64> {
        Some(self.model().bytes)
    }
}
