// The whole of D in one kernel, a variant beside MILC's split: the hopping
// sum of hop.wgsl stored as it is (360 reals a site through memory instead
// of the split's 648), over the sites of the dispatch's part (m_fused.wgsl
// says which).

@compute @workgroup_size(WG)
fn dslash_fused(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) {
            let site = part_site(first + v);
            out_set_spinor(site, hop_sum(site));
        }
    }
}
