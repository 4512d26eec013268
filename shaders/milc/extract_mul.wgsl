// Extract and multiply: U_mu^dagger(x) (1 + isign gamma_mu) psi(x), the
// backward-hopping half spinors, multiplied at the site that owns the link
// so the shift only moves half spinors.

fn extract_mul_at(site: u32) {
    let p = psi_spinor(site);
    for (var mu = 0u; mu < 4u; mu++) {
        hb_set_half(site, mu, half_adj_mat_vec(links_link(site, mu), proj_bwd(p, mu)));
    }
}

@compute @workgroup_size(WG)
fn extract_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { extract_mul_at(first + v); }
    }
}
