//! The su3 kernel on a GPU: A, B and C in the case's layout, C poisoned.
//! Where one binding cannot hold A or C, the lattice is cut into blocks of
//! sites (see `fit`), each block's A and C laid out as a lattice of its
//! own, and the same kernel is dispatched once a block.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{
    Init, Inputs, MILC_SITE_REALS, Mapping, Params, SITE_REALS, Strides, check, checksum, fit,
    issued_bytes, model, spec,
};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::apps::blocks::Blocks;
use crate::error::Result;
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::parallel;
use crate::precision::Precision;

/// A case prepared on a GPU.
pub(super) struct Su3Gpu {
    mapping: Mapping,
    precision: Precision,
    init: Init,
    sites: u64,
    /// The whole lattice's layout (the model counts its traffic).
    layout: Strides,
    blocks: Blocks,
    inputs: Arc<Inputs>,
    parts: Vec<Part>,
}

/// One block of sites: its layout, its C, and its dispatch.
struct Part {
    strides: Strides,
    c: wgpu::Buffer,
    pipe: Pipeline,
    bg: wgpu::BindGroup,
    groups: (u32, u32),
}

impl Su3Gpu {
    /// Uploads the inputs of `params` filled as `init` says and builds the pipeline.
    pub(super) fn new(gpu: &Gpu, params: &Params, init: Init) -> Result<Su3Gpu> {
        let (p, sites) = (params.precision, params.sites);
        // Before any allocation or upload: the blocks each fit a binding,
        // and the lattice the device's memory.
        let blocks = fit::fits(params, &gpu.caps)?;
        let strides = |k: usize| Strides::new(params.layout, blocks.len(k));
        // Every layout, mapping and workgroup size of a sweep checks against
        // the same inputs (drawn once per request).
        let key = format!("su3/{sites}/{p}/{init:?}");
        let inputs = gpu
            .memo
            .get_or_make(&key, || Inputs::new(sites as usize, p, init));
        // Uploaded once per layout and split: the kernels only read A and B.
        let item = format!("{}/{}", params.layout, blocks.per);
        let uploads = gpu.uploads.get_or_upload(&key, &item, &inputs, |inputs| {
            let mut bufs = vec![gpu.storage_init("su3-b", &p.encode(&inputs.b))?];
            for k in 0..blocks.count() {
                let first = blocks.first(k) as usize * SITE_REALS;
                let a = &inputs.a[first..first + blocks.len(k) as usize * SITE_REALS];
                bufs.push(gpu.storage_init("su3-a", &encode(&strides(k), a, p))?);
            }
            Ok(bufs)
        })?;
        let (b, a) = uploads.split_first().expect("B and a block of A");
        let parts = (a.iter().enumerate())
            .map(|(k, a)| Part::new(gpu, params, strides(k), a, b))
            .collect::<Result<Vec<Part>>>()?;
        Ok(Su3Gpu {
            mapping: params.mapping,
            precision: p,
            init,
            sites,
            layout: Strides::new(params.layout, sites),
            blocks,
            inputs,
            parts,
        })
    }
}

impl Part {
    /// The block of `strides` of `params`' lattice reading `a` and `b`,
    /// its C poisoned: an element the kernel misses reads back as NaN and
    /// fails, and the MILC padding must still hold the poison afterwards.
    fn new(
        gpu: &Gpu,
        params: &Params,
        strides: Strides,
        a: &wgpu::Buffer,
        b: &wgpu::Buffer,
    ) -> Result<Part> {
        let (p, mapping, wg) = (params.precision, params.mapping, params.wg);
        let groups = dispatch_shape(
            mapping.invocations(strides.sites, p),
            wg,
            gpu.caps.max_workgroups_per_dim,
        )?;
        let pipe = gpu.pipeline(
            &spec(p, wg, &strides, mapping),
            mapping.entry(),
            &[Bind::Read, Bind::Read, Bind::ReadWrite],
        )?;
        let c =
            gpu.storage_poisoned("su3-c", strides.reals * p.real_bytes(), &p.poison_pattern())?;
        let bg = gpu.bind(&pipe, &[a, b, &c]);
        Ok(Part {
            strides,
            c,
            pipe,
            bg,
            groups,
        })
    }
}

