// Insert and multiply: out(x) = sum_mu of the spinors rebuilt from
// U_mu(x) gf_mu(x), the gathered forward half spinors (the reconstructions
// recon_fwd are generated with the operator's sign).

fn insert_mul_at(site: u32) {
    var acc = spinor_zero();
    for (var mu = 0u; mu < 4u; mu++) {
        acc = recon_fwd(acc, half_mat_vec(links_link(site, mu), gf_half(site, mu)), mu);
    }
    out_set_spinor(site, acc);
}

@compute @workgroup_size(WG)
fn insert_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { insert_mul_at(first + v); }
    }
}
