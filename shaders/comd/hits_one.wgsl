// force_cell's candidate test, one candidate a step behind a branch: the
// form for df64, whose cell kernels for the three layouts lavapipe's LLVM
// builds in 449 s this way, 562 s with comd/hits_four.wgsl's four a step,
// and 610 s with its branch-free staged_hit one a step (cold shader cache,
// one process; on the H100 df64 is 3% slower this way than with four).

// Bit b: staged atom m0 + b * parts is a neighbour of atom i (b < 32).
fn staged_hits(lj: Lj, ri: array<Real, 3>, m0: u32, staged: u32, me: u32, parts: u32) -> u32 {
    var hits = 0u;
    for (var b = 0u; b < 32u; b++) {
        let m = m0 + b * parts;
        if (m >= staged) { break; }
        if (m != me && inside(lj, offset(ri, staged_pos(m)))) { hits |= 1u << b; }
    }
    return hits;
}
