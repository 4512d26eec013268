// Shift: the stencil. Forward half spinors are gathered from x + mu, backward
// ones from x - mu; the reals are copied as stored, so no precision's
// arithmetic is involved.

fn shift_at(site: u32) {
    for (var mu = 0u; mu < 4u; mu++) {
        let up = neighbour(site, mu, true);
        let dn = neighbour(site, mu, false);
        for (var k = 12u * mu; k < 12u * mu + 12u; k++) {
            gf_st(site, k, hf_ld(up, k));
            gb_st(site, k, hb_ld(dn, k));
        }
    }
}

@compute @workgroup_size(WG)
fn shift(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { shift_at(first + v); }
    }
}
