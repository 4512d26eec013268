// Insert: out(x) = acc(x) + sum_mu of the spinors rebuilt from the gathered
// backward half spinors (already multiplied by U^dagger in extract_mul).

fn insert_at(site: u32) {
    var a = acc_spinor(site);
    for (var mu = 0u; mu < 4u; mu++) { a = recon_bwd(a, gb_half(site, mu), mu); }
    out_set_spinor(site, a);
}

@compute @workgroup_size(WG)
fn insert(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { insert_at(first + v); }
    }
}
