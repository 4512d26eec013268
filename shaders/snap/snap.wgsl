// TestSNAP's force: compute_U, compute_Y, compute_dU, compute_dE and the
// force gather. The host injects
//   WG                 workgroup size
//   TWOJ, NY           2J and the half elements of a U-like array (rows 2 mb <= j)
//   NU                 the full elements of the total U (every row)
//   YTILE_ATOMS        atoms of one compute_Y workgroup in reorder and fused
//   USUM_ATOMS, USUM_WG atoms and invocations of one u_walks or u_sums_staged workgroup
//   ROWS_WG, SUMS_WG   width of u_walks' and u_sums_staged's workgroup arrays (see `rows`)
//   NYP                compute_Y's element slots in reorder: (ma, ma + 1) pairs of a row
//   NNBR               neighbours per atom
//   BATCH, NPB         atoms and pairs of one batch (the scratch arrays hold one batch)
//   NLOCAL, NTOTAL     atoms owning neighbour lists, atoms receiving forces
//   OFF_*              offsets of the tables in `tab` and `inp`
//   COLMAJOR           atom (pair) index fastest in every scratch array
//   REORDER            atom (pair) index fastest among the invocations of a 2-D loop
//   Y_PAD_ZERO         see y_pair (f32 and f64)
//   DE_REMAKE_U, U_WALK_FLAT  see walk.wgsl (f64; f32 and f64)
// Every U-like array but the total U keeps rows 2 mb <= j of each layer; the
// others follow from u[j-mb][j-ma] = (-1)^(ma+mb) conj(u[mb][ma]). The total
// U is stored whole, so compute_Y's inner loop reads it with no mirroring.

// Reals: rootpq, Clebsch-Gordan, Y term betas, element weights, then 8 per pair:
// x, y, z, r, z0, dz0/dr, sfac, dsfac/dr (the host evaluates the trigonometry).
@group(0) @binding(0) var<storage, read> inp: array<RealStore>;
// u32: layer starts, Y term ranges, terms (4 words each), element (j, mb, ma),
// compute_Y's element slots, then the reverse neighbour lists for the gather.
@group(0) @binding(1) var<storage, read> tab: array<u32>;
// The U-like scratch arrays hold complex numbers as (re, im) pairs, bound
// as vectors so each moves in one load or store instead of two (the same
// change made MILC's one-pass operator 12% faster in f32 on the H100).
@group(0) @binding(2) var<storage, read_write> ulist: array<ComplexStore>;
@group(0) @binding(3) var<storage, read_write> dulist: array<ComplexStore>;
@group(0) @binding(4) var<storage, read_write> utot: array<ComplexStore>;
@group(0) @binding(5) var<storage, read_write> ylist: array<ComplexStore>;
@group(0) @binding(6) var<storage, read_write> fij: array<RealStore>;
@group(0) @binding(7) var<storage, read_write> force: array<RealStore>;
// x: first atom of the batch, y: atoms in it.
@group(0) @binding(8) var<uniform> batch: vec4<u32>;

// Complex index of element e of item p (n items of ne elements).
fn cix(p: u32, e: u32, n: u32, ne: u32) -> u32 {
    if (COLMAJOR) { return e * n + p; }
    return p * ne + e;
}

fn ld_u(p: u32, e: u32) -> Complex { return c_unpack(ulist[cix(p, e, NPB, NY)]); }
fn st_u(p: u32, e: u32, v: Complex) { ulist[cix(p, e, NPB, NY)] = c_pack(v); }
fn ld_du(p: u32, k: u32, e: u32) -> Complex { return c_unpack(dulist[cix(p, k * NY + e, NPB, 3u * NY)]); }
fn st_du(p: u32, k: u32, e: u32, v: Complex) { dulist[cix(p, k * NY + e, NPB, 3u * NY)] = c_pack(v); }
fn ld_ut(a: u32, f: u32) -> Complex { return c_unpack(utot[cix(a, f, BATCH, NU)]); }
fn ld_y(a: u32, e: u32) -> Complex { return c_unpack(ylist[cix(a, e, BATCH, NY)]); }

