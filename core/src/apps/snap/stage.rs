//! The kernels timed alone: the CPU f64 reference of each stage, made once
//! per problem, and the inputs it gives a stage so it runs without the
//! stages before it.

use std::sync::OnceLock;

use super::sna::{self, C, Config};
use super::{DULIST, ULIST, UTOT, YLIST};
use super::{KernelName, Layout, Params};
use crate::error::Result;
use crate::gpu::Gpu;

/// The CPU f64 reference of the kernels timed alone, made once per problem
/// and shared by every precision, variant and workgroup size: at 2J = 14
/// the atom states take a second and the dU of every pair seconds more.
pub(super) struct StageRefs {
    pub(super) states: Vec<sna::AtomState>,
    /// The total U of every atom written out whole, as the GPU stores it.
    pub(super) utot_full: OnceLock<Vec<Vec<C>>>,
    /// dU of every pair (3 x NY each), made for the first compute_dU or
    /// compute_dE case.
    pub(super) du: OnceLock<Vec<Vec<C>>>,
    /// fij of every pair (3 each), made for the first compute_dE case.
    pub(super) fij: OnceLock<Vec<f64>>,
}

impl StageRefs {
    /// The references of a problem whose atoms are in `states`; the rest
    /// are made on first use.
    pub(super) fn new(states: Vec<sna::AtomState>) -> StageRefs {
        StageRefs {
            states,
            utot_full: OnceLock::new(),
            du: OnceLock::new(),
            fij: OnceLock::new(),
        }
    }

    /// U of pair `q` (atom-major, `nnbr` pairs an atom).
    pub(super) fn ulist(&self, q: usize, nnbr: usize) -> &[C] {
        &self.states[q / nnbr].ulist[q % nnbr]
    }

    /// The whole total U of every atom, made on first use.
    pub(super) fn utot_full(&self, t: &sna::Tables) -> &[Vec<C>] {
        self.utot_full
            .get_or_init(|| self.states.iter().map(|s| t.full(&s.utot)).collect())
    }

    /// dU of every pair, made on first use.
    pub(super) fn du(&self, config: &Config, t: &sna::Tables, geo: &[[f64; 8]]) -> &[Vec<C>] {
        self.du.get_or_init(|| {
            crate::parallel::collect(config.pairs(), |q| {
                Config::pair_du(t, &geo[q], self.ulist(q, config.nnbr)).concat()
            })
        })
    }

    /// fij of every pair, made on first use (with dU).
    pub(super) fn fij(&self, config: &Config, t: &sna::Tables, geo: &[[f64; 8]]) -> &[f64] {
        self.fij.get_or_init(|| {
            let du = self.du(config, t, geo);
            let ny = t.ny();
            let per_pair = crate::parallel::collect(config.pairs(), |q| {
                let y = &self.states[q / config.nnbr].y;
                du[q]
                    .chunks_exact(ny)
                    .map(|dk| t.de(dk, y))
                    .collect::<Vec<_>>()
            });
            per_pair.concat()
        })
    }
}

/// A kernel timed alone: uploads the inputs the CPU reference gives it, so
/// it runs without the kernels before it (each slot filled straight from
/// the reference's arrays in the case's layout and precision).
pub(super) fn stage_inputs(
    gpu: &Gpu,
    params: &Params,
    (config, t, geo): (&Config, &sna::Tables, &[[f64; 8]]),
    refs: &StageRefs,
    layout: Layout,
    buffers: &[wgpu::Buffer],
) -> Result<()> {
    let (p, ny, nnbr) = (params.precision, t.ny(), config.nnbr);
    let upload = |buf: usize, n: usize, ne: usize, value: &(dyn Fn(usize, usize) -> C + Sync)| {
        let bytes = p.encode_with(2 * n * ne, |j| {
            let (item, e) = layout.item(j / 2, n, ne);
            let c = value(item, e);
            [c.re, c.im][j % 2]
        });
        gpu.write(&buffers[buf], 0, &bytes)
    };
    let (atoms, pairs) = (config.nlocal, config.pairs());
    match params.kernel {
        KernelName::ComputeU | KernelName::Force => Ok(()),
        KernelName::ComputeY => {
            let full = refs.utot_full(t);
            upload(UTOT, atoms, t.nu(), &|a, f| full[a][f])
        }
        KernelName::ComputeDu => upload(ULIST, pairs, ny, &|q, e| refs.ulist(q, nnbr)[e]),
        KernelName::ComputeDe if layout.fused => {
            upload(ULIST, pairs, ny, &|q, e| refs.ulist(q, nnbr)[e])?;
            upload(YLIST, atoms, ny, &|a, e| refs.states[a].y[e])
        }
        KernelName::ComputeDe => {
            let du = refs.du(config, t, geo);
            upload(DULIST, pairs, 3 * ny, &|q, e| du[q][e])?;
            upload(YLIST, atoms, ny, &|a, e| refs.states[a].y[e])
        }
    }
}
