//! How comd's force kernels are written for each precision: the per-axis
//! code, the cell mapping's candidate test and hit loop, and what FLOPs
//! each form computes (each shader file says why its form is chosen).

use super::Mapping;
use crate::precision::Precision;

/// comd's per-axis functions for `p`: the same code written as loops or
/// unrolled, because no one form is fast on every driver (each file says
/// why).
pub(super) fn axes_source(p: Precision) -> &'static str {
    match p {
        Precision::F64 => include_str!("../../../../shaders/comd/axes_unrolled.wgsl"),
        Precision::F32 | Precision::Df64 => {
            include_str!("../../../../shaders/comd/axes_loop.wgsl")
        }
    }
}

/// df64's f32 candidate filter takes pairs within (1 + 2^-bits) cutoff^2
/// (shaders/comd/hits_coarse.wgsl says why that misses none; a unit test
/// emulates the filter with this margin).
pub(super) const COARSE_MARGIN_BITS: u32 = 10;

/// How the cell mapping's force tests its candidates and takes its hits,
/// by precision (each file says why).
pub(super) struct CellForm {
    /// The candidate test: exact on the staged positions, or an f32 filter
    /// whose hits are tested again.
    pub(super) test: &'static str,
    /// Hits taken one or two a step.
    pub(super) take: &'static str,
    /// Workgroup bytes the test stages per neighbour atom beside its position.
    pub(super) probe_bytes: u64,
    /// What the test and each hit compute.
    pub(super) flops: PairFlops,
    /// Whether the pair terms leave their energy shifts to be subtracted
    /// once per atom, counted (comd.wgsl's `pair_term` says when it pays).
    pub(super) count_shifts: bool,
}

/// The cell force's form for `p`: the exact test in f32 and f64, the f32
/// filter in df64; hits two a step in f64; shifts counted in df64.
pub(super) fn cell_form(p: Precision) -> CellForm {
    let exact = include_str!("../../../../shaders/comd/hits_four.wgsl");
    let one = include_str!("../../../../shaders/comd/take_one.wgsl");
    match p {
        Precision::F32 => CellForm {
            test: exact,
            take: one,
            probe_bytes: 0,
            flops: EXACT_FLOPS,
            count_shifts: false,
        },
        Precision::F64 => CellForm {
            test: exact,
            take: include_str!("../../../../shaders/comd/take_two.wgsl"),
            probe_bytes: 0,
            flops: EXACT_FLOPS,
            count_shifts: false,
        },
        Precision::Df64 => CellForm {
            test: include_str!("../../../../shaders/comd/hits_coarse.wgsl"),
            take: one,
            probe_bytes: 16,
            flops: FILTER_FLOPS,
            count_shifts: true,
        },
    }
}

/// FLOPs of the force's candidate test and of each pair inside the
/// cutoff, as a form of the kernels computes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PairFlops {
    /// A candidate's test.
    candidate: f64,
    /// A pair inside the cutoff, past its test.
    hit: f64,
}

impl PairFlops {
    /// The FLOPs of `pairs` = (candidates, pairs inside the cutoff).
    pub(super) fn of(&self, pairs: (u64, u64)) -> f64 {
        self.candidate * pairs.0 as f64 + self.hit * pairs.1 as f64
    }
}

/// The exact test: 3 subtractions and the squared distance (5) for every
/// candidate; for a pair inside the cutoff 1 division, the powers (3), the
/// energy (4), the force factor (5) and the accumulations (3 FMAs and 1 for
/// the energy, 8).
const EXACT_FLOPS: PairFlops = PairFlops {
    candidate: 8.0,
    hit: 21.0,
};

/// The f32 filter (shaders/comd/hits_coarse.wgsl): 3 FMAs a candidate;
/// a hit's difference and squared distance again (8) before its term.
const FILTER_FLOPS: PairFlops = PairFlops {
    candidate: 6.0,
    hit: 29.0,
};

/// The pair FLOPs of a case: the cell mapping's form for its precision,
/// else (the atom mapping, the host reference) the exact test.
pub(super) fn pair_flops(mapping: Option<Mapping>, p: Precision) -> PairFlops {
    match mapping {
        Some(Mapping::Cell) => cell_form(p).flops,
        _ => EXACT_FLOPS,
    }
}
