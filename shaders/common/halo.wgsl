// Halo planes of a lattice field split over ranks, across one split axis.
// Along that axis a rank's field holds HALO planes of each neighbour's
// data, then its own PLANES planes, then HALO more: planes [0, HALO) and
// [PLANES + HALO, PLANES + 2 HALO) are halos. A plane has PLANE sites; its
// i-th is halo_site(k, i): runs of INNER sites (the faster axes), EXTENT
// planes apart (the axis's padded extent). Across the slowest axis a plane
// is one run (INNER = PLANE). `pack` copies the planes the neighbours need
// into `halo` (side 0: the lowest own planes, for the rank below; side 1:
// the highest, for the rank above); `unpack` writes a received `halo` into
// the halo planes. One invocation takes one site of a side and loops over
// its values: milc's 64^3 plane pair takes 2 thousand workgroups, where an
// invocation a value in workgroups of 64 took 98 thousand (and a clear
// pass 196 thousand more), and a milc solve's pack and unpack on two
// H200s went from 13.6 and 38.2 ms to 5.3 and 7.0 (notebook section ag).
// Both go through tdp_index, so one text serves every targetDP layout;
// the buffer is (side, site, value) in AoS and (side, value, site) in the
// others, so that consecutive invocations touch consecutive reals of the
// field and of `halo`, and a warp's accesses coalesce. Each side carries
// only the components its neighbour reads (lbm's pull propagation reads 5
// of a neighbour plane's 19 populations, those moving into the slab):
// send0(k) lists side 0's (for
// the rank below), send1(k) side 1's, NSEND each, no component twice. A
// received side 0 came from the rank below's side 1, so unpacking reads
// the lists the other way round (recv0 and recv1 invert them, NSEND for a
// component no value lands in). A side may send a projection instead
// (milc's half spinors): value k adds component mixs(k) times signs(k) (0:
// nothing, 1: minus, 2: plus) to component sends(k); its receiver writes
// zero into the components no value lands in (when ZERO_REST is 1), so
// they read as zero. The host injects WG, NCOMP (reals per site), PLANE,
// INNER, EXTENT, PLANES, HALO, NSEND, HI_AT, ZERO_REST and SAL (with
// tdp_index), the lists as lookups (send0, send1, recv0, recv1, mix0,
// mix1, sign0, sign1), and the bindings: the field's buffers (one per
// group of components where the field is larger than a binding), read and
// written through field_get(site, comp) and field_set(site, comp, value),
// then `halo`, the packed planes.

const SITES: u32 = HALO * PLANE;

// Where value k of site n (of SITES) of side `side` sits in `halo`: along
// the layout's fastest axis (see above); side 1 starts at HI_AT (side 0's
// reals padded, so that each side can be bound on its own).
fn halo_at(side: u32, n: u32, k: u32) -> u32 {
    var e = k * SITES + n;
    if (SAL == 1u) {
        e = n * NSEND + k;
    }
    return select(e, e + HI_AT, side == 1u);
}

// Component k of list `list` (0: send0, 1: send1).
fn halo_component(list: u32, k: u32) -> u32 {
    return select(send0(k), send1(k), list == 1u);
}

// The value of list `list` that carries component c (NSEND: none).
fn halo_received(list: u32, c: u32) -> u32 {
    return select(recv0(c), recv1(c), list == 1u);
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

// Value k of side `side` at `site`: its component, plus or minus the mixed-in one.
fn halo_pack_value(side: u32, site: u32, k: u32) -> RealStore {
    let comp = halo_component(side, k);
    let m = halo_mix(side, k);
    if (m.y == 0u) {
        return field_get(site, comp);
    }
    let other = r_load(field_get(site, m.x));
    let mine = r_load(field_get(site, comp));
    if (m.y == 2u) {
        return r_store(r_add(mine, other));
    }
    return r_store(r_sub(mine, other));
}

@compute @workgroup_size(WG)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    if (id >= 2u * SITES) { return; }
    let side = id / SITES;
    let n = id % SITES;
    let site = halo_planes_site(select(HALO, PLANES, side == 1u), n);
    for (var k = 0u; k < NSEND; k++) {
        halo[halo_at(side, n, k)] = halo_pack_value(side, site, k);
    }
}

@compute @workgroup_size(WG)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_id(gid, nwg);
    if (id >= 2u * SITES) { return; }
    let side = id / SITES;
    let n = id % SITES;
    let site = halo_planes_site(select(0u, PLANES + HALO, side == 1u), n);
    let list = side ^ 1u;
    if (ZERO_REST == 1u) {
        for (var c = 0u; c < NCOMP; c++) {
            let k = halo_received(list, c);
            if (k < NSEND) {
                field_set(site, c, halo[halo_at(side, n, k)]);
            } else {
                field_set(site, c, r_store(r_zero()));
            }
        }
        return;
    }
    for (var k = 0u; k < NSEND; k++) {
        field_set(site, halo_component(list, k), halo[halo_at(side, n, k)]);
    }
}
