// BerkeleyGW GPP (General Plasmon Pole) self-energy kernel, noflagOCC form:
//   achtemp[iw] = sum_{n1, my_igp, ig} delw(iw, my_igp, ig) * I_eps[my_igp, ig] * sch_store1[n1, my_igp]
// with delw = 1 / (wx[iw] - wtilde[my_igp, ig]) and
//   sch_store1 = conj(aqsm[n1, igp]) * aqsn[n1, igp] * 0.5 * vcoul[igp] * wtilde[my_igp, igp].
// Pass 1: one team of LANES invocations per (n1, my_igp); its invocations
// stride over ig, so consecutive invocations read consecutive complex
// elements (coalesced). A workgroup holds SHARE teams, one for each of SHARE
// consecutive bands of one my_igp: they read the same I_eps/wtilde elements
// at about the same time, so the L1 cache serves all but the first. The
// three frequencies live in three register accumulators (the iw loop is
// unrolled), and everything that depends only on (n1, my_igp) is computed
// once outside the ig loop: sch_store1 before it, and its products with the
// sums of I_eps * delw after it. Each team writes one partial sum per iw.
// Pass 2 (`finish`): one workgroup adds the partials in a fixed order.
// Every sum has a fixed order, so the result is bit-identical run to run.
// Arrays larger than one storage binding are bound a chunk of rows at a
// time: one pass-1 dispatch per (bands chunk, ngpown chunk), each seeing
// aqsm/aqsn from row n1_base and I_eps/wtilde from row igp_base.
struct Dims {
    bands: u32,
    ngpown: u32,
    ncouls: u32,
    groups: u32,
    n1_base: u32,
    igp_base: u32,
    // Bands of this dispatch's chunk: a workgroup's last teams may lie past them.
    n1_count: u32,
    pad: u32,
}

// Invocations of one team, the ig stride.
const LANES: u32 = WG / SHARE;

// Complex arrays are interleaved (re, im) reals, row-major; the two read
// every plane wave are bound as ComplexStore, one load per element.
@group(0) @binding(0) var<storage, read> aqsm: array<RealStore>;
@group(0) @binding(1) var<storage, read> aqsn: array<RealStore>;
@group(0) @binding(2) var<storage, read> i_eps: array<ComplexStore>;
@group(0) @binding(3) var<storage, read> wtilde: array<ComplexStore>;
// vcoul[0..ncouls] followed by wx[0..3]: one binding fewer, so the kernel
// stays within the default limit of 8 storage buffers per stage.
@group(0) @binding(4) var<storage, read> vcoul_wx: array<RealStore>;
@group(0) @binding(5) var<uniform> dims: Dims;
// Binding 6, the partial sums (six reals, three complex sums, each), binding
// 7, achtemp[0..3] as six reals, and how partials are stored and loaded come
// from the reduction's include: one partial per pass-1 workgroup
// (partials.wgsl) or f32 atomic adds into a fixed number of slots
// (atomic.wgsl).
@group(0) @binding(7) var<storage, read_write> achtemp: array<RealStore>;

// Three reals, one per frequency: the frequencies wx_i, the reciprocals 1 / d_i.
struct Real3 {
    v0: Real,
    v1: Real,
    v2: Real,
}

// The three frequency accumulators, kept as named fields (not an indexed
// array) so they stay in registers.
struct Acc3 {
    a0: Complex,
    a1: Complex,
    a2: Complex,
}

// The three reciprocals 1 / d_i. Where the prelude says a reciprocal costs
// more than five products (f32, f64: a division is a ~10-instruction
// sequence on GPUs), they share one: with P = 1 / (d0 d1 d2), 1/d2 = d0 d1 P
// and 1/d0, 1/d1 follow from d2 P = 1 / (d0 d1). The products stay in range:
// d_i is a squared distance between frequencies of order 1-100 Ry.
fn gpp_recips(d0: Real, d1: Real, d2: Real) -> Real3 {
    if (R_BATCH_RECIP) {
        let d01 = r_mul(d0, d1);
        let p = r_recip(r_mul(d01, d2));
        let q = r_mul(d2, p);
        return Real3(r_mul(d1, q), r_mul(d0, q), r_mul(d01, p));
    }
    return Real3(r_recip_raw(d0), r_recip_raw(d1), r_recip_raw(d2));
}