fn coef(i: u32) -> Real { return r_load(inp[i]); }
fn rootpq(p: u32, q: u32) -> Real { return coef(p * (TWOJ + 1u) + q); }
fn geo(gp: u32, i: u32) -> Real { return r_load(inp[OFF_GEO + gp * 8u + i]); }

// Row mb of layer j of a half-stored array, resolved once for a run along
// ma: a stored row, or the mirror of row j - mb walked backwards.
struct Row { base: u32, mirrored: bool, parity: u32 }

fn row(j: u32, mb: u32) -> Row {
    if (2u * mb <= j) { return Row(tab[j] + mb * (j + 1u), false, 0u); }
    return Row(tab[j] + (j - mb) * (j + 1u) + j, true, mb & 1u);
}

fn at(r: Row, ma: u32) -> u32 {
    if (r.mirrored) { return r.base - ma; }
    return r.base + ma;
}

// A mirrored element is (-1)^(mb+ma) times the conjugate of the stored one.
fn unmirror(v: Complex, r: Row, ma: u32) -> Complex {
    if (!r.mirrored) { return v; }
    if (((r.parity + ma) & 1u) == 0u) { return c_conj(v); }
    return c_neg(c_conj(v));
}

fn row_u(p: u32, r: Row, ma: u32) -> Complex { return unmirror(ld_u(p, at(r, ma)), r, ma); }
fn row_du(p: u32, k: u32, r: Row, ma: u32) -> Complex { return unmirror(ld_du(p, k, at(r, ma)), r, ma); }

// Full element (j, mb, ma): layers 0..j-1 hold sum (j'+1)^2 = j (j+1) (2j+1) / 6.
fn full(j: u32, mb: u32, ma: u32) -> u32 { return j * (j + 1u) * (2u * j + 1u) / 6u + mb * (j + 1u) + ma; }

// (j, mb, ma) of half element e.
fn elem(e: u32) -> vec3<u32> { let w = tab[OFF_ELEMS + e]; return vec3<u32>(w & 255u, (w >> 8u) & 255u, w >> 16u); }

fn gpair(p: u32) -> u32 { return batch.x * NNBR + p; }

// Cayley-Klein parameters (a, b) of a pair, or their derivatives along k.
struct Ck { a: Complex, b: Complex }

fn r0inv(gp: u32) -> Real {
    let r = geo(gp, 3u);
    let z0 = geo(gp, 4u);
    return r_recip(r_sqrt(r_fma(r, r, r_mul(z0, z0))));
}

fn cayley(gp: u32) -> Ck {
    let s = r0inv(gp);
    return Ck(c_new(r_mul(geo(gp, 4u), s), r_neg(r_mul(geo(gp, 2u), s))),
              c_new(r_mul(geo(gp, 1u), s), r_neg(r_mul(geo(gp, 0u), s))));
}

fn dcayley(gp: u32, k: u32) -> Ck {
    let s = r0inv(gp);
    let r = geo(gp, 3u);
    let z0 = geo(gp, 4u);
    let dz0dr = geo(gp, 5u);
    let uk = r_div(geo(gp, k), r);
    let ds = r_mul(r_neg(r_mul(r_mul(s, s), s)), r_fma(z0, dz0dr, r));
    let dsk = r_mul(ds, uk);
    var da = c_new(r_fma(r_mul(dz0dr, uk), s, r_mul(z0, dsk)), r_neg(r_mul(geo(gp, 2u), dsk)));
    var db = c_new(r_mul(geo(gp, 1u), dsk), r_neg(r_mul(geo(gp, 0u), dsk)));
    if (k == 2u) { da.im = r_sub(da.im, s); }
    if (k == 0u) { db.im = r_sub(db.im, s); }
    if (k == 1u) { db.re = r_add(db.re, s); }
    return Ck(da, db);
}

