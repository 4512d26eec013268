// Extract: the forward-hopping half spinors (1 - isign gamma_mu) psi(x) of
// every direction (upper two spins; the projections are generated from the
// gamma table with the operator's sign, as proj_fwd_0 .. proj_fwd_3).
@group(0) @binding(0) var<storage, read> psi: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> hf: array<RealStore>;

fn extract_at(site: u32) {
    let p = psi_spinor(site);
    hf_set_half(site, 0u, proj_fwd_0(p));
    hf_set_half(site, 1u, proj_fwd_1(p));
    hf_set_half(site, 2u, proj_fwd_2(p));
    hf_set_half(site, 3u, proj_fwd_3(p));
}

// targetDP's __targetILP__ loop: invocation t owns sites t*VVL .. t*VVL + VVL - 1.
@compute @workgroup_size(WG)
fn extract(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { extract_at(first + v); }
    }
}
