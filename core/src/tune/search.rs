//! The search over a unit's space, as indices into its axes (index 0 of
//! each is the app's default): every point where the space is small,
//! otherwise a local search seeded by the unit (coordinate moves from the
//! defaults, then from random points). Measuring is the caller's
//! `eval`, which also says when the budget is spent; a point is measured
//! once per search. The search is deterministic given what `eval` says,
//! so a stopped tune that replays its recorded measurements continues
//! where it stopped.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;

/// Spaces of at most this many points are searched whole.
pub const EXHAUSTIVE: usize = 32;

/// Local searches after the one from the defaults, each from a random
/// point: a few, since a move along each axis from a good point finds most
/// of what there is, and the budget goes to the next unit.
const RESTARTS: usize = 2;

/// A move must be this much faster (relative) to be taken: timing noise
/// should not walk the search around.
pub const NOISE: f64 = 0.02;

/// What measuring one point gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Eval {
    /// It validated, with this median time (seconds).
    Time(f64),
    /// It cannot run, or did not validate.
    Failed,
    /// The budget is spent: the search stops.
    Stop,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every point searched, or the local searches converged.
    Complete,
    /// The budget ran out first.
    Stopped,
}

/// Searches a space of `dims` values per axis with `eval`, seeded by `seed`.
pub async fn run(dims: &[usize], seed: u64, eval: impl AsyncFnMut(&[usize]) -> Eval) -> Ended {
    let mut s = Searcher {
        eval,
        seen: HashMap::new(),
    };
    let size: usize = dims.iter().product();
    let done = match size <= EXHAUSTIVE {
        true => s.every(dims).await,
        false => s.local(dims, seed).await,
    };
    match done {
        Some(()) => Ended::Complete,
        None => Ended::Stopped,
    }
}

struct Searcher<F> {
    eval: F,
    /// Times so far (`INFINITY`: failed).
    seen: HashMap<Vec<usize>, f64>,
}

impl<F: AsyncFnMut(&[usize]) -> Eval> Searcher<F> {
    /// The time at `point`, measured once; `None` once the budget is spent.
    async fn time(&mut self, point: &[usize]) -> Option<f64> {
        if let Some(t) = self.seen.get(point) {
            return Some(*t);
        }
        let t = match (self.eval)(point).await {
            Eval::Time(t) => t,
            Eval::Failed => f64::INFINITY,
            Eval::Stop => return None,
        };
        self.seen.insert(point.to_vec(), t);
        Some(t)
    }

    /// Every point, the defaults first (mixed radix, the last axis fastest).
    async fn every(&mut self, dims: &[usize]) -> Option<()> {
        let size: usize = dims.iter().product();
        for mut n in 0..size {
            let mut point = vec![0; dims.len()];
            for (i, d) in dims.iter().enumerate().rev() {
                point[i] = n % d;
                n /= d;
            }
            self.time(&point).await?;
        }
        Some(())
    }

    /// Coordinate moves from the defaults until no axis gives a faster
    /// point, then again from [`RESTARTS`] random points not yet measured.
    async fn local(&mut self, dims: &[usize], seed: u64) -> Option<()> {
        let mut rng = Pcg32::seed_from_u64(seed);
        let mut start = vec![0; dims.len()];
        for _ in 0..=RESTARTS {
            self.descend(dims, start).await?;
            let fresh = (0..100)
                .map(|_| dims.iter().map(|&d| rng.random_range(0..d)).collect())
                .find(|p: &Vec<usize>| !self.seen.contains_key(p));
            match fresh {
                Some(p) => start = p,
                None => break,
            }
        }
        Some(())
    }

    /// From `point`, each axis in turn set to its fastest value (by more
    /// than [`NOISE`]), until a pass over the axes moves none.
    async fn descend(&mut self, dims: &[usize], mut point: Vec<usize>) -> Option<()> {
        let mut t = self.time(&point).await?;
        loop {
            let mut moved = false;
            for (axis, &d) in dims.iter().enumerate() {
                let (mut best, mut best_t) = (point[axis], t);
                for v in (0..d).filter(|&v| v != point[axis]) {
                    let mut p = point.clone();
                    p[axis] = v;
                    let tv = self.time(&p).await?;
                    if tv < best_t * (1.0 - NOISE) {
                        (best, best_t) = (v, tv);
                    }
                }
                if best != point[axis] {
                    (point[axis], t) = (best, best_t);
                    moved = true;
                }
            }
            if !moved {
                return Some(());
            }
        }
    }
}

/// A seed for `label` (FNV-1a): the same unit searches the same way on
/// every run and platform.
pub fn seed(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
