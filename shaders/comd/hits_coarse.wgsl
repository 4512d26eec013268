// force_cell's candidate test in f32 for df64: a coarse filter whose hits
// are tested again in df64 before they interact. Six in seven candidates
// lie outside the cutoff, and a df64 comparison of squared distances costs
// some 20 f32 operations. Every staged atom also gets an f32 copy of its
// position relative to the corner of the workgroup's cell (16 bytes a
// place). On the H100 at 2,048,000 atoms df64's force took 8.91 -> 6.17 ms
// this way; f64's 2.00 -> 2.35 ms (at 56 -> 67 registers), so f64 keeps
// the exact test (BENCHMARKS.md 2026-11-26 g).
//
// Why the filter misses no pair: the 27 cells lie within one cell of the
// corner, a cell is under two cutoffs wide (floor(L / rc) of them a side,
// at least one), so |x| < 4 rc per coordinate. Rounding x - corner to f32
// errs by at most 2^-24 |x|, a difference of two such by 9 rc 2^-24 near
// the cutoff, and the squared distance by under 35 rc^2 2^-24. The filter
// takes everything within (1 + 2^-COARSE_MARGIN_BITS) rc^2 (injected from
// core/src/apps/comd/mod.rs: 12, so 2^-12 rc^2, over 100 times that bound;
// a unit test there emulates this filter with it); the extra shell holds
// 0.04% of the pairs, each rejected by the exact test.

var<workgroup> coarse: array<vec3<f32>, STAGE + 1u>;

// What the test compares a staged atom with: atom i's coarse position.
alias Probe = vec3<f32>;

fn coarse_of(r: array<Real, 3>, corner: array<Real, 3>) -> vec3<f32> {
    return vec3<f32>(r_to_f32(r_sub(r[0], corner[0])), r_to_f32(r_sub(r[1], corner[1])), r_to_f32(r_sub(r[2], corner[2])));
}

fn probe_of(ri: array<Real, 3>, corner: array<Real, 3>) -> Probe { return coarse_of(ri, corner); }

// Staged atom m at rj (its image) gets its coarse copy.
fn stage_probe(m: u32, rj: array<Real, 3>, corner: array<Real, 3>) { coarse[m] = coarse_of(rj, corner); }

// 1 where staged place m (clamped to STAGE, so no branch guards the load)
// may lie within the cutoff of atom i (its probe), else 0.
fn staged_hit(lj: Lj, probe: Probe, m: u32) -> u32 {
    let d = coarse[min(m, STAGE)] - probe;
    return select(0u, 1u, dot(d, d) < r_to_f32(lj.rc2) * (1.0 + 1.0 / f32(1u << COARSE_MARGIN_BITS)));
}

// A hit of the filter may lie just outside the cutoff: tested again.
fn take_hit(acc: ptr<function, Acc>, lj: Lj, d: array<Real, 3>) {
    if (inside(lj, d)) { interact(acc, lj, d); }
}
