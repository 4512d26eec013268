//! The su3 kernel on a GPU: A, B and C in the case's layout, C poisoned.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{
    Init, Inputs, MILC_SITE_REALS, Mapping, Params, SITE_REALS, Strides, check, checksum, model,
    spec,
};
use crate::app::{Kernel, Model, Timestamps, Validation, one_pass_runs};
use crate::error::Result;
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::parallel;
use crate::params::Choice;
use crate::precision::Precision;

/// A case prepared on a GPU.
pub(super) struct Su3Gpu {
    mapping: Mapping,
    precision: Precision,
    init: Init,
    sites: u64,
    layout: Strides,
    inputs: Arc<Inputs>,
    c: wgpu::Buffer,
    pipe: Pipeline,
    bg: wgpu::BindGroup,
    groups: (u32, u32),
}

impl Su3Gpu {
    /// Uploads the inputs of `params` filled as `init` says and builds the pipeline.
    pub(super) fn new(gpu: &Gpu, params: &Params, init: Init) -> Result<Su3Gpu> {
        let (p, mapping, sites, wg) = (params.precision, params.mapping, params.sites, params.wg);
        let layout = Strides::new(params.layout, sites);
        // Before any allocation or upload: A and C must each fit one binding.
        gpu.check_size(layout.reals * p.real_bytes())?;
        let groups = dispatch_shape(
            mapping.invocations(sites, p),
            wg,
            gpu.caps.max_workgroups_per_dim,
        )?;
        // Every layout, mapping and workgroup size of a sweep checks against
        // the same inputs (drawn once per request).
        let key = format!("su3/{sites}/{p}/{init:?}");
        let inputs = gpu
            .memo
            .get_or_make(&key, || Inputs::new(sites as usize, p, init));
        let pipe = gpu.pipeline(
            &spec(p, wg, &layout, mapping),
            mapping.entry(),
            &[Bind::Read, Bind::Read, Bind::ReadWrite],
        )?;
        // Uploaded once per layout: the kernels only read A and B.
        let ab = gpu
            .uploads
            .get_or_upload(&key, params.layout.name(), &inputs, |inputs| {
                Ok(vec![
                    gpu.storage_init("su3-a", &encode(&layout, &inputs.a, p))?,
                    gpu.storage_init("su3-b", &p.encode(&inputs.b))?,
                ])
            })?;
        // Poisoned: an element the kernel misses reads back as NaN and fails;
        // the MILC padding must still hold the poison afterwards.
        let c =
            gpu.storage_poisoned("su3-c", layout.reals * p.real_bytes(), &p.poison_pattern())?;
        let bg = gpu.bind(&pipe, &[&ab[0], &ab[1], &c]);
        Ok(Su3Gpu {
            mapping,
            precision: p,
            init,
            sites,
            layout,
            inputs,
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
        one_pass_runs(enc, "su3", runs, ts, |pass, r| {
            if r == 0 {
                self.pipe.set(pass, &self.bg);
            }
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        });
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.c]
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let (p, out) = (self.precision, outputs[0]);
        let read = out.len() as u64;
        if read != self.layout.reals * p.real_bytes() {
            return Validation::fail(format!(
                "{}: {read} bytes read back, {} reals expected",
                self.mapping, self.layout.reals
            ));
        }
        // Each element read where the layout puts it: no decoded copy.
        let layout = &self.layout;
        let got = |i: usize| p.read(out, layout.index(i / SITE_REALS, i % SITE_REALS));
        let mut v = check(&self.inputs, got, p, self.init);
        if layout.site_stride == MILC_SITE_REALS as u64 {
            // The kernel must leave the rest of the MILC struct alone.
            let rb = p.real_bytes() as usize;
            let poison = p.poison_pattern();
            let site = MILC_SITE_REALS * rb;
            let touched = parallel::count(self.sites as usize, |s| {
                out[s * site + SITE_REALS * rb..(s + 1) * site]
                    .chunks_exact(rb)
                    .any(|x| x != poison.as_slice())
            });
            if touched > 0 {
                v.passed = false;
                v.detail
                    .push_str(&format!("; padding overwritten in {touched} sites"));
            } else {
                v.detail.push_str("; padding untouched");
            }
        }
        v
    }

    fn model(&self) -> Model {
        model(self.sites, &self.layout, self.precision)
    }

    fn metrics(&self, outputs: &[&[u8]]) -> BTreeMap<String, f64> {
        // Site 0 alone: decoding the whole output (75 million reals at the
        // default size) for 72 of them cost a fresh 600 MB a case.
        let rb = self.precision.real_bytes() as usize;
        let site0: Vec<f64> = (0..SITE_REALS)
            .map(|comp| {
                let at = self.layout.index(0, comp) * rb;
                outputs[0]
                    .get(at..at + rb)
                    .map_or(f64::NAN, |bytes| self.precision.get(bytes))
            })
            .collect();
        BTreeMap::from([("checksum".to_string(), checksum(&site0))])
    }
}
