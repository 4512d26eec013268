// Halo planes of a lattice field split along its slowest axis over ranks.
// A rank's field holds HALO planes of each neighbour's data, then its own
// PLANES planes, then HALO more: planes [0, HALO) and [PLANES + HALO,
// PLANES + 2 HALO) are halos. `pack` copies the planes the neighbours need
// into `halo` (side 0: the lowest own planes, for the rank below; side 1:
// the highest, for the rank above); `unpack` writes a received `halo` into
// the halo planes. Both go through tdp_index, so one text serves every
// targetDP layout; the buffer is (side, site in slab, component), which is
// logical order, so the host can read it without the layout. The host
// injects WG, NCOMP (reals per site), PLANE (sites per plane), PLANES,
// HALO and SAL (with tdp_index).
@group(0) @binding(0) var<storage, read_write> field: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> halo: array<RealStore>;

const SIDE: u32 = HALO * PLANE * NCOMP;

// The field slot of halo element `e` when side 0 starts at plane `lo` and
// side 1 at plane `hi`.
fn halo_slot(e: u32, lo: u32, hi: u32) -> u32 {
    let side = e / SIDE;
    let rest = e % SIDE;
    let site = select(lo, hi, side == 1u) * PLANE + rest / NCOMP;
    return tdp_index(site, rest % NCOMP, NCOMP);
}

@compute @workgroup_size(WG)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e < 2u * SIDE) { halo[e] = field[halo_slot(e, HALO, PLANES)]; }
}

@compute @workgroup_size(WG)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e < 2u * SIDE) { field[halo_slot(e, 0u, PLANES + HALO)] = halo[e]; }
}
