//! gpp's work and traffic model: the FLOPs and device-memory bytes of one
//! run, and the bytes its loads and stores request (its L1 traffic).

use super::{ATOMIC_SLOTS, Dims, FLOPS_PER_ITERATION, FLOPS_PER_PAIR, Params, Reduction};
use crate::app::Model;
use crate::precision::Precision;

/// Work and minimum traffic of one run (see the module docs).
pub fn model(d: Dims, p: Precision) -> Model {
    let (x, n, m) = (d.bands as f64, d.ngpown as f64, d.ncouls as f64);
    let rb = p.real_bytes() as f64;
    Model {
        flops: x * n * (FLOPS_PER_ITERATION as f64 * m + FLOPS_PER_PAIR as f64),
        bytes: ((2.0 * x * n + 2.0 * n * m) * 2.0 + n + 3.0 + 6.0) * rb,
    }
}

/// Reals every invocation of a pair's team loads before its chain, as
/// `gpp_accumulate` in `shaders/gpp/gpp.wgsl` reads them (each invocation
/// forms `sch_store1` and the frequencies itself): aqsm and aqsn at
/// `(n1, igp)` (a complex each), `vcoul[igp]`, `wtilde[my_igp, igp]` (a
/// complex) and the three `wx`.
const REALS_PER_INVOCATION: u64 = 2 + 2 + 1 + 2 + 3;

/// Reals of one partial sum: three complex sums.
const PARTIAL_REALS: u64 = 6;

/// Bytes one run's loads and stores request, every access counted, as
/// `shaders/gpp` issues them (the L1 level's traffic):
///
/// - pass 1, per `(n1, my_igp)` pair (X N of them, every chunk together):
///   `I_eps` and `wtilde` of each of the M plane waves once over the team
///   (4 reals a plane wave: its lanes stride over them), the
///   [`REALS_PER_INVOCATION`] of each of its `wg / share` invocations, and
///   one partial sum stored (6 reals; with `reduction=atomic`, 6 atomic
///   adds, each counted as one access of a real);
/// - pass 2: the partial sums loaded once (X N of them, or with `atomic`
///   the min(X N, [`ATOMIC_SLOTS`]) slots) and `achtemp` stored (6 reals).
///
/// So `X N (4 M + 10 wg / share + 6) + 6 P + 6` reals. The `dims` uniform
/// is not counted, nor is workgroup memory (the tree's `red`: it is not
/// storage traffic), nor the host's clear of the atomic slots (a copy-engine
/// fill before the passes, not a kernel access). Teams past a chunk's last
/// band load nothing. Unroll, order, blocking and chunking change when and
/// where the loads are issued, not how many.
///
/// Never below the model's device-memory bytes: every pair's team reads
/// its `my_igp` rows of `I_eps` and `wtilde` whole (X times the model's
/// `2 N M` complex) and each invocation the pair's `aqsm`, `aqsn` and
/// `vcoul` elements the model counts once. The re-read rows dominate from
/// a few bands on (17.6 times the model's bytes at the small preset).
pub(super) fn issued_bytes(params: &Params) -> f64 {
    let d = params.dims;
    let pairs = d.bands * d.ngpown;
    let lanes = u64::from(params.wg / params.share);
    let pass1 = pairs * (4 * d.ncouls + REALS_PER_INVOCATION * lanes + PARTIAL_REALS);
    let partials = match params.reduction {
        Reduction::Atomic => pairs.min(u64::from(ATOMIC_SLOTS)),
        Reduction::Tree | Reduction::Subgroup => pairs,
    };
    let pass2 = PARTIAL_REALS * partials + PARTIAL_REALS;
    ((pass1 + pass2) * params.precision.real_bytes()) as f64
}
