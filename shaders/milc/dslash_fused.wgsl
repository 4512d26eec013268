// The whole of D in one kernel, a variant beside MILC's split: the hopping
// sum of hop.wgsl stored as it is (360 reals a site through memory instead
// of the split's 648).
@group(0) @binding(0) var<storage, read> psi: array<RealStore>;
@group(0) @binding(1) var<storage, read> links: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> out: array<RealStore>;

@compute @workgroup_size(WG)
fn dslash_fused(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { out_set_spinor(first + v, hop_sum(first + v)); }
    }
}
