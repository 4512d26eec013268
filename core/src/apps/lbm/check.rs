//! How a case's field is checked. A field of up to [`WHOLE_REALS`] reals is
//! compared whole with the f64 reference; a larger one (an H200 holds
//! L = 512, 2.5 billion reals) on a sample, while mass and momentum are
//! summed over every site straight from the GPU's buffers (an unwritten
//! element is NaN and fails them). After one step the sample is
//! [`SAMPLE_SITES`] random sites and the lattice's corners; after more, a
//! few random cubes of [`BLOCK`]^3 sites (one across the lattice's corner,
//! where it wraps), which share most of what they read. Either way each
//! sampled site's f64 reference is computed from the start over its cone
//! alone: the sites it reads, and those they read, back to the start. The
//! host then holds the start and the read-back bytes, not three more f64
//! copies of the field.

use rand::Rng;

use super::d3q19::{self, Box3, NVEL, collide_site};
use super::{KernelName, Start};
use crate::apps::common::fresh_rng;
use crate::choice;
use crate::layout::Groups;
use crate::parallel;
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

/// Side of a sampled cube after more than one step.
pub(super) const BLOCK: usize = 16;

/// The most site updates (over every step's cone) the sample of a
/// multi-step run's reference may take, so that checking stays a small
/// part of a run (16 cubes over 10 steps take 2.9 million).
const MAX_CONE_SITES: u64 = 1 << 26;

/// Sampled cubes of a run of `steps` steps: as many as make
/// [`SAMPLE_SITES`] sites, fewer where their cones would take more than
/// [`MAX_CONE_SITES`] updates, and `None` where one cube's would.
pub(super) fn blocks(steps: u64) -> Option<usize> {
    let side = BLOCK as u64;
    // The cube widens by a site each way a step back (an upper bound: a
    // cone no wider than the lattice holds fewer).
    let cone: u64 = (0..steps).map(|j| (side + 2 * j).pow(3)).sum();
    let most = (SAMPLE_SITES as u64 / side.pow(3)).max(1);
    let fit = MAX_CONE_SITES / cone.max(1);
    (fit > 0).then(|| fit.min(most) as usize)
}

/// The most steps a sampled check follows back to the start.
pub(super) fn max_sampled_steps() -> u64 {
    (1..).find(|&s| blocks(s + 1).is_none()).unwrap_or(1)
}

/// Whether a field of `sites` sites is checked on a sample of them.
pub(super) fn sampled(sites: u64) -> bool {
    // Saturating: sizes past a u32 of sites reach `fit::fits` to be refused.
    sites.saturating_mul(NVEL as u64) > WHOLE_REALS
}

/// The sampled sites of a start and their f64 reference after a run.
pub(super) struct Sample {
    /// Sites, ascending.
    pub sites: Vec<usize>,
    /// Their distributions after the run, [`NVEL`] a site.
    pub want: Vec<f64>,
    /// Cubes sampled (none: random sites).
    blocks: usize,
    steps: u64,
}

impl Sample {
    /// A fresh sample of `start`'s lattice and its reference after `steps`
    /// steps of `kernel` (see the module's text).
    pub fn new(start: &Start, kernel: KernelName, steps: u64) -> Sample {
        Sample::drawn(start, (kernel, steps), &mut fresh_rng())
    }

    /// [`Sample::new`] with its sites drawn from `rng` (the ranks of a
    /// scale-out run draw the same ones). More steps than
    /// [`max_sampled_steps`] sample a single cube (`cases` refuses them).
    pub fn drawn(
        start: &Start,
        (kernel, steps): (KernelName, u64),
        rng: &mut rand_pcg::Pcg64,
    ) -> Sample {
        let b = &start.lattice;
        let n = b.n;
        let site = |c: [usize; 3]| c[0] + n[0] * (c[1] + n[1] * c[2]);
        let (mut sites, blocks) = match steps {
            0 | 1 => {
                let corners =
                    (0..8).map(|c| site(std::array::from_fn(|d| (n[d] - 1) * (c >> d & 1))));
                let random = (0..SAMPLE_SITES).map(|_| rng.random_range(0..b.sites()));
                (corners.chain(random).collect::<Vec<_>>(), 0)
            }
            _ => {
                let count = blocks(steps).unwrap_or(1);
                let side = n.map(|e| BLOCK.min(e));
                // The first cube straddles the lattice's corner.
                let origins = (0..count).map(|k| -> [usize; 3] {
                    std::array::from_fn(|d| match k {
                        0 => n[d] - side[d] / 2,
                        _ => rng.random_range(0..n[d]),
                    })
                });
                let cubes = origins.flat_map(|o| {
                    (0..side.iter().product()).map(move |i| {
                        let at = [i % side[0], i / side[0] % side[1], i / side[0] / side[1]];
                        site(std::array::from_fn(|d| (o[d] + at[d]) % n[d]))
                    })
                });
                (cubes.collect(), count)
            }
        };
        sites.sort_unstable();
        sites.dedup();
        let want = cone_reference(b, &start.f0, (kernel, steps), &sites);
        Sample {
            sites,
            want,
            blocks,
            steps,
        }
    }