/// Logical-order values (72 per site) laid out in a buffer of `layout`, in
/// `p`'s bytes; MILC's padding (coordinates, index, parity) is zero.
pub(super) fn encode(layout: &Strides, logical: &[f64], p: Precision) -> Vec<u8> {
    // Gathered (each output slot looks up its source), so it runs in parallel.
    p.encode_with(layout.reals as usize, |j| {
        layout
            .slot(j)
            .map_or(0.0, |(s, comp)| logical[s * SITE_REALS + comp])
    })
}

impl Kernel for Su3Gpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        self.encode_runs(enc, 1, ts);
    }

    fn encode_runs(&self, enc: &mut wgpu::CommandEncoder, runs: u32, ts: Timestamps<'_>) {
        // One block binds once for every run, as before the split.
        let rebind = self.parts.len() > 1;
        one_pass_runs(enc, "su3", runs, ts, |pass, r| {
            for part in &self.parts {
                if r == 0 || rebind {
                    part.pipe.set(pass, &part.bg);
                }
                pass.dispatch_workgroups(part.groups.0, part.groups.1, 1);
            }
        });
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        self.parts.iter().map(|part| &part.c).collect()
    }

    /// Every element compared on all cores, whatever the size, read where
    /// its block's layout puts it.
    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let p = self.precision;
        let rb = p.real_bytes() as usize;
        let sizes = self
            .parts
            .iter()
            .map(|part| part.strides.reals as usize * rb);
        if outputs.len() != self.parts.len() || !sizes.eq(outputs.iter().map(|o| o.len())) {
            return Validation::fail(format!(
                "{}: {} buffers read back, {} of {} reals expected",
                self.mapping,
                outputs.len(),
                self.parts.len(),
                self.layout.reals
            ));
        }
        // Each element read where the layout puts it: no decoded copy.
        let (blocks, parts) = (self.blocks, &self.parts);
        let got = |i: usize| {
            let (k, s) = blocks.locate((i / SITE_REALS) as u64);
            p.read(
                outputs[k],
                parts[k].strides.index(s as usize, i % SITE_REALS),
            )
        };
        let mut v = check(&self.inputs, got, p, self.init);
        if self.layout.site_stride == MILC_SITE_REALS as u64 {
            // The kernel must leave the rest of the MILC struct alone.
            let poison = p.poison_pattern();
            let site = MILC_SITE_REALS * rb;
            let touched: usize = (outputs.iter())
                .map(|out| {
                    parallel::count(out.len() / site, |s| {
                        out[s * site + SITE_REALS * rb..(s + 1) * site]
                            .chunks_exact(rb)
                            .any(|x| x != poison.as_slice())
                    })
                })
                .sum();
            if touched > 0 {
                v.passed = false;
                v.detail
                    .push_str(&format!("; padding overwritten in {touched} sites"));
            } else {
                v.detail.push_str("; padding untouched");
            }
        }
        if self.parts.len() > 1 {
            v.detail
                .push_str(&format!("; whole, over {} blocks", self.parts.len()));
        }
        v
    }

    fn model(&self) -> Model {
        model(self.sites, &self.layout, self.precision)
    }

    fn issued_bytes(&self) -> Option<f64> {
        Some(issued_bytes(self.mapping, self.sites, self.precision))
    }

    /// su3_bench's checksum, and the blocks of sites where the lattice is split.
    fn metrics(&self, outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        // Site 0 alone: decoding the whole output (75 million reals at the
        // default size) for 72 of them cost a fresh 600 MB a case.
        let rb = self.precision.real_bytes() as usize;
        let site0: Vec<f64> = (0..SITE_REALS)
            .map(|comp| {
                let at = self.parts[0].strides.index(0, comp) * rb;
                outputs
                    .first()
                    .and_then(|out| out.get(at..at + rb))
                    .map_or(f64::NAN, |bytes| self.precision.get(bytes))
            })
            .collect();
        let mut m = BTreeMap::from([("checksum".to_string(), checksum(&site0))]);
        if self.parts.len() > 1 {
            m.insert("blocks".to_string(), self.parts.len() as f64);
        }
        m
    }
}