// compute_U, one neighbour: layer j of U from layer j-1 (VMK 4.8.2),
// u[j][mb][ma] = sqrt((j-ma)/(j-mb)) conj(a) u[j-1][mb][ma]
//              - sqrt(ma/(j-mb)) conj(b) u[j-1][mb][ma-1],
// for the stored rows 2 mb <= j (in storage order).
fn u_pair(p: u32) {
    let ck = cayley(gpair(p));
    let ca = c_conj(ck.a);
    let cb = c_conj(ck.b);
    st_u(p, 0u, c_new(r_one(), r_zero()));
    var e = 1u;
    for (var j = 1u; j <= TWOJ; j++) {
        for (var mb = 0u; 2u * mb <= j; mb++) {
            let prev = row(j - 1u, mb);
            for (var ma = 0u; ma <= j; ma++) {
                var v = c_zero();
                if (ma < j) { v = c_scale(c_mul(ca, row_u(p, prev, ma)), rootpq(j - ma, j - mb)); }
                if (ma > 0u) { v = c_sub(v, c_scale(c_mul(cb, row_u(p, prev, ma - 1u)), rootpq(ma, j - mb))); }
                st_u(p, e, v);
                e++;
            }
        }
    }
}

// compute_U, the total: the self term plus the neighbours' U with the
// switching function.
fn u_sum(a: u32, e: u32) {
    var s = c_zero();
    for (var n = 0u; n < NNBR; n++) {
        let p = a * NNBR + n;
        s = c_add(s, c_scale(ld_u(p, e), geo(gpair(p), 6u)));
    }
    st_utot(a, e, s);
}

// Total U element e of atom a from the neighbours' sum: the self term added,
// stored with its mirror (a middle row's mirror is another stored element
// of the same row, written by its own invocation).
fn st_utot(a: u32, e: u32, sum: Complex) {
    let m = elem(e);
    var s = sum;
    if (m.y == m.z) { s.re = r_add(s.re, r_one()); }
    utot[cix(a, full(m.x, m.y, m.z), BATCH, NU)] = c_pack(s);
    if (2u * m.y < m.x) {
        var mirror = c_conj(s);
        if (((m.y + m.z) & 1u) == 1u) { mirror = c_neg(mirror); }
        utot[cix(a, full(m.x, m.x - m.y, m.x - m.z), BATCH, NU)] = c_pack(mirror);
    }
}

