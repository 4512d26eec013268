// force_cell's candidate test as an f32 filter whose hits are tested again
// exactly before they interact: the form for df64, where a comparison of
// squared distances costs some 20 f32 operations. Every staged atom also
// gets an f32 copy p of its position relative to the corner of the
// workgroup's cell, with |p|^2 beside it (16 bytes a place), and atom i a
// probe (-2 q, c - |q|^2) from its own copy q and the widened cutoff c.
// Then |p - q|^2 < c is |p|^2 - 2 q.p < c - |q|^2: three fmas a
// candidate, where the difference and its square take six operations.
// On the H100 at 2,048,000 atoms df64's force took 8.91 -> 6.17 ms with a
// filter of differences and 5.72 -> 5.50 ms with this one. f64 keeps the
// exact test (2.00 -> 2.35 ms with the first filter, at 56 -> 67
// registers), and so does f32: 1.336 -> 1.883 ms with this one, at 40 ->
// 50 registers and 8.4 KiB of workgroup memory (docs/notebook/benchmarks.md 2026-11-26 g
// and 2026-11-26 i).
//
// Why the filter misses no pair: the 27 cells lie within one cell of the
// corner, a cell is under two cutoffs wide (floor(L / rc) of them a side,
// at least one), so |x| < 4 rc per coordinate, |p|^2 < 48 rc^2 and
// |2 q.p| < 96 rc^2. Rounding the copies to f32 moves a squared distance
// near the cutoff by under 35 rc^2 2^-24. The two squares (three roundings
// each), the widened cutoff, the threshold and the three fmas round eleven
// times, each by half an ulp of at most 144 rc^2, so under 1600 rc^2 2^-24
// more. The filter takes everything within (1 + 2^-COARSE_MARGIN_BITS)
// rc^2 (injected from core/src/apps/comd/mod.rs: 10, so 2^-10 rc^2, over
// 9 times that bound; a unit test there emulates this filter with it); the
// extra shell holds 0.15% of the pairs, each rejected by the exact test.

var<workgroup> coarse: array<vec4<f32>, STAGE + 1u>;

// What the test compares a staged atom with: atom i's (-2 q, c - |q|^2).
alias Probe = vec4<f32>;

fn coarse_of(r: array<Real, 3>, corner: array<Real, 3>) -> vec3<f32> {
    return vec3<f32>(r_to_f32(r_sub(r[0], corner[0])), r_to_f32(r_sub(r[1], corner[1])), r_to_f32(r_sub(r[2], corner[2])));
}

fn norm2(p: vec3<f32>) -> f32 { return fma(p.x, p.x, fma(p.y, p.y, p.z * p.z)); }

fn probe_of(lj: Lj, ri: array<Real, 3>, corner: array<Real, 3>) -> Probe {
    let q = coarse_of(ri, corner);
    let c = r_to_f32(lj.rc2) * (1.0 + 1.0 / f32(1u << COARSE_MARGIN_BITS));
    return vec4<f32>(-2.0 * q, c - norm2(q));
}

// Staged atom m at rj (its image) gets its coarse copy and |p|^2.
fn stage_probe(m: u32, rj: array<Real, 3>, corner: array<Real, 3>) {
    let p = coarse_of(rj, corner);
    coarse[m] = vec4<f32>(p, norm2(p));
}

// 1 where staged place m (clamped to STAGE, so no branch guards the load)
// may lie within the cutoff of atom i (its probe), else 0.
fn staged_hit(lj: Lj, probe: Probe, m: u32) -> u32 {
    let p = coarse[min(m, STAGE)];
    return select(0u, 1u, fma(probe.x, p.x, fma(probe.y, p.y, fma(probe.z, p.z, p.w))) < probe.w);
}

// A hit of the filter may lie just outside the cutoff: tested again.
fn take_hit(acc: ptr<function, Acc>, lj: Lj, d: array<Real, 3>) {
    if (inside(lj, d)) { interact(acc, lj, d); }
}