// acc_i += t / (wx_i - wt) for the three frequencies. With r_i = wx_i - wt.re,
// t / wdiff_i = (r_i + i wt.im) t / d_i where d_i = |wdiff_i|^2, and the
// i wt.im t part is the same for all three, so each frequency costs four
// fused multiply-adds.
//
// In df64 every value is a multiplicand or addend of the next product, so
// nothing is renormalised (the `_raw` forms, three operations each fewer;
// the accumulators every UNROLL terms), and r_i is a sloppy difference, also
// raw, whose absolute error is what wx_i and wt.re already carry in their
// last bits.
// An exact emulation of this arithmetic gives the same per-term error as
// the fully normalised form (worst ~7 u^2 of the uncancelled magnitude).
fn gpp_add_terms(acc: ptr<function, Acc3>, wx: Real3, wt: Complex, t: Complex) {
    let im2 = r_mul_raw(wt.im, wt.im);
    let r0 = r_sub_sloppy_raw(wx.v0, wt.re);
    let r1 = r_sub_sloppy_raw(wx.v1, wt.re);
    let r2 = r_sub_sloppy_raw(wx.v2, wt.re);
    let inv = gpp_recips(r_sq_add_raw(r0, im2), r_sq_add_raw(r1, im2), r_sq_add_raw(r2, im2));
    let it = Complex(r_neg(r_mul_raw(wt.im, t.im)), r_mul_raw(wt.im, t.re));
    (*acc).a0 = gpp_term(r0, inv.v0, t, it, (*acc).a0);
    (*acc).a1 = gpp_term(r1, inv.v1, t, it, (*acc).a1);
    (*acc).a2 = gpp_term(r2, inv.v2, t, it, (*acc).a2);
}

// acc + (r t + it) inv.
fn gpp_term(r: Real, inv: Real, t: Complex, it: Complex, acc: Complex) -> Complex {
    return Complex(
        r_fma_raw(r_fma_raw(r, t.re, it.re), inv, acc.re),
        r_fma_raw(r_fma_raw(r, t.im, it.im), inv, acc.im),
    );
}

// The terms of plane wave k (its index in I_eps and wtilde). sch_store1 is
// the same for every plane wave of the pair, so the sums are of I_eps * delw
// and gpp_accumulate multiplies them by it once: four operations fewer per
// plane wave than forming I_eps * sch_store1 here.
fn gpp_step(acc: ptr<function, Acc3>, k: u32, wx: Real3) {
    gpp_add_terms(acc, wx, c_unpack(wtilde[k]), c_unpack(i_eps[k]));
}

fn acc3_norm(a: Acc3) -> Acc3 {
    return Acc3(
        Complex(r_norm(a.a0.re), r_norm(a.a0.im)),
        Complex(r_norm(a.a1.re), r_norm(a.a1.im)),
        Complex(r_norm(a.a2.re), r_norm(a.a2.im)),
    );
}

// Plane waves row + ig, row + ig + LANES, ... up to m added to acc in one
// chain. UNROLL (injected) plane waves per loop step, written out by the
// host (gpp_block): their loads are issued together, and df64 renormalises
// its raw accumulators once a step. Their low words grow by a few ulps per
// term; an exact emulation of the df64 arithmetic on the published inputs
// gives 6.7e-14 for 4 or 8 terms a step (6.2e-14 renormalising every term,
// 1.8e-13 never); the H200 measured 6.74e-14 at 5.
fn gpp_chain(acc: ptr<function, Acc3>, first: u32, row: u32, m: u32, wx: Real3) {
    var ig = first;
    for (; ig + (UNROLL - 1u) * LANES < m; ig += UNROLL * LANES) {
        gpp_block(acc, row + ig, wx);
        *acc = acc3_norm(*acc);
    }
    for (; ig < m; ig += LANES) {
        gpp_step(acc, row + ig, wx);
        *acc = acc3_norm(*acc);
    }
}

