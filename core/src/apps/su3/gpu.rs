//! The su3 kernel on a GPU: A, B and C in the case's layout, C poisoned.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{
    Init, Inputs, MILC_SITE_REALS, Mapping, Params, SITE_REALS, Strides, check, checksum, model,
    spec,
};
use crate::app::{Kernel, Model, Timestamps, Validation};
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
            sites * mapping.per_site(),
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
            &spec(p, wg, &layout),
            mapping.name(),
            &[Bind::Read, Bind::Read, Bind::ReadWrite],
        )?;
        let a = gpu.storage_init("su3-a", &p.encode(&pack(&layout, &inputs.a)))?;
        let b = gpu.storage_init("su3-b", &p.encode(&inputs.b))?;
        // Poisoned: an element the kernel misses reads back as NaN and fails;
        // the MILC padding must still hold the poison afterwards.
        let c =
            gpu.storage_poisoned("su3-c", layout.reals * p.real_bytes(), &p.poison_pattern())?;
        let bg = gpu.bind(&pipe, &[&a, &b, &c]);
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

/// Logical-order values (72 per site) laid out in a buffer of `layout`;
/// MILC's padding (coordinates, index, parity) is zero.
pub(super) fn pack(layout: &Strides, logical: &[f64]) -> Vec<f64> {
    // Gathered (each output slot looks up its source), so it runs in parallel.
    parallel::par_map(layout.reals as usize, |j| {
        layout
            .slot(j)
            .map_or(0.0, |(s, comp)| logical[s * SITE_REALS + comp])
    })
}

/// The 72 link reals of every site, in logical order, from a buffer of `layout`.
pub(super) fn unpack(layout: &Strides, raw: &[f64], sites: usize) -> Vec<f64> {
    parallel::par_map(sites * SITE_REALS, |i| {
        raw[layout.index(i / SITE_REALS, i % SITE_REALS)]
    })
}

impl Kernel for Su3Gpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("su3"),
            timestamp_writes: ts.pass(true, true),
        });
        self.pipe.set(&mut pass, &self.bg);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.c]
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let p = self.precision;
        let raw = p.decode(&outputs[0]);
        if raw.len() as u64 != self.layout.reals {
            return Validation::fail(format!(
                "{}: {} reals read back, {} expected",
                self.mapping,
                raw.len(),
                self.layout.reals
            ));
        }
        let got = unpack(&self.layout, &raw, self.sites as usize);
        let mut v = check(&self.inputs, &got, p, self.init);
        if self.layout.site_stride == MILC_SITE_REALS as u64 {
            // The kernel must leave the rest of the MILC struct alone.
            let rb = p.real_bytes() as usize;
            let poison = p.poison_pattern();
            let touched = outputs[0]
                .chunks_exact(MILC_SITE_REALS * rb)
                .filter(|site| {
                    site[SITE_REALS * rb..]
                        .chunks_exact(rb)
                        .any(|x| x != poison.as_slice())
                })
                .count();
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
                match outputs[0].get(at..at + rb) {
                    Some(bytes) => self.precision.decode(bytes)[0],
                    None => f64::NAN,
                }
            })
            .collect();
        BTreeMap::from([("checksum".to_string(), checksum(&site0))])
    }
}