// compute_Y, the beta-weighted Clebsch-Gordan products of U, of elements
// (j, mb, ma) and (j, mb, ma + 1) together (`two`, reorder and fused), or of
// (j, mb, ma) alone. Both have the same terms and mb ranges; in a
// term's inner sum ma1 + ma2 = ma + c for the first and ma + 1 + c for the
// second, so one walk over ma1 serves both: the first's ma2 is the second's
// ma2 - 1, and each step loads one u1 and one u2 for two products. Where
// Y_PAD_ZERO the step has no branch: a u2 outside its row is read at a
// clamped place and zeroed by a select, and its product taken anyway (its
// Clebsch-Gordan index, one outside the term's block, still reads a real).
// On the H100 that made compute_Y 6% faster in f64 and 5-10% in f32, and
// 4-10% slower in df64, whose select is two (docs/notebook/benchmarks.md), so df64 keeps
// the branches.
fn y_pair(a: u32, e: u32, two: bool) {
    let j = i32(elem(e).x);
    let ma = i32(elem(e).z);
    var ya = c_zero();
    var yb = c_zero();
    for (var t = tab[OFF_YSTART + e]; t < tab[OFF_YSTART + e + 1u]; t++) {
        let w0 = tab[OFF_TERMS + 4u * t];
        let cg = i32(OFF_CG + tab[OFF_TERMS + 4u * t + 1u]);
        let wb = tab[OFF_TERMS + 4u * t + 3u];
        let j1 = i32(w0 & 255u);
        let j2 = i32(w0 >> 8u);
        let mb1min = wb & 255u;
        let mb2max = (wb >> 8u) & 255u;
        let nb = wb >> 16u;
        let sum = ma + (j1 + j2 - j) / 2;
        let lo = max(0, sum - j2);
        let hi = min(j1, sum + i32(two));
        var u1 = full(u32(j1), mb1min, 0u);
        var u2 = full(u32(j2), mb2max, 0u);
        var cgb = u32(cg) + mb1min * u32(j2 + 1) + mb2max;
        var za = c_zero();
        var zb = c_zero();
        for (var ib = 0u; ib < nb; ib++) {
            var sa = c_zero();
            var sb = c_zero();
            // u2 at the first's ma2 + 1, the second's ma2.
            var u2b = c_zero();
            if (sum - lo + 1 <= j2) { u2b = ld_ut(a, u2 + u32(sum - lo + 1)); }
            var ci = cg + lo * j2 + sum;
            for (var ma1 = lo; ma1 <= hi; ma1++) {
                let ma2 = sum - ma1;
                let x = ld_ut(a, u1 + u32(ma1));
                var u2a = c_zero();
                if (Y_PAD_ZERO) {
                    let l = ld_ut(a, u2 + u32(max(ma2, 0)));
                    u2a = Complex(r_select(r_zero(), l.re, ma2 >= 0), r_select(r_zero(), l.im, ma2 >= 0));
                    sa = c_add(sa, c_scale(c_mul(x, u2a), coef(u32(ci))));
                    if (two) { sb = c_add(sb, c_scale(c_mul(x, u2b), coef(u32(ci + 1)))); }
                } else {
                    if (ma2 >= 0) {
                        u2a = ld_ut(a, u2 + u32(ma2));
                        sa = c_add(sa, c_scale(c_mul(x, u2a), coef(u32(ci))));
                    }
                    if (two && ma2 < j2) { sb = c_add(sb, c_scale(c_mul(x, u2b), coef(u32(ci + 1)))); }
                }
                u2b = u2a;
                ci += j2;
            }
            za = c_add(za, c_scale(sa, coef(cgb)));
            zb = c_add(zb, c_scale(sb, coef(cgb)));
            u1 += u32(j1 + 1);
            u2 -= u32(j2 + 1);
            cgb += u32(j2);
        }
        let beta = coef(OFF_BETA + t);
        ya = c_add(ya, c_scale(za, beta));
        yb = c_add(yb, c_scale(zb, beta));
    }
    ylist[cix(a, e, BATCH, NY)] = c_pack(ya);
    if (two) { ylist[cix(a, e + 1u, BATCH, NY)] = c_pack(yb); }
}

// compute_dU, one neighbour and direction: the recursion of u_pair
// differentiated along k (product rule on both factors), then the switching
// function: dU = dsfac u r_k / r + sfac du.
fn du_pair(p: u32, k: u32) {
    let gp = gpair(p);
    let ck = cayley(gp);
    let dk = dcayley(gp, k);
    let ca = c_conj(ck.a);
    let cb = c_conj(ck.b);
    let cda = c_conj(dk.a);
    let cdb = c_conj(dk.b);
    st_du(p, k, 0u, c_zero());
    var e = 1u;
    for (var j = 1u; j <= TWOJ; j++) {
        for (var mb = 0u; 2u * mb <= j; mb++) {
            let prev = row(j - 1u, mb);
            for (var ma = 0u; ma <= j; ma++) {
                var v = c_zero();
                if (ma < j) {
                    let t = c_fma(ca, row_du(p, k, prev, ma), c_mul(cda, row_u(p, prev, ma)));
                    v = c_scale(t, rootpq(j - ma, j - mb));
                }
                if (ma > 0u) {
                    let t = c_fma(cb, row_du(p, k, prev, ma - 1u), c_mul(cdb, row_u(p, prev, ma - 1u)));
                    v = c_sub(v, c_scale(t, rootpq(ma, j - mb)));
                }
                st_du(p, k, e, v);
                e++;
            }
        }
    }
    let su = r_div(r_mul(geo(gp, 7u), geo(gp, k)), geo(gp, 3u));
    let sf = geo(gp, 6u);
    for (var q = 0u; q < NY; q++) {
        st_du(p, k, q, c_add(c_scale(ld_u(p, q), su), c_scale(ld_du(p, k, q), sf)));
    }
}

