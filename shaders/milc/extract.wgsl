// Extract: the forward-hopping half spinors (1 - isign gamma_mu) psi(x) of
// every direction (upper two spins; the projections are generated from the
// gamma table with the operator's sign, as proj_fwd).

fn extract_at(site: u32) {
    let p = psi_spinor(site);
    for (var mu = 0u; mu < 4u; mu++) { hf_set_half(site, mu, proj_fwd(p, mu)); }
}

// targetDP's __targetILP__ loop: invocation t owns sites t*VVL .. t*VVL + VVL - 1.
@compute @workgroup_size(WG)
fn extract(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { extract_at(first + v); }
    }
}
