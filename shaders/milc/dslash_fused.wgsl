// The whole of D in one kernel, a variant beside MILC's split: each site
// reads its 8 neighbours' spinors and its 8 links, and the projections,
// link products and reconstructions stay in registers, so none of the
// split's half-spinor fields go through memory (360 reals a site instead of
// 648).
@group(0) @binding(0) var<storage, read> psi: array<RealStore>;
@group(0) @binding(1) var<storage, read> links: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> out: array<RealStore>;

fn dslash_fused_at(site: u32) {
    var acc = spinor_zero();
    for (var mu = 0u; mu < 4u; mu++) {
        let up = neighbour(site, mu, true);
        let dn = neighbour(site, mu, false);
        acc = recon_fwd(acc, half_mat_vec(links_link(site, mu), proj_fwd(psi_spinor(up), mu)), mu);
        acc = recon_bwd(acc, half_adj_mat_vec(links_link(dn, mu), proj_bwd(psi_spinor(dn), mu)), mu);
    }
    out_set_spinor(site, acc);
}

@compute @workgroup_size(WG)
fn dslash_fused(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { dslash_fused_at(first + v); }
    }
}
