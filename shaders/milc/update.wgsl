// CG's closing vector update of an iteration in one pass, once beta is
// known: x += alpha p with the old p, then p = r' + beta p. alpha stays in
// its slot until the next cg_alpha, so x's update can wait for beta and
// share the pass (and the read of p) with p's. In place: each invocation
// reads and writes only its own sites' reals, over the sites of its part
// (axpy.wgsl says which).
const SPINOR: u32 = 24u;


@compute @workgroup_size(WG)
fn update_xp(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let alpha = r_load(scalars[S_ALPHA]);
    let beta = r_load(scalars[S_BETA]);
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) {
            let site = part_site(first + v);
            for (var k = 0u; k < SPINOR; k++) {
                let pk = r_load(p_ld(site, k));
                x_st(site, k, r_store(r_fma(alpha, pk, r_load(x_ld(site, k)))));
                p_st(site, k, r_store(r_fma(beta, pk, r_load(r_ld(site, k)))));
            }
        }
    }
}
