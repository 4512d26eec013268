// force_cell takes its hits two a step, their pair terms side by side (a
// lone last hit pairs with itself, its copy weighted 0): the form for f64,
// with the exact candidate test (comd/hits_four.wgsl: every hit is inside
// the cutoff). An f64 pair term is a long chain of dependent operations
// (a reciprocal, then powers); two independent chains let the scheduler
// overlap their latencies. On the H100 at 2,048,000 atoms, wg 128, with a
// stage of 192 atoms f64's force took 2.000 -> 1.952 ms; at the old default
// of 128 it lost 4.6% (docs/notebook/benchmarks.md 2026-11-26 g).

// Takes the lowest two hits of `hits` (bit b: staged atom m0 + b * parts).
fn take_hits(acc: ptr<function, Acc>, lj: Lj, ri: array<Real, 3>, hits: ptr<function, u32>, m0: u32, parts: u32) {
    let b0 = firstTrailingBit(*hits);
    *hits &= *hits - 1u;
    let two = *hits != 0u;
    let b1 = select(b0, firstTrailingBit(*hits), two);
    *hits &= *hits - 1u;
    let d0 = offset(ri, staged_pos(m0 + b0 * parts));
    let d1 = offset(ri, staged_pos(m0 + b1 * parts));
    // One reciprocal for both: with p = 1 / (q0 q1), 1 / q0 = q1 p and
    // 1 / q1 = q0 p (squared distances of 1-34 A^2, so the product stays
    // in range); three products cost less than an f64 division (on the
    // H200 the force 0.6% faster at wg 128, 1.8% at 256; docs/notebook/benchmarks.md
    // 2026-11-26 g).
    let q0 = dist2(d0);
    let q1 = dist2(d1);
    let p = r_recip(r_mul(q0, q1));
    let t0 = pair_term(lj, r_mul(q1, p));
    let t1 = pair_term(lj, r_mul(q0, p));
    add_term(acc, t0, d0, 1u);
    add_term(acc, PairTerm(select(r_zero(), t1.s, two), t1.s6, select(r_zero(), t1.g, two)), d1, select(0u, 1u, two));
}