// Steps of UNROLL plane waves in one block of a blocked chain.
const BLOCK_STEPS: u32 = 32u;

// This invocation's share (ig = lane, lane + LANES, ...) of the sums for
// one (n1, my_igp): ceil(M / LANES) terms. A sum's rounding grows with its
// length, and at the default size a team of 16 makes it 2048 terms (128 at
// share 1), where df64 came to 69% of its tolerance on the published inputs
// (H100). BLOCKED (injected; the host sets it above a length per precision)
// sums blocks of BLOCK_STEPS steps apart and then adds the blocks. It is
// not always on: on the H100 its loop shape made f64 42% slower at wg 256
// and share 16 (1% at wg 512), though f32 20% faster (docs/notebook/benchmarks.md,
// 2026-11-26 (e)).
fn gpp_accumulate(n1: u32, my_igp: u32, lane: u32) -> Acc3 {
    let m = dims.ncouls;
    // indinv[inv_igp_index[my_igp]] of the reference: (my_igp + 1) * ncouls / ngpown,
    // whose last value ncouls maps to ncouls - 1.
    let igp = min(((my_igp + 1u) * m) / dims.ngpown, m - 1u);
    let row = (my_igp - dims.igp_base) * m;
    let b = 2u * ((n1 - dims.n1_base) * m + igp);
    let w = row + igp;
    let pair = c_mul(c_conj(c_load(aqsm[b], aqsm[b + 1u])), c_load(aqsn[b], aqsn[b + 1u]));
    let scale = r_mul(r_from_f32(0.5), r_load(vcoul_wx[igp]));
    let sch_store1 = c_mul(c_scale(pair, scale), c_unpack(wtilde[w]));
    let wx = Real3(r_load(vcoul_wx[m]), r_load(vcoul_wx[m + 1u]), r_load(vcoul_wx[m + 2u]));
    var acc = Acc3(c_zero(), c_zero(), c_zero());
    var ig = lane;
    if (BLOCKED) {
        // Whole blocks of BLOCK_STEPS steps, each summed on its own, then
        // the rest as one chain. The block's loop has a fixed trip count:
        // gpp_chain over each block's range instead (one loop form for
        // both) made df64 1.3% and f32's tree 1.5% slower on the H100
        // (docs/notebook/benchmarks.md, 2026-11-26 (f), call 10).
        var total = Acc3(c_zero(), c_zero(), c_zero());
        for (; ig + (BLOCK_STEPS * UNROLL - 1u) * LANES < m; ) {
            var blk = Acc3(c_zero(), c_zero(), c_zero());
            for (var s = 0u; s < BLOCK_STEPS; s++) {
                gpp_block(&blk, row + ig, wx);
                blk = acc3_norm(blk);
                ig += UNROLL * LANES;
            }
            total = acc3_add(total, blk);
        }
        gpp_chain(&acc, ig, row, m, wx);
        acc = acc3_add(total, acc);
    } else {
        gpp_chain(&acc, ig, row, m, wx);
    }
    return Acc3(c_mul(acc.a0, sch_store1), c_mul(acc.a1, sch_store1), c_mul(acc.a2, sch_store1));
}

