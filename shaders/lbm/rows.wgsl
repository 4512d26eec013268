// The rows form of the propagating kernels (the `pull` parameter's rows,
// generated as lbm_propagate_rows_at and lbm_fused_rows_at): one site an
// invocation, a workgroup of whole x rows. No bound test: the host checks
// that every box's sites fill whole workgroups, so every invocation meets
// the workgroup barrier the shift through workgroup memory needs.
@compute @workgroup_size(WG)
fn propagate_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    lbm_propagate_rows_at(part_site(linear_id(gid, nwg)), lid);
}

@compute @workgroup_size(WG)
fn fused_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    lbm_fused_rows_at(part_site(linear_id(gid, nwg)), lid);
}
