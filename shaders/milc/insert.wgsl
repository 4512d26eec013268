// Insert: out(x) = acc(x) + sum_mu of the spinors rebuilt from the gathered
// backward half spinors (already multiplied by U^dagger in extract_mul).
@group(0) @binding(0) var<storage, read> gb: array<RealStore>;
@group(0) @binding(1) var<storage, read> acc: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> out: array<RealStore>;

fn insert_at(site: u32) {
    var a = acc_spinor(site);
    a = recon_bwd_0(a, gb_half(site, 0u));
    a = recon_bwd_1(a, gb_half(site, 1u));
    a = recon_bwd_2(a, gb_half(site, 2u));
    a = recon_bwd_3(a, gb_half(site, 3u));
    out_set_spinor(site, a);
}

@compute @workgroup_size(WG)
fn insert(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { insert_at(first + v); }
    }
}
