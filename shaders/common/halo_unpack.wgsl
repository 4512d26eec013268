// The writing half of the halo planes (`halo.wgsl` says how they are laid
// out): `clear` zeroes a projection's halo planes, `unpack` writes what
// arrived into them. Composed with `halo.wgsl`, whose helpers it uses.

@compute @workgroup_size(WG)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    let per_side = HALO * PLANE * NCOMP;
    if (ZERO_REST == 0u || e >= 2u * per_side) { return; }
    let side = e / per_side;
    let site = halo_planes_site(select(0u, PLANES + HALO, side == 1u), (e % per_side) / NCOMP);
    field_set(site, e % NCOMP, r_store(r_zero()));
}

@compute @workgroup_size(WG)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e < 2u * SIDE) {
        field_set(halo_element_site(e, 0u, PLANES + HALO), halo_slot_component(e, 1u), halo[e]);
    }
}
