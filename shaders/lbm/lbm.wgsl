// D3Q19 lattice Boltzmann, Ludwig's hydrodynamics core: BGK collision (with a
// body force), pull propagation to the 18 neighbours on a periodic box, and
// the two fused. The host injects
//   WG, NX, NY, NZ, SITES   workgroup size and box
//   SAL                     targetDP layout (tdp_index, included)
//   VVL                     virtual vector length: consecutive sites per invocation
//   PART_COUNT, part_site   the sites of the dispatch (scale::Part)
// and the fields' bindings, and appends the per-site functions generated
// from the velocity set (lbm_collide_at, lbm_propagate_at, lbm_fused_at).

// Every kernel reads one field (src_0, src_1, ...: one buffer per group of
// velocities, as many as the binding limit needs) and writes the other
// (dst_0, ...); the host ping-pongs. After them, `coef`: 1/tau, tau, body
// force (x, y, z), the weights 1/3, 1/18, 1/36, in the kernel's precision
// so that f64 and df64 see exact constants. The host generates these
// bindings (codegen::bindings).

// targetDP's __targetILP__ loop: invocation t owns sites t*VVL .. t*VVL + VVL - 1
// of the dispatch's part (the whole box on one device).
@compute @workgroup_size(WG)
fn collide(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) { lbm_collide_at(part_site(first + v)); }
    }
}

@compute @workgroup_size(WG)
fn propagate(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) { lbm_propagate_at(part_site(first + v)); }
    }
}

@compute @workgroup_size(WG)
fn fused(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) { lbm_fused_at(part_site(first + v)); }
    }
}
