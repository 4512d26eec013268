// Re <a, b> of two spinor fields, first pass: one partial sum per workgroup
// (each invocation sums its VVL sites' 24 products, then the workgroup's
// fixed tree). cg.wgsl's `finish` adds the partials. Over the sites of its
// part (axpy.wgsl says which): a rank's halos hold its neighbours' sites.
const SPINOR: u32 = 24u;


@compute @workgroup_size(WG)
fn dot(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let first = linear_id(gid, nwg) * VVL;
    var acc = r_zero();
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) {
            let site = part_site(first + v);
            for (var k = 0u; k < SPINOR; k++) {
                acc = r_fma(r_load(a_ld(site, k)), r_load(b_ld(site, k)), acc);
            }
        }
    }
    let total = reduce_sum(acc, lid);
    if (lid == 0u) { partial[linear_group(wid, nwg)] = r_store(total); }
}
