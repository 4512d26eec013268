// force_cell's candidate test, one candidate a step: the form for df64,
// whose kernels lavapipe's LLVM builds in 20% less time than with
// comd/hits_four.wgsl's four a step (on the H100 df64 is 3% slower so).

// Bit b: staged atom m0 + b * parts is a neighbour of atom i (b < 32).
fn staged_hits(lj: Lj, ri: array<Real, 3>, m0: u32, staged: u32, me: u32, parts: u32) -> u32 {
    var hits = 0u;
    for (var b = 0u; b < 32u; b++) {
        let m = m0 + b * parts;
        if (m >= staged) { break; }
        if (m != me && inside(lj, offset(ri, stage_pos[m]))) { hits |= 1u << b; }
    }
    return hits;
}
