// CoMD's Lennard-Jones path: velocity Verlet over link cells on a periodic
// box. The host injects
//   WG                     workgroup size
//   NATOMS                 atoms
//   NCX, NCY, NCZ, NCELLS  link cells per dimension and in all
//   CAP                    atom slots per cell (overflow is flagged, never silent)
//   ATOM_STRIDE, DIM_STRIDE  layout: aos (3, 1), aos4 (4, 1), soa (1, NATOMS)
// Loops stride over the whole grid, so any workgroup count (the launch-shape
// sweep's second axis) covers every atom or cell.

@group(0) @binding(0) var<storage, read_write> pos: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> vel: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> frc: array<RealStore>;
// Half of every pair energy of the atom, so the total is a plain sum.
@group(0) @binding(3) var<storage, read_write> epot: array<RealStore>;
@group(0) @binding(4) var<storage, read_write> cell_count: array<atomic<u32>>;
// CAP slots per cell, then the cell of every atom.
@group(0) @binding(5) var<storage, read_write> cell_atoms: array<u32>;
// [0]: the largest cell occupancy seen (overflow when above CAP).
@group(0) @binding(6) var<storage, read_write> status: array<atomic<u32>>;
// Box lengths (3), cells per length (3), cutoff^2, sigma^2, 4 epsilon,
// 24 epsilon, energy shift, dt / (2 m), dt.
@group(0) @binding(7) var<storage, read> coef: array<RealStore>;

fn at(atom: u32, d: u32) -> u32 { return atom * ATOM_STRIDE + d * DIM_STRIDE; }
fn c(i: u32) -> Real { return r_load(coef[i]); }

fn load_pos(atom: u32) -> array<Real, 3> {
    return array<Real, 3>(r_load(pos[at(atom, 0u)]), r_load(pos[at(atom, 1u)]), r_load(pos[at(atom, 2u)]));
}

// Cell coordinate of a position along one dimension (positions stay in [0, L)).
fn cell_coord(x: Real, d: u32, n: u32) -> u32 {
    let k = u32(max(r_to_f32(r_mul(x, c(3u + d))), 0.0));
    return min(k, n - 1u);
}

fn cell_of(atom: u32) -> vec3<u32> {
    let r = load_pos(atom);
    return vec3<u32>(cell_coord(r[0], 0u, NCX), cell_coord(r[1], 1u, NCY), cell_coord(r[2], 2u, NCZ));
}

fn cell_index(k: vec3<u32>) -> u32 { return k.x + NCX * (k.y + NCY * k.z); }

// Neighbour cell `n` (0..27) of cell k, periodic.
fn neighbour_cell(k: vec3<u32>, n: u32) -> u32 {
    let o = vec3<u32>(n % 3u, (n / 3u) % 3u, n / 9u);
    let x = (k.x + NCX + o.x - 1u) % NCX;
    let y = (k.y + NCY + o.y - 1u) % NCY;
    let z = (k.z + NCZ + o.z - 1u) % NCZ;
    return x + NCX * (y + NCY * z);
}

fn threads(nwg: vec3<u32>) -> u32 { return nwg.x * nwg.y * WG; }

// AdvanceVelocity: half a kick, v += dt/(2m) F.
@compute @workgroup_size(WG)
fn advance_velocity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let h = c(11u);
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        for (var d = 0u; d < 3u; d++) {
            vel[at(i, d)] = r_store(r_fma(h, r_load(frc[at(i, d)]), r_load(vel[at(i, d)])));
        }
    }
}

// AdvancePosition: r += dt v, wrapped back into the box.
@compute @workgroup_size(WG)
fn advance_position(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let dt = c(12u);
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        for (var d = 0u; d < 3u; d++) {
            var x = r_fma(dt, r_load(vel[at(i, d)]), r_load(pos[at(i, d)]));
            let l = c(d);
            if (r_lt(x, r_zero())) { x = r_add(x, l); }
            if (!r_lt(x, l)) { x = r_sub(x, l); }
            pos[at(i, d)] = r_store(x);
        }
    }
}

// Redistribution, part 1: empty every cell.
@compute @workgroup_size(WG)
fn clear_cells(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var k = linear_id(gid, nwg); k < NCELLS; k += threads(nwg)) {
        atomicStore(&cell_count[k], 0u);
    }
}

// Redistribution, part 2: every atom takes a slot in the cell it is in.
@compute @workgroup_size(WG)
fn bin_atoms(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        let k = cell_index(cell_of(i));
        let slot = atomicAdd(&cell_count[k], 1u);
        atomicMax(&status[0], slot + 1u);
        if (slot < CAP) { cell_atoms[k * CAP + slot] = i; }
        cell_atoms[NCELLS * CAP + i] = k;
    }
}

// The pair term of atom i with a neighbour at offset dr (minimum image
// applied): adds to the force on i and half the pair energy.
struct Acc { f: array<Real, 3>, e: Real }