// The (n1, my_igp) pair of team `team` of a pass-1 workgroup. XN (bands
// outer, igp inner) puts my_igp on x, so consecutive workgroups read
// different I_eps/wtilde rows; NX puts the bands on x, so consecutive
// workgroups share one row in cache.
fn gpp_pair(wid: vec3<u32>, team: u32) -> vec2<u32> {
    let base = vec2<u32>(dims.n1_base, dims.igp_base);
    if (XN) {
        return base + vec2<u32>(wid.y * SHARE + team, wid.x);
    }
    return base + vec2<u32>(wid.x * SHARE + team, wid.y);
}

// Whether band n1 (a team's) lies in this dispatch's chunk. RAGGED
// (injected) says whether any chunk's band count is not a multiple of
// SHARE; without it every team has a band and the test is compiled out (a
// branch around the loop cost 3% on an H100).
fn gpp_has_band(n1: u32) -> bool {
    return !RAGGED || n1 - dims.n1_base < dims.n1_count;
}

// A team's sums, zero for a team past the chunk's last band (which must
// still meet its workgroup's barriers).
fn gpp_team_sums(p: vec2<u32>, lane: u32) -> Acc3 {
    if (gpp_has_band(p.x)) {
        return gpp_accumulate(p.x, p.y, lane);
    }
    return Acc3(c_zero(), c_zero(), c_zero());
}


var<workgroup> red: array<Complex, WG>;

// Tree sum over teams of `team` invocations (a power of two dividing WG);
// every invocation gets its team's total.
fn tree_sum(v: Complex, lid: u32, team: u32) -> Complex {
    red[lid] = v;
    let lane = lid % team;
    for (var half = team / 2u; half > 0u; half >>= 1u) {
        workgroupBarrier();
        if (lane < half) {
            red[lid] = c_add(red[lid], red[lid + half]);
        }
    }
    workgroupBarrier();
    let total = red[lid - lane];
    // The next call overwrites `red`: everyone must have read the total first.
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let lane = lid % LANES;
    let p = gpp_pair(wid, lid / LANES);
    let acc = gpp_team_sums(p, lane);
    let s = Acc3(tree_sum(acc.a0, lid, LANES), tree_sum(acc.a1, lid, LANES), tree_sum(acc.a2, lid, LANES));
    if (lane == 0u && gpp_has_band(p.x)) {
        gpp_store_partial(p.x * dims.ngpown + p.y, s);
    }
}

fn acc3_add(x: Acc3, y: Acc3) -> Acc3 {
    return Acc3(c_add(x.a0, y.a0), c_add(x.a1, y.a1), c_add(x.a2, y.a2));
}


// Partials one invocation of pass 2 adds in one chain before folding them
// into its total. One chain over all of them (3276 at the default size)
// lets the roundings grow with its length: df64 came within 4% of its 1e-12
// tolerance on the published inputs. Chains of 64 keep every chain short
// (an exact emulation of the df64 arithmetic gives 6e-14 there).
const FINISH_BLOCK: u32 = 64u;

// Pass 2: a single workgroup; invocation lid adds partials lid, lid + WG, ...
// in order, FINISH_BLOCK at a time, then the tree adds the invocations' sums.
@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32) {
    var a = Acc3(c_zero(), c_zero(), c_zero());
    let groups = partial_count();
    for (var start = lid; start < groups; start += WG * FINISH_BLOCK) {
        let end = min(groups, start + WG * FINISH_BLOCK);
        var block = Acc3(c_zero(), c_zero(), c_zero());
        for (var g = start; g < end; g += WG) {
            block = acc3_add(block, load_partial(g));
        }
        a = acc3_add(a, block);
    }
    let s0 = tree_sum(a.a0, lid, WG);
    let s1 = tree_sum(a.a1, lid, WG);
    let s2 = tree_sum(a.a2, lid, WG);
    if (lid == 0u) {
        achtemp[0] = r_store(s0.re);
        achtemp[1] = r_store(s0.im);
        achtemp[2] = r_store(s1.re);
        achtemp[3] = r_store(s1.im);
        achtemp[4] = r_store(s2.re);
        achtemp[5] = r_store(s2.im);
    }
}
