// force_cell's candidate test, four candidates a step with no branch
// between their loads and tests, so that their latencies overlap: the form
// for f32 and f64 (on the H100 12% and 7% faster than one candidate a step
// with a branch, BENCHMARKS.md 2026-11-25 b). In df64 it made lavapipe's
// LLVM take 562 s instead of 449 s to build the cell kernels of the three
// layouts (cold shader cache, one process), so df64 keeps
// comd/hits_one.wgsl.

// 1 where staged atom m lies within the cutoff of atom i at ri and is not
// atom i itself (its place `me`), else 0, also for m past the `staged`
// atoms: the stage is read at a clamped place, so no branch guards the load.
fn staged_hit(lj: Lj, ri: array<Real, 3>, m: u32, staged: u32, me: u32) -> u32 {
    let near = inside(lj, offset(ri, staged_pos(min(m, STAGE - 1u))));
    return select(0u, 1u, near & (m < staged) & (m != me));
}

// Bit b: staged atom m0 + b * parts is a neighbour of atom i (b < 32).
fn staged_hits(lj: Lj, ri: array<Real, 3>, m0: u32, staged: u32, me: u32, parts: u32) -> u32 {
    var hits = 0u;
    for (var b = 0u; b < 32u; b += 4u) {
        let m = m0 + b * parts;
        if (m >= staged) { break; }
        let four = staged_hit(lj, ri, m, staged, me)
            | (staged_hit(lj, ri, m + parts, staged, me) << 1u)
            | (staged_hit(lj, ri, m + 2u * parts, staged, me) << 2u)
            | (staged_hit(lj, ri, m + 3u * parts, staged, me) << 3u);
        hits |= four << b;
    }
    return hits;
}
