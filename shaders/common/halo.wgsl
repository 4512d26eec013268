// Halo planes of a lattice field split along its slowest axis over ranks.
// A rank's field holds HALO planes of each neighbour's data, then its own
// PLANES planes, then HALO more: planes [0, HALO) and [PLANES + HALO,
// PLANES + 2 HALO) are halos. `pack` copies the planes the neighbours need
// into `halo` (side 0: the lowest own planes, for the rank below; side 1:
// the highest, for the rank above); `unpack` writes a received `halo` into
// the halo planes. Both go through tdp_index, so one text serves every
// targetDP layout; the buffer is (side, site in slab, component), which is
// logical order, so the host can read it without the layout. Each side
// carries only the components its neighbour reads (lbm's pull propagation
// reads 5 of a neighbour plane's 19 populations, those moving into the
// slab): SEND0 lists side 0's (for the rank below), SEND1 side 1's, NSEND
// each. A received side 0 came from the rank below's side 1, so unpacking
// reads the lists the other way round. The host injects WG, NCOMP (reals
// per site), PLANE (sites per plane), PLANES, HALO, NSEND, SEND0, SEND1
// and SAL (with tdp_index).
@group(0) @binding(0) var<storage, read_write> field: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> halo: array<RealStore>;

const SIDE: u32 = HALO * PLANE * NSEND;

// Component k of list `list` (0: SEND0, 1: SEND1).
fn halo_component(list: u32, k: u32) -> u32 {
    var send0 = SEND0;
    var send1 = SEND1;
    return select(send0[k], send1[k], list == 1u);
}

// The field slot of halo element `e` when side 0 starts at plane `lo` and
// side 1 at plane `hi`, and side 0 carries list `list0`.
fn halo_slot(e: u32, lo: u32, hi: u32, list0: u32) -> u32 {
    let side = e / SIDE;
    let rest = e % SIDE;
    let site = select(lo, hi, side == 1u) * PLANE + rest / NSEND;
    return tdp_index(site, halo_component(side ^ list0, rest % NSEND), NCOMP);
}

@compute @workgroup_size(WG)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e < 2u * SIDE) { halo[e] = field[halo_slot(e, HALO, PLANES, 0u)]; }
}

@compute @workgroup_size(WG)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e < 2u * SIDE) { field[halo_slot(e, 0u, PLANES + HALO, 1u)] = halo[e]; }
}