// compute_dE, one neighbour and direction: 2 sum of weight Re(dU conj(Y)).
fn de_pair(p: u32, k: u32) {
    let a = p / NNBR;
    var s = r_zero();
    for (var e = 0u; e < NY; e++) {
        let d = ld_du(p, k, e);
        let y = ld_y(a, e);
        s = r_fma(coef(OFF_WEIGHT + e), r_fma(d.re, y.re, r_mul(d.im, y.im)), s);
    }
    fij[3u * gpair(p) + k] = r_store(r_add(s, s));
}

// u_walks' workgroup arrays are ROWS_WG wide and u_sums_staged's SUMS_WG:
// USUM_WG in the module of the kernel that uses them, 1 in every other
// module, since a module's workgroup arrays are reserved for each of its
// kernels (on the H100 y_tiles reported 17 KB it never touches).
//
// The chain walks' current row (shaders/snap/walk.wgsl): one column an
// invocation of a u_walks workgroup in workgroup memory, or a private array.
// The row's elements are ROW_STRIDE apart, one more than the invocations,
// so that sum_row_shared's invocations, each reading another element of
// the same column, fall in different banks (at ROWS_WG apart every one
// of them would read the same bank in f64).
const ROW_STRIDE: u32 = ROWS_WG + 1u;
var<workgroup> rows: array<Complex, (TWOJ + 1u) * ROW_STRIDE>;
var<private> prow: array<Complex, TWOJ + 1u>;

fn get_shared(i: u32, lid: u32) -> Complex { return rows[i * ROW_STRIDE + lid]; }
fn set_shared(i: u32, lid: u32, v: Complex) { rows[i * ROW_STRIDE + lid] = v; }
fn get_private(i: u32, lid: u32) -> Complex { return prow[i]; }
fn set_private(i: u32, lid: u32, v: Complex) { prow[i] = v; }

// The switching function of each u_walks invocation's pair (0 where none).
var<workgroup> usum_sf: array<Real, ROWS_WG>;

// The total U of row j (half elements from e0) of the atoms of a u_walks
// workgroup, once every invocation holds its pair's row j: invocation
// (atom i, neighbour n) adds elements n, n + NNBR, ... of the row over atom
// i's pairs. Called by the whole workgroup; its barriers keep the rows
// until every sum has read them.
fn sum_row_shared(a: u32, j: u32, e0: u32, live: bool, lid: u32) {
    workgroupBarrier();
    let first = lid - lid % NNBR;
    for (var ma = lid % NNBR; ma <= j; ma += NNBR) {
        var s = c_zero();
        for (var n = 0u; n < NNBR; n++) {
            s = c_add(s, c_scale(get_shared(ma, first + n), usum_sf[first + n]));
        }
        if (live) { st_utot(a, e0 + ma, s); }
    }
    workgroupBarrier();
}

// dE's private walk takes no sums (it walks dU, never U alone).
fn sum_row_private(a: u32, j: u32, e0: u32, live: bool, lid: u32) {}

// dE of a walk, weight Re(dU conj(Y)) summed over its elements, where dU
// with the switching function is su U + sf dU: the sums of U's and of dU's
// shares apart, each scaled once at the walk's end (`de_total`), so an
// element costs no scaling of U and dU.
struct DeSums { u: Real, d: Real }

fn de_zero() -> DeSums { return DeSums(r_zero(), r_zero()); }

// Element e's shares, weight Re(U conj(Y)) and weight Re(dU conj(Y)), added to s.
fn de_add(s: DeSums, a: u32, e: u32, u: Complex, du: Complex) -> DeSums {
    let y = ld_y(a, e);
    let w = coef(OFF_WEIGHT + e);
    return DeSums(
        r_fma(w, r_fma(u.re, y.re, r_mul(u.im, y.im)), s.u),
        r_fma(w, r_fma(du.re, y.re, r_mul(du.im, y.im)), s.d),
    );
}

