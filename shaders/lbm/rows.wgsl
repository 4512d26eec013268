// The rows form of the propagating kernels (the `pull` parameter's rows,
// generated as lbm_propagate_rows_at and lbm_fused_rows_at): one site an
// invocation, a workgroup of whole x rows. The host checks that every box's
// sites fill whole workgroups, so a workgroup is wholly inside the box or,
// where a 2-D dispatch rounds the count up, wholly past it; the test is of
// the workgroup (uniform), so every invocation that runs meets the barrier
// the shift through workgroup memory needs.
fn rows_past_box(wid: vec3<u32>, nwg: vec3<u32>) -> bool {
    return linear_group(wid, nwg) * WG >= PART_COUNT;
}

@compute @workgroup_size(WG)
fn propagate_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (rows_past_box(wid, nwg)) { return; }
    lbm_propagate_rows_at(part_site(linear_id(gid, nwg)), lid);
}

@compute @workgroup_size(WG)
fn fused_rows(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (rows_past_box(wid, nwg)) { return; }
    lbm_fused_rows_at(part_site(linear_id(gid, nwg)), lid);
}
