//! gpp on a GPU: the inputs uploaded whole, bound a chunk of rows per
//! pass-1 dispatch as the plan says, and a second pass that adds the
//! partial sums in a fixed order (with `reduction=atomic`, pass 1 adds its
//! sums atomically into zeroed slots, and the second pass adds those).

use std::collections::BTreeMap;

use super::plan::Plan;
use super::reference::{Inputs, validate};
use super::{ATOMIC_SLOTS, Dims, InputSet, Params, Reduction, issued_bytes, model, spec, wx};
use crate::app::{Kernel, Model, Timestamps, Validation};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Gpu, Pipeline};
use crate::params::Choice;
use crate::precision::Precision;

/// A case prepared on a GPU.
pub(super) struct GppGpu {
    d: Dims,
    precision: Precision,
    inputs: InputSet,
    want: [f64; 6],
    pass1: Pipeline,
    /// One pass-1 dispatch per chunk pair: its bindings and its grid.
    chunks: Vec<(wgpu::BindGroup, (u32, u32))>,
    pass2: (Pipeline, wgpu::BindGroup),
    achtemp: wgpu::Buffer,
    /// The atomic reduction's slots and their bytes, zeroed before each run.
    slots: Option<(wgpu::Buffer, u64)>,
    /// Bytes one run's loads and stores request ([`issued_bytes`]).
    issued: f64,
}

/// Rows `first..first + n` of `buf`, `row` bytes each, as a binding.
fn rows_of(buf: &wgpu::Buffer, (first, n): (u64, u64), row: u64) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer: buf,
        offset: first * row,
        size: std::num::NonZeroU64::new(n * row),
    })
}

/// Every buffer of a case: the inputs whole (shared by the variants of a
/// problem), the scalars, and the poisoned partial sums and result.
struct Buffers {
    aqsm: wgpu::Buffer,
    aqsn: wgpu::Buffer,
    eps: wgpu::Buffer,
    wtilde: wgpu::Buffer,
    vcoul_wx: wgpu::Buffer,
    partial: wgpu::Buffer,
    achtemp: wgpu::Buffer,
}

/// The inputs in a precision's bytes: aqsm, aqsn, I_eps, wtilde, vcoul
/// then wx.
type Encoded = [Vec<u8>; 5];

/// `inputs` in `p`'s bytes.
fn encode(inputs: &Inputs, p: Precision) -> Encoded {
    let d = inputs.d;
    let mut vw = inputs.vcoul.clone();
    vw.extend_from_slice(&wx());
    [
        inputs.encode(&inputs.aqsm, d.bands, p),
        inputs.encode(&inputs.aqsn, d.bands, p),
        inputs.encode(&inputs.eps, d.ngpown, p),
        inputs.encode(&inputs.wtilde, d.ngpown, p),
        p.encode(&vw),
    ]
}

/// The input buffers of `bytes` (aqsm, aqsn, I_eps, wtilde, vcoul_wx).
fn upload(gpu: &Gpu, bytes: &Encoded) -> Result<Vec<wgpu::Buffer>> {
    let labels = [
        "aqsmtemp",
        "aqsntemp",
        "I_eps_array",
        "wtilde_array",
        "vcoul_wx",
    ];
    labels
        .iter()
        .zip(bytes)
        .map(|(label, b)| gpu.storage_init(label, b))
        .collect()
}

impl Buffers {
    /// The uploaded `inputs`, and the outputs poisoned; `groups` partial sums.
    fn new(gpu: &Gpu, inputs: Vec<wgpu::Buffer>, groups: u64, p: Precision) -> Result<Buffers> {
        let poison = p.poison_pattern();
        let [aqsm, aqsn, eps, wtilde, vcoul_wx]: [wgpu::Buffer; 5] = inputs
            .try_into()
            .map_err(|_| Error::Device("gpp: five input buffers expected".into()))?;
        Ok(Buffers {
            aqsm,
            aqsn,
            eps,
            wtilde,
            vcoul_wx,
            partial: gpu.storage_poisoned("partial", 6 * groups * p.real_bytes(), &poison)?,
            achtemp: gpu.storage_poisoned("achtemp", 6 * p.real_bytes(), &poison)?,
        })
    }

    /// The bindings of dispatch `k` of `plan`, with its `dims` uniform.
    fn bindings<'a>(
        &'a self,
        plan: &Plan,
        k: usize,
        dims: &'a wgpu::Buffer,
    ) -> [wgpu::BindingResource<'a>; 8] {
        let (n1, igp) = plan.pairs[k];
        [
            rows_of(&self.aqsm, n1, plan.row),
            rows_of(&self.aqsn, n1, plan.row),
            rows_of(&self.eps, igp, plan.row),
            rows_of(&self.wtilde, igp, plan.row),
            self.vcoul_wx.as_entire_binding(),
            dims.as_entire_binding(),
            self.partial.as_entire_binding(),
            self.achtemp.as_entire_binding(),
        ]
    }
}

