// Halo planes of a lattice field split over ranks, across one split axis.
// Along that axis a rank's field holds HALO planes of each neighbour's
// data, then its own PLANES planes, then HALO more: planes [0, HALO) and
// [PLANES + HALO, PLANES + 2 HALO) are halos. A plane has PLANE sites; its
// i-th is halo_site(k, i): runs of INNER sites (the faster axes), EXTENT
// planes apart (the axis's padded extent). Across the slowest axis a plane
// is one run (INNER = PLANE). `pack` copies the planes the neighbours need
// into `halo` (side 0: the lowest own planes, for the rank below; side 1:
// the highest, for the rank above); `unpack` writes a received `halo` into
// the halo planes. Both go through tdp_index, so one text serves every
// targetDP layout; the buffer is (side, site, value) in AoS and (side,
// value, site) in the others, so that consecutive invocations touch
// consecutive reals of the field and a warp's accesses coalesce (each
// site's values one after another only in AoS). Each side
// carries only the components its neighbour reads (lbm's pull propagation
// reads 5 of a neighbour plane's 19 populations, those moving into the
// slab): send0(k) lists side 0's (for the rank below), send1(k) side 1's, NSEND
// each. A received side 0 came from the rank below's side 1, so unpacking
// reads the lists the other way round. A side may send a projection
// instead (milc's half spinors): value k adds component mixs(k) times
// signs(k) (0: nothing, 1: minus, 2: plus) to component sends(k); its
// receiver zeroes the halo planes first (`clear`, when ZERO_REST is 1), so
// the components no value lands in read as zero. The host injects WG,
// NCOMP (reals per site), PLANE, INNER, EXTENT, PLANES, HALO, NSEND, HI_AT,
// ZERO_REST and SAL (with tdp_index), the lists as lookups (send0, send1,
// mix0, mix1, sign0, sign1), and the bindings: the field's buffers (one per group of
// components where the field is larger than a binding), read and written
// through field_get(site, comp) and field_set(site, comp, value), then
// `halo`, the packed planes.

const SITES: u32 = HALO * PLANE;
const SIDE: u32 = SITES * NSEND;

// Site n (of SITES) and value k (of `count`) of element i of a side: along
// the layout's fastest axis (see above).
fn halo_nk(i: u32, count: u32) -> vec2<u32> {
    if (SAL == 1u) {
        return vec2<u32>(i / count, i % count);
    }
    return vec2<u32>(i % SITES, i / SITES);
}

// Where halo element e sits in `halo`: side 1 starts at HI_AT (side 0's
// reals padded, so that each side can be bound on its own).
fn halo_at(e: u32) -> u32 {
    return select(e, e - SIDE + HI_AT, e >= SIDE);
}

// Component k of list `list` (0: send0, 1: send1).
fn halo_component(list: u32, k: u32) -> u32 {
    return select(send0(k), send1(k), list == 1u);
}

// The mixed-in component and sign of value k of side `list`.
fn halo_mix(list: u32, k: u32) -> vec2<u32> {
    return select(vec2<u32>(mix0(k), sign0(k)), vec2<u32>(mix1(k), sign1(k)), list == 1u);
}

// Site i of plane k across the split axis.
fn halo_site(k: u32, i: u32) -> u32 {
    return i % INNER + INNER * (k + EXTENT * (i / INNER));
}

// Site `n` of the HALO planes from plane `first`.
fn halo_planes_site(first: u32, n: u32) -> u32 {
    return halo_site(first + n / PLANE, n % PLANE);
}

// The site of halo element `e` when side 0 starts at plane `lo` and side 1
// at plane `hi`.
fn halo_element_site(e: u32, lo: u32, hi: u32) -> u32 {
    return halo_planes_site(select(lo, hi, e / SIDE == 1u), halo_nk(e % SIDE, NSEND).x);
}

// The value (of NSEND) of halo element `e`.
fn halo_value(e: u32) -> u32 {
    return halo_nk(e % SIDE, NSEND).y;
}

// The component of halo element `e` when side 0 carries list `list0`.
fn halo_slot_component(e: u32, list0: u32) -> u32 {
    return halo_component((e / SIDE) ^ list0, halo_value(e));
}

@compute @workgroup_size(WG)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e >= 2u * SIDE) { return; }
    let site = halo_element_site(e, HALO, PLANES);
    let comp = halo_slot_component(e, 0u);
    let side = e / SIDE;
    let m = halo_mix(side, halo_value(e));
    if (m.y == 0u) {
        halo[halo_at(e)] = field_get(site, comp);
        return;
    }
    // The same site's other component, m.x.
    let other = r_load(field_get(site, m.x));
    let mine = r_load(field_get(site, comp));
    if (m.y == 2u) {
        halo[halo_at(e)] = r_store(r_add(mine, other));
    } else {
        halo[halo_at(e)] = r_store(r_sub(mine, other));
    }
}

@compute @workgroup_size(WG)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    let per_side = SITES * NCOMP;
    if (ZERO_REST == 0u || e >= 2u * per_side) { return; }
    let nk = halo_nk(e % per_side, NCOMP);
    let site = halo_planes_site(select(0u, PLANES + HALO, e / per_side == 1u), nk.x);
    field_set(site, nk.y, r_store(r_zero()));
}

@compute @workgroup_size(WG)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = linear_id(gid, nwg);
    if (e < 2u * SIDE) {
        field_set(halo_element_site(e, 0u, PLANES + HALO), halo_slot_component(e, 1u), halo[halo_at(e)]);
    }
}