    /// The sampled sites' distributions read from the field's buffers.
    pub fn read(&self, groups: &Groups, p: Precision, parts: &[&[u8]]) -> Vec<f64> {
        crate::parallel::par_map(self.sites.len() * NVEL, |i| {
            value(groups, p, parts, self.sites[i / NVEL], i % NVEL)
        })
    }

    /// What the comparison covered, for the record.
    pub fn describe(&self, total: usize) -> String {
        let n = self.sites.len();
        match self.blocks {
            0 => format!("a sample of {n} of {total} sites (whole-field mass and momentum)"),
            b => format!(
                "a sample of {b} random cubes of up to {BLOCK}^3 sites, {n} of {total}, each site's reference over its {}-step cone (whole-field mass and momentum)",
                self.steps
            ),
        }
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

/// `steps` steps of `kernel` from `f0` (logical order) at `sites`
/// (ascending), in f64, [`NVEL`] a site: what the whole-field reference
/// gives there, computed over the sites' cone alone.
fn cone_reference(
    b: &Box3,
    f0: &[f64],
    (kernel, steps): (KernelName, u64),
    sites: &[usize],
) -> Vec<f64> {
    let pulls = kernel != KernelName::Collide;
    // cone[j]: the sites whose values after j steps the later steps read.
    let mut cone = vec![sites.to_vec()];
    for _ in 0..steps {
        let last = &cone[cone.len() - 1];
        let wider = match pulls {
            true => {
                let mut w: Vec<usize> = last
                    .iter()
                    .flat_map(|&s| (0..NVEL).map(move |q| b.upwind(s, q)))
                    .collect();
                w.sort_unstable();
                w.dedup();
                w
            }
            false => last.clone(),
        };
        cone.push(wider);
    }
    cone.reverse();
    let mut from = &cone[0];
    let mut vals = vec![0.0; from.len() * NVEL];
    // (`for_chunks` hands each site's first element's index.)
    parallel::for_chunks(&mut vals, NVEL, |i, out| {
        let s = from[i / NVEL];
        out.copy_from_slice(&f0[s * NVEL..(s + 1) * NVEL]);
    });
    for to in &cone[1..] {
        // `step` collides before it pulls: every site it reads, once.
        if kernel == KernelName::Step {
            parallel::for_chunks(&mut vals, NVEL, |_, f| {
                let c = collide_site(b, f);
                f.copy_from_slice(&c);
            });
        }
        let mut next = vec![0.0; to.len() * NVEL];
        parallel::for_chunks(&mut next, NVEL, |i, out| {
            let at = |t: usize| {
                let k = from.binary_search(&t).expect("a site of the cone");
                &vals[k * NVEL..(k + 1) * NVEL]
            };
            let s = to[i / NVEL];
            let f: [f64; NVEL] = match pulls {
                true => std::array::from_fn(|q| at(b.upwind(s, q))[q]),
                false => std::array::from_fn(|q| at(s)[q]),
            };
            match kernel {
                KernelName::Fused | KernelName::Collide => {
                    out.copy_from_slice(&collide_site(b, &f))
                }
                _ => out.copy_from_slice(&f),
            }
        });
        (from, vals) = (to, next);
    }
    vals
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
            let sample = Sample::new(&setup.start, *kernel, 1);
            assert!(sample.sites.len() <= 216 && sample.sites.contains(&215));
            agrees(&sample, &whole, kernel);
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

    /// The sample's reference is the whole reference's at its sites.
    fn agrees(sample: &Sample, whole: &[f64], kernel: &KernelName) {
        for (k, &s) in sample.sites.iter().enumerate() {
            let want = &whole[s * NVEL..(s + 1) * NVEL];
            assert_eq!(
                &sample.want[k * NVEL..(k + 1) * NVEL],
                want,
                "{kernel} at {s}"
            );
        }
    }

    #[test]
    fn a_multi_step_sample_follows_its_cubes_cones_back_to_the_start() {
        // 20 > 2 x 16: the first cube wraps the corner, and at 4 steps its
        // cone does not yet cover the lattice.
        let mut params = crate::apps::lbm::tests::params(KernelName::Fused, 20, 4, Init::Random);
        for kernel in KernelName::ALL {
            params.kernel = *kernel;
            let setup = Setup::new(&params, Precision::F64);
            let sample = Sample::new(&setup.start, *kernel, 4);
            assert!(sample.sites.contains(&0) && sample.sites.contains(&7999));
            assert!(sample.describe(8000).contains("4-step cone"));
            agrees(&sample, &setup.expected(), kernel);
        }
    }

    #[test]
    fn longer_runs_sample_fewer_cubes_up_to_a_bound() {
        assert_eq!(blocks(2), Some(SAMPLE_SITES / BLOCK.pow(3)));
        let max = max_sampled_steps();
        assert!(blocks(max).is_some() && blocks(max + 1).is_none());
        assert!(blocks(10) >= blocks(max) && max >= 50, "{max}");
    }
}