fn pair(acc: ptr<function, Acc>, dr: array<Real, 3>) {
    var d = dr;
    for (var k = 0u; k < 3u; k++) {
        let l = c(k);
        let half = r_mul(l, r_from_f32(0.5));
        if (r_lt(half, d[k])) { d[k] = r_sub(d[k], l); }
        if (r_lt(d[k], r_neg(half))) { d[k] = r_add(d[k], l); }
    }
    let r2 = r_fma(d[0], d[0], r_fma(d[1], d[1], r_mul(d[2], d[2])));
    if (!r_lt(r2, c(6u))) { return; }
    let ir2 = r_div(r_one(), r2);
    let s2 = r_mul(c(7u), ir2);
    let s6 = r_mul(s2, r_mul(s2, s2));
    // phi = 4 eps s6 (s6 - 1) - shift; F_i = -24 eps s6 (2 s6 - 1) / r^2 * d
    let e = r_sub(r_mul(r_mul(c(8u), s6), r_sub(s6, r_one())), c(10u));
    let fr = r_mul(r_mul(r_mul(c(9u), s6), r_fma(r_from_f32(2.0), s6, r_neg(r_one()))), ir2);
    for (var k = 0u; k < 3u; k++) {
        (*acc).f[k] = r_fma(r_neg(fr), d[k], (*acc).f[k]);
    }
    (*acc).e = r_fma(r_from_f32(0.5), e, (*acc).e);
}

fn store_acc(i: u32, acc: Acc) {
    for (var k = 0u; k < 3u; k++) { frc[at(i, k)] = r_store(acc.f[k]); }
    epot[i] = r_store(acc.e);
}

// ComputeForce, one invocation per atom: the 27 neighbouring cells' atoms.
@compute @workgroup_size(WG)
fn force_atom(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        let ri = load_pos(i);
        // The cell the atom was binned in, not recomputed: at a cell face
        // rounding could pick the other side and the stencil would miss atoms.
        let kc = cell_atoms[NCELLS * CAP + i];
        let k = vec3<u32>(kc % NCX, (kc / NCX) % NCY, kc / (NCX * NCY));
        var acc = Acc(array<Real, 3>(r_zero(), r_zero(), r_zero()), r_zero());
        for (var n = 0u; n < 27u; n++) {
            let nc = neighbour_cell(k, n);
            let count = min(atomicLoad(&cell_count[nc]), CAP);
            for (var s = 0u; s < count; s++) {
                let j = cell_atoms[nc * CAP + s];
                if (j == i) { continue; }
                let rj = load_pos(j);
                pair(&acc, array<Real, 3>(r_sub(rj[0], ri[0]), r_sub(rj[1], ri[1]), r_sub(rj[2], ri[2])));
            }
        }
        store_acc(i, acc);
    }
}

// ComputeForce, one workgroup per link cell: the neighbouring cells'
// positions are staged in workgroup memory a z-slab of 9 cells at a time
// (so double precision fits 16-32 KiB), and invocation s takes the centre
// cell's atom in slot s (the host requires WG >= CAP).
var<workgroup> stage_pos: array<array<Real, 3>, 9 * CAP>;
var<workgroup> stage_id: array<u32, 9 * CAP>;
var<workgroup> stage_count: array<u32, 27>;

@compute @workgroup_size(WG)
fn force_cell(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let groups = nwg.x * nwg.y;
    for (var cell = wid.x + wid.y * nwg.x; cell < NCELLS; cell += groups) {
        let k = vec3<u32>(cell % NCX, (cell / NCX) % NCY, cell / (NCX * NCY));
        if (lid < 27u) {
            stage_count[lid] = min(atomicLoad(&cell_count[neighbour_cell(k, lid)]), CAP);
        }
        workgroupBarrier();
        // The centre cell is neighbour 13 (offset 0, 0, 0).
        let mine = lid < stage_count[13u];
        var i = 0u;
        var ri = array<Real, 3>(r_zero(), r_zero(), r_zero());
        if (mine) {
            i = cell_atoms[cell * CAP + lid];
            ri = load_pos(i);
        }
        var acc = Acc(array<Real, 3>(r_zero(), r_zero(), r_zero()), r_zero());
        for (var slab = 0u; slab < 3u; slab++) {
            for (var t = lid; t < 9u * CAP; t += WG) {
                let n = slab * 9u + t / CAP;
                let s = t % CAP;
                if (s < stage_count[n]) {
                    let j = cell_atoms[neighbour_cell(k, n) * CAP + s];
                    stage_id[t] = j;
                    stage_pos[t] = load_pos(j);
                }
            }
            workgroupBarrier();
            if (mine) {
                for (var m = 0u; m < 9u; m++) {
                    for (var s = 0u; s < stage_count[slab * 9u + m]; s++) {
                        let t = m * CAP + s;
                        if (stage_id[t] == i) { continue; }
                        let rj = stage_pos[t];
                        pair(&acc, array<Real, 3>(r_sub(rj[0], ri[0]), r_sub(rj[1], ri[1]), r_sub(rj[2], ri[2])));
                    }
                }
            }
            workgroupBarrier();
        }
        if (mine) { store_acc(i, acc); }
    }
}