fn de_total(s: DeSums, su: Real, sf: Real) -> Real { return r_fma(su, s.u, r_mul(sf, s.d)); }

// (item, sub-index) of invocation id over n items of m sub-indices.
fn split(id: u32, n: u32, m: u32) -> vec2<u32> {
    if (REORDER) { return vec2<u32>(id % n, id / n); }
    return vec2<u32>(id / m, id % m);
}

// Baseline: one invocation per atom, every loop inside.
@compute @workgroup_size(WG)
fn u_atom(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let a = linear_id(gid, nwg);
    if (a >= batch.y) { return; }
    for (var n = 0u; n < NNBR; n++) { u_pair(a * NNBR + n); }
    for (var e = 0u; e < NY; e++) { u_sum(a, e); }
}

@compute @workgroup_size(WG)
fn y_atom(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let a = linear_id(gid, nwg);
    if (a >= batch.y) { return; }
    for (var e = 0u; e < NY; e++) { y_pair(a, e, false); }
}

@compute @workgroup_size(WG)
fn du_atom(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let a = linear_id(gid, nwg);
    if (a >= batch.y) { return; }
    for (var n = 0u; n < NNBR; n++) {
        for (var k = 0u; k < 3u; k++) { du_pair(a * NNBR + n, k); }
    }
}

@compute @workgroup_size(WG)
fn de_atom(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let a = linear_id(gid, nwg);
    if (a >= batch.y) { return; }
    for (var n = 0u; n < NNBR; n++) {
        for (var k = 0u; k < 3u; k++) { de_pair(a * NNBR + n, k); }
    }
}

// Collapsed: the atom, neighbour and index loops are the dispatch.
@compute @workgroup_size(WG)
fn u_pairs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = linear_id(gid, nwg);
    if (p >= batch.y * NNBR) { return; }
    u_pair(p);
}

// reorder and fused: U of a pair one chain an invocation, and the total U
// of the chain's rows. A workgroup takes USUM_ATOMS atoms' pairs (an
// invocation each, adjacent in memory; about a warp of them, plan.rs) along
// one chain, and adds each row over every atom's pairs as it is made, from
// workgroup memory, so U of every pair is written once and never read back
// for the sums.
@compute @workgroup_size(USUM_WG)
fn u_walks(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = linear_group(wid, nwg);
    let a = (w / NCH) * USUM_ATOMS + lid / NNBR;
    let live = a < batch.y;
    // Past the batch an invocation walks the batch's first pair (finite
    // values, never stored), since the workgroup's barriers need them all.
    let p = select(0u, a * NNBR + lid % NNBR, live);
    var sf = r_zero();
    if (live) { sf = geo(gpair(p), 6u); }
    usum_sf[lid] = sf;
    walk_shared(p, 0u, w % NCH, false, live, lid);
}

@compute @workgroup_size(WG)
fn u_sums(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let q = split(id, BATCH, NY);
    if (id >= BATCH * NY || q.x >= batch.y) { return; }
    u_sum(q.x, q.y);
}

// u_sums in the column-major layouts, where an atom's pairs of one element
// are adjacent: a workgroup takes USUM_ATOMS atoms of one element, each
// invocation reads one pair (the workgroup's reads are one sweep), and one
// invocation an atom adds its pairs up from workgroup memory.
var<workgroup> usum_part: array<Complex, SUMS_WG>;

@compute @workgroup_size(USUM_WG)
fn u_sums_staged(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let blocks = (BATCH + USUM_ATOMS - 1u) / USUM_ATOMS;
    let w = linear_group(wid, nwg);
    let e = w / blocks;
    let a = (w % blocks) * USUM_ATOMS + t / NNBR;
    let n = t % NNBR;
    let live = e < NY && a < batch.y;
    var v = c_zero();
    if (live) {
        let p = a * NNBR + n;
        v = c_scale(ld_u(p, e), geo(gpair(p), 6u));
    }
    usum_part[t] = v;
    workgroupBarrier();
    if (live && n == 0u) {
        var s = c_zero();
        for (var i = 0u; i < NNBR; i++) { s = c_add(s, usum_part[t + i]); }
        st_utot(a, e, s);
    }
}

