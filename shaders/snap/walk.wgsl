// A template the snap module includes twice, ROWS replaced: walk_shared keeps
// the current row in workgroup memory (get_shared, set_shared), walk_private
// in a private array (get_private, set_private). U's walk is the faster with
// the first, dE's with the second (on the H100 in f64, U 25% faster and dE
// 2.3x slower in workgroup memory).
//
// One chain of rows of a pair's U (du false) or of its dU along k and the
// dE they give (du true, variant fused), walked a row at a time: rows of
// equal mb form a chain, row (j, mb) needs row (j-1, mb), and a chain's
// first row (2 mb, mb) the mirror of the previous chain's second row (2 mb -
// 1, mb - 1). The invocation of chain `own` first walks the first two rows
// of each chain before it (the staircase its chain starts from), keeping
// nothing of them; that is about as many elements as the rows it skips, so
// every chain costs about the same. U is stored as it is made (where
// `live`) and each of its rows handed to sum_row_ROWS, which adds it over
// the atom's pairs; dU is never stored (U, for its recursion, is read back),
// each row's dE taken instead. Where DE_REMAKE_U, the U each dE term needs
// is remade from the previous row's two elements the dU recursion has read
// anyway, instead of read: on the H100 f64's dE was 2.5-4.5% faster so, and
// f32's 11-14% slower (docs/notebook/benchmarks.md). Where U_WALK_FLAT, U's walk takes
// both terms at the ends of a row too, the previous row's missing element
// read at a clamped place and zeroed by its factor r(0, q) = 0, so its
// step has no branch: U 6-7% faster at 2J = 14 in f32 and f64 on the H100;
// dE's walk was not (f64 1% slower), nor df64's U at 2J = 8.
fn walk_ROWS(p: u32, k: u32, own: u32, du: bool, live: bool, lid: u32) -> Real {
    let gp = gpair(p);
    let a = p / NNBR;
    let flat = U_WALK_FLAT && !du;
    let ck = cayley(gp);
    let ca = c_conj(ck.a);
    let cb = c_conj(ck.b);
    var cda = c_zero();
    var cdb = c_zero();
    if (du) {
        let dk = dcayley(gp, k);
        cda = c_conj(dk.a);
        cdb = c_conj(dk.b);
    }
    let su = r_div(r_mul(geo(gp, 7u), geo(gp, k)), geo(gp, 3u));
    let sf = geo(gp, 6u);
    // The current row; row (0, 0) is U = 1, dU = 0.
    var first = c_zero();
    if (!du) { first = c_new(r_one(), r_zero()); }
    set_ROWS(0u, lid, first);
    var s = de_zero();
    if (own == 0u) {
        if (du) {
            s = de_add(s, a, 0u, ld_u(p, 0u), first);
        } else {
            if (live) { st_u(p, 0u, first); }
            sum_row_ROWS(a, 0u, 0u, live, lid);
        }
    }
    for (var mb = 0u; mb <= own; mb++) {
        var j = max(2u * mb, 1u);
        // Row (j - 1, mb) from row (j - 1, mb - 1) in place: reversed and
        // conjugated, element ma times (-1)^(mb + ma).
        for (var ma = 0u; ma < mb; ma++) {
            let lo = c_conj(get_ROWS(ma, lid));
            let hi = c_conj(get_ROWS(j - 1u - ma, lid));
            if (((mb + ma) & 1u) == 0u) {
                set_ROWS(ma, lid, hi);
                set_ROWS(j - 1u - ma, lid, c_neg(lo));
            } else {
                set_ROWS(ma, lid, c_neg(hi));
                set_ROWS(j - 1u - ma, lid, lo);
            }
        }
        var last = 2u * mb + 1u;
        if (mb == own) { last = TWOJ; }
        for (; j <= last; j++) {
            let prev = row(j - 1u, mb);
            let e0 = tab[j] + mb * (j + 1u);
            // Downwards, so element ma - 1 is still the previous row's when read.
            var c_hi = c_zero();
            var u_hi = c_zero();
            for (var m = 0u; m <= j; m++) {
                let ma = j - m;
                var c_lo = c_zero();
                var u_lo = c_zero();
                if (flat || ma > 0u) {
                    let lo = max(ma, 1u) - 1u;
                    c_lo = get_ROWS(lo, lid);
                    if (du) { u_lo = row_u(p, prev, lo); }
                }
                let remake = DE_REMAKE_U && du && mb == own;
                var v = c_zero();
                var u = c_zero();
                if (flat || ma < j) {
                    let r = rootpq(j - ma, j - mb);
                    var t = c_mul(ca, c_hi);
                    if (du) { t = c_fma(ca, c_hi, c_mul(cda, u_hi)); }
                    v = c_scale(t, r);
                    if (remake) { u = c_scale(c_mul(ca, u_hi), r); }
                }
                if (flat || ma > 0u) {
                    let r = rootpq(ma, j - mb);
                    var t = c_mul(cb, c_lo);
                    if (du) { t = c_fma(cb, c_lo, c_mul(cdb, u_lo)); }
                    v = c_sub(v, c_scale(t, r));
                    if (remake) { u = c_sub(u, c_scale(c_mul(cb, u_lo), r)); }
                }
                set_ROWS(ma, lid, v);
                if (mb == own) {
                    if (du && !DE_REMAKE_U) { u = ld_u(p, e0 + ma); }
                    if (du) { s = de_add(s, a, e0 + ma, u, v); } else if (live) { st_u(p, e0 + ma, v); }
                }
                c_hi = c_lo;
                u_hi = u_lo;
            }
            if (!du && mb == own) { sum_row_ROWS(a, j, e0, live, lid); }
        }
    }
    return de_total(s, su, sf);
}

