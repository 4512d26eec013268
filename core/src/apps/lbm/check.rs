//! How a case's field is checked. A field of up to [`WHOLE_REALS`] reals is
//! compared whole with the f64 reference; a larger one (an H200 holds
//! L = 512, 2.5 billion reals) on a random sample of [`SAMPLE_SITES`] sites
//! and the lattice's corners, each against its own f64 reference computed
//! from the start alone, while mass and momentum are summed over every
//! site straight from the GPU's buffers (an unwritten element is NaN and
//! fails them). The host then holds the start and the read-back bytes, not
//! three more f64 copies of the field.

use rand::Rng;

use super::d3q19::{self, Box3, NVEL, collide_site};
use super::{KernelName, Start};
use crate::apps::common::fresh_rng;
use crate::choice;
use crate::layout::Groups;
use crate::precision::Precision;

choice! {
    /// How a run's field is checked against the f64 reference (`auto`
    /// resolves per size: whole up to [`WHOLE_REALS`] reals).
    pub enum Check("check") {
        /// Whole where the field is small enough, else a sample.
        Auto = "auto",
        /// Every site.
        Whole = "whole",
        /// A random sample of sites and the whole field's mass and momentum.
        Sample = "sample",
    }
}
/// The largest field (in reals) compared whole: 2^28, L = 241.
pub(super) const WHOLE_REALS: u64 = 1 << 28;

/// Random sites a larger field is compared at.
pub(super) const SAMPLE_SITES: usize = 1 << 16;

/// Whether a field of `sites` sites is checked on a sample of them.
pub(super) fn sampled(sites: u64) -> bool {
    // Saturating: sizes past a u32 of sites reach `fit::fits` to be refused.
    sites.saturating_mul(NVEL as u64) > WHOLE_REALS
}

/// The sampled sites of a start and their f64 reference after one step.
pub(super) struct Sample {
    /// Sites, ascending.
    pub sites: Vec<usize>,
    /// Their distributions after one step, [`NVEL`] a site.
    pub want: Vec<f64>,
}

impl Sample {
    /// A fresh sample of `start`'s lattice (its eight corners and
    /// [`SAMPLE_SITES`] random sites) and its reference after one step of
    /// `kernel`.
    pub fn new(start: &Start, kernel: KernelName) -> Sample {
        Sample::drawn(start, kernel, &mut fresh_rng())
    }

    /// [`Sample::new`] with its sites drawn from `rng` (the ranks of a
    /// scale-out run draw the same ones).
    pub fn drawn(start: &Start, kernel: KernelName, rng: &mut rand_pcg::Pcg64) -> Sample {
        let b = &start.lattice;
        let [nx, ny, nz] = b.n;
        let corners = (0..8).map(|c| {
            let pick = |bit: usize, n: usize| if c >> bit & 1 == 1 { n - 1 } else { 0 };
            pick(0, nx) + nx * (pick(1, ny) + ny * pick(2, nz))
        });
        let random = (0..SAMPLE_SITES).map(|_| rng.random_range(0..b.sites()));
        let mut sites: Vec<usize> = corners.chain(random).collect();
        sites.sort_unstable();
        sites.dedup();
        let want = crate::parallel::par_map(sites.len() * NVEL, |i| {
            first_step_at(b, &start.f0, kernel, sites[i / NVEL])[i % NVEL]
        });
        Sample { sites, want }
    }

    /// The sampled sites' distributions read from the field's buffers.
    pub fn read(&self, groups: &Groups, p: Precision, parts: &[&[u8]]) -> Vec<f64> {
        crate::parallel::par_map(self.sites.len() * NVEL, |i| {
            value(groups, p, parts, self.sites[i / NVEL], i % NVEL)
        })
    }

    /// What the comparison covered, for the record.
    pub fn describe(&self, total: usize) -> String {
        format!(
            "a sample of {} of {total} sites (whole-field mass and momentum)",
            self.sites.len()
        )
    }
}

/// Velocity `q` of `site` in the field's buffers (NaN past a short buffer).
pub(super) fn value(groups: &Groups, p: Precision, parts: &[&[u8]], site: usize, q: usize) -> f64 {
    let (g, c) = groups.locate(q as u32);
    let width = p.real_bytes() as usize;
    let at = groups.group(g).index(site as u32, c) * width;
    parts
        .get(g as usize)
        .and_then(|b| b.get(at..at + width))
        .map_or(f64::NAN, |v| p.get(v))
}

/// Mass and momentum of the field in `parts`, every site, as
/// [`d3q19::totals`] sums them.
pub(super) fn totals(groups: &Groups, p: Precision, parts: &[&[u8]]) -> (f64, [f64; 3]) {
    let sites = groups.layout.sites as usize;
    d3q19::totals_by(sites, |site, q| value(groups, p, parts, site, q))
}

/// One step of `kernel` at `site` from `f0` (logical order), in f64: what
/// the whole-field reference gives there.
fn first_step_at(b: &Box3, f0: &[f64], kernel: KernelName, site: usize) -> [f64; NVEL] {
    let at = |s: usize| &f0[s * NVEL..(s + 1) * NVEL];
    let pulled: [f64; NVEL] = std::array::from_fn(|q| f0[b.upwind(site, q) * NVEL + q]);
    match kernel {
        KernelName::Collide => collide_site(b, at(site)),
        KernelName::Propagate => pulled,
        KernelName::Fused => collide_site(b, &pulled),
        KernelName::Step => std::array::from_fn(|q| collide_site(b, at(b.upwind(site, q)))[q]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::lbm::{Init, Setup};
    use crate::layout::{Layout, LayoutName};
    use crate::params::Choice;

    #[test]
    fn the_sample_agrees_with_the_whole_reference_and_reads_every_group() {
        let mut params = crate::apps::lbm::tests::params(KernelName::Fused, 6, 1, Init::Random);
        for kernel in KernelName::ALL {
            params.kernel = *kernel;
            let setup = Setup::new(&params, Precision::F64);
            let whole = setup.expected();
            let sample = Sample::new(&setup.start, *kernel);
            assert!(sample.sites.len() <= 216 && sample.sites.contains(&215));
            for (k, &s) in sample.sites.iter().enumerate() {
                let want = &whole[s * NVEL..(s + 1) * NVEL];
                assert_eq!(
                    &sample.want[k * NVEL..(k + 1) * NVEL],
                    want,
                    "{kernel} at {s}"
                );
            }
            let groups = Groups {
                layout: Layout::new(LayoutName::Aosoa4, 216, NVEL as u32),
                per: 6,
            };
            let parts = groups.encode(Precision::F64, &whole, f64::NAN);
            let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            assert_eq!(sample.read(&groups, Precision::F64, &refs), sample.want);
            assert_eq!(
                totals(&groups, Precision::F64, &refs),
                d3q19::totals(&whole)
            );
        }
    }
}