@compute @workgroup_size(WG)
fn y_elems(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let q = split(id, BATCH, NY);
    if (id >= BATCH * NY || q.x >= batch.y) { return; }
    y_pair(q.x, q.y, false);
}

// reorder: a workgroup takes YTILE_ATOMS atoms by WG / YTILE_ATOMS adjacent
// element slots, whose terms read overlapping rows of the same atoms' U, so
// the workgroup's loads meet in L1.
@compute @workgroup_size(WG)
fn y_tiles(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let groups = (BATCH + YTILE_ATOMS - 1u) / YTILE_ATOMS;
    let w = id / WG;
    let r = id % WG;
    let a = (w % groups) * YTILE_ATOMS + r % YTILE_ATOMS;
    let slot = (w / groups) * (WG / YTILE_ATOMS) + r / YTILE_ATOMS;
    if (a >= batch.y || slot >= NYP) { return; }
    let v = tab[OFF_YPAIRS + slot];
    y_pair(a, v & 0xffffu, v > 0xffffu);
}

@compute @workgroup_size(WG)
fn du_pairs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let q = split(id, NPB, 3u);
    if (id >= NPB * 3u || q.x >= batch.y * NNBR) { return; }
    du_pair(q.x, q.y);
}

@compute @workgroup_size(WG)
fn de_pairs(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let q = split(id, NPB, 3u);
    if (id >= NPB * 3u || q.x >= batch.y * NNBR) { return; }
    de_pair(q.x, q.y);
}

// Chains of a pair and direction (rows 2 mb <= j).
const NCH: u32 = TWOJ / 2u + 1u;

// The chains and directions of 32 pairs run as consecutive groups of 32
// invocations (warps on NVIDIA), side by side, so each pair's U and its
// atom's Y come from memory about once for all of them. Each chain's share
// of dE goes to the real part of a dulist slot (fused stores no dU).
@compute @workgroup_size(WG)
fn de_chains(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let group = id / 32u;
    let p = (group / (3u * NCH)) * 32u + id % 32u;
    let k = group % 3u;
    let own = (group % (3u * NCH)) / 3u;
    if (p >= batch.y * NNBR) { return; }
    dulist[(3u * p + k) * NCH + own] = c_pack(c_new(walk_private(p, k, own, true, true, 0u), r_zero()));
}

// fij of a pair and direction: 2 x the sum of its chains' shares.
@compute @workgroup_size(WG)
fn de_sums(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    if (id >= 3u * batch.y * NNBR) { return; }
    var s = r_zero();
    for (var c = 0u; c < NCH; c++) { s = r_add(s, c_unpack(dulist[id * NCH + c]).re); }
    fij[3u * gpair(id / 3u) + id % 3u] = r_store(r_add(s, s));
}

// f[i] += fij of its own pairs, f[j] -= fij of the pairs naming j (the
// reverse lists), gathered without atomics: one invocation per atom and
// direction (per atom alone, 2000 atoms keep too few warps in flight).
@compute @workgroup_size(WG)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    let t = id / 3u;
    let k = id % 3u;
    if (t >= NTOTAL) { return; }
    var f = r_zero();
    if (t < NLOCAL) {
        for (var n = 0u; n < NNBR; n++) { f = r_add(f, r_load(fij[3u * (t * NNBR + n) + k])); }
    }
    for (var q = tab[OFF_REV + t]; q < tab[OFF_REV + t + 1u]; q++) {
        f = r_sub(f, r_load(fij[3u * tab[OFF_REV + NTOTAL + 1u + q] + k]));
    }
    force[id] = r_store(f);
}