impl GppGpu {
    /// Builds the pipelines of `params`, plans its chunks and uploads its inputs.
    pub(super) fn new(gpu: &Gpu, params: &Params) -> Result<GppGpu> {
        let (p, d) = (params.precision, params.dims);
        if params.reduction == Reduction::Atomic && p != Precision::F32 {
            return Err(Error::MissingFeature(
                "f32 for atomic adds (WGSL has no 64-bit float atomics)",
            ));
        }
        // Fail before allocating gigabytes on the host.
        gpu.check_size(2 * d.ngpown.max(d.bands) * d.ncouls * p.real_bytes())?;
        let binds = [
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::Read,
            Bind::Uniform,
            Bind::ReadWrite,
            Bind::ReadWrite,
        ];
        let entry = match params.reduction {
            Reduction::Subgroup => "main_sg",
            Reduction::Tree | Reduction::Atomic => "main",
        };
        let align = u64::from(gpu.limits.min_storage_buffer_offset_alignment);
        let plan = Plan::new(params, &gpu.caps, align)?;
        let s = spec(params, plan.ragged);
        let pipe1 = gpu.pipeline(&s, entry, &binds)?;
        // Drawn, summed and encoded once per request: every reduction, loop
        // order, workgroup size and unroll of a sweep uses the same inputs
        // (gigabytes at the default size; the f64 draw is dropped once
        // encoded).
        let key = format!("gpp/{d:?}/{:?}/{p}", params.inputs);
        let shared = gpu.memo.get_or_make(&key, || {
            let inputs = Inputs::new(d, params.inputs, p);
            (encode(&inputs, p), inputs.expected())
        });
        // Uploaded once too: the kernels only read them.
        let inputs = gpu.uploads.get_or_upload(
            &format!("gpp/{d:?}/{p}"),
            params.inputs.name(),
            &shared,
            |(encoded, _)| upload(gpu, encoded),
        )?;
        let want = shared.1;
        let bufs = Buffers::new(gpu, inputs, plan.groups, p)?;
        let dims: Vec<wgpu::Buffer> = plan
            .pairs
            .iter()
            .map(|(n1, igp)| {
                let v = [
                    d.bands,
                    d.ngpown,
                    d.ncouls,
                    plan.groups,
                    n1.0,
                    igp.0,
                    n1.1,
                    0,
                ];
                gpu.uniform("dims", bytemuck::cast_slice(&v.map(|x| x as u32)))
            })
            .collect();
        let chunks = (0..plan.pairs.len())
            .map(|k| {
                let group = gpu.bind_resources(&pipe1, &bufs.bindings(&plan, k, &dims[k]));
                (group, plan.grids[k])
            })
            .collect();
        // The finish pass reads only `partial` and the group count.
        let pipe2 = gpu.pipeline(&s, "finish", &binds)?;
        let bg2 = gpu.bind_resources(&pipe2, &bufs.bindings(&plan, 0, &dims[0]));
        let slots = (params.reduction == Reduction::Atomic).then(|| {
            let bytes = 6 * plan.groups.min(u64::from(ATOMIC_SLOTS)) * p.real_bytes();
            (bufs.partial.clone(), bytes)
        });
        Ok(GppGpu {
            d,
            precision: p,
            inputs: params.inputs,
            want,
            pass1: pipe1,
            chunks,
            pass2: (pipe2, bg2),
            slots,
            achtemp: bufs.achtemp,
            issued: issued_bytes(params),
        })
    }
}

impl Kernel for GppGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        // Before the first pass, so pass timestamps leave it out: a few
        // bytes of atomic slots, against a run of milliseconds.
        if let Some((slots, bytes)) = &self.slots {
            enc.clear_buffer(slots, 0, Some(*bytes));
        }
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpp"),
                timestamp_writes: ts.pass(true, false),
            });
            for (group, grid) in &self.chunks {
                self.pass1.set(&mut pass, group);
                pass.dispatch_workgroups(grid.0, grid.1, 1);
            }
        }
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("gpp/finish"),
            timestamp_writes: ts.pass(false, true),
        });
        self.pass2.0.set(&mut pass, &self.pass2.1);
        pass.dispatch_workgroups(1, 1, 1);
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.achtemp]
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let got = self.precision.decode(outputs[0]);
        validate(&got, &self.want, self.d, self.inputs, self.precision)
    }

    fn model(&self) -> Model {
        model(self.d, self.precision)
    }

    fn issued_bytes(&self) -> Option<f64> {
        Some(self.issued)
    }

    fn metrics(&self, outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        let got = self.precision.decode(outputs[0]);
        let mut m = BTreeMap::new();
        if got.len() == 6 {
            m.insert("achtemp0_re".to_string(), got[0]);
            m.insert("achtemp0_im".to_string(), got[1]);
        }
        m.insert("binding_chunks".to_string(), self.chunks.len() as f64);
        m
    }
}
