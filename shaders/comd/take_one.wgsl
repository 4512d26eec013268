// force_cell takes its hits one a step: the form for f32 and df64. On the
// H100 the two-a-step form (comd/take_two.wgsl) made f32's force 4% slower
// at the default stage and df64's 1.3% (docs/notebook/benchmarks.md 2026-11-26 g).

// Takes the lowest hit of `hits` (bit b: staged atom m0 + b * parts).
fn take_hits(acc: ptr<function, Acc>, lj: Lj, ri: array<Real, 3>, hits: ptr<function, u32>, m0: u32, parts: u32) {
    let b = firstTrailingBit(*hits);
    *hits &= *hits - 1u;
    take_hit(acc, lj, offset(ri, staged_pos(m0 + b * parts)));
}
