// CoMD's Lennard-Jones path: velocity Verlet over link cells on a periodic
// box. The host injects
//   WG                     workgroup size
//   NATOMS                 atoms
//   NCX, NCY, NCZ, NCELLS  link cells per dimension and in all
//   CAP                    atom slots per cell (overflow is flagged, never silent)
//   ATOM_STRIDE, DIM_STRIDE  layout: aos (3, 1), aos4 (4, 1), soa (1, NATOMS)
//   SLOT_DIM_STRIDE        the same layout over the NCELLS * CAP cell slots
//   STAGE                  neighbour atoms force_cell stages at once (at least CAP)
//   SCRATCH                places of force_cell's scratch: max(STAGE + 1, WG)
// Loops stride over the whole grid, so any workgroup count (the launch-shape
// sweep's second axis) covers every atom, slot or cell.

@group(0) @binding(0) var<storage, read_write> pos: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> vel: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> frc: array<RealStore>;
// Half of every pair energy of the atom, so the total is a plain sum.
@group(0) @binding(3) var<storage, read_write> epot: array<RealStore>;
@group(0) @binding(4) var<storage, read_write> cell_count: array<atomic<u32>>;
// CAP slots per cell, then the cell of every atom.
@group(0) @binding(5) var<storage, read_write> cell_atoms: array<u32>;
// [0]: the largest occupancy of a cell that overflowed (above CAP), 0
// while none has.
@group(0) @binding(6) var<storage, read_write> status: array<atomic<u32>>;
// Box lengths (3), cells per length (3), cutoff^2, sigma^2, 2 epsilon,
// 24 epsilon, half the energy shift, dt / (2 m), dt, the kick flag (see
// `kicks`), 48 epsilon, packed RV_LANES to a 16-byte vector. A uniform
// rather than a storage buffer: NVIDIA's compiler then reads them as
// constant-bank operands where they are used instead of holding them in
// registers through the force loops.
@group(0) @binding(7) var<uniform> coef: array<RealVec, COEF_VECS>;
// Positions gathered into cell order (slot k * CAP + s), as CoMD keeps its
// atoms: the force kernels then read a neighbour cell as one contiguous run,
// the same run for every invocation of a cell, instead of chasing atom ids.
@group(0) @binding(8) var<storage, read_write> cpos: array<RealStore>;

const NSLOTS: u32 = NCELLS * CAP;

fn at(atom: u32, d: u32) -> u32 { return atom * ATOM_STRIDE + d * DIM_STRIDE; }
fn slot_at(slot: u32, d: u32) -> u32 { return slot * ATOM_STRIDE + d * SLOT_DIM_STRIDE; }
const COEF_VECS: u32 = (15u + RV_LANES - 1u) / RV_LANES;
fn c(i: u32) -> Real { return rv_get(coef[i / RV_LANES], i % RV_LANES); }

fn load_pos(atom: u32) -> array<Real, 3> {
    return array<Real, 3>(r_load(pos[at(atom, 0u)]), r_load(pos[at(atom, 1u)]), r_load(pos[at(atom, 2u)]));
}

fn load_slot(slot: u32) -> array<Real, 3> {
    return array<Real, 3>(r_load(cpos[slot_at(slot, 0u)]), r_load(cpos[slot_at(slot, 1u)]), r_load(cpos[slot_at(slot, 2u)]));
}

// Atoms in cell k (capacity overflow is reported by bin_atoms' status).
fn occupancy(k: u32) -> u32 { return min(atomicLoad(&cell_count[k]), CAP); }

// Cell coordinate of a position along one dimension (positions stay in [0, L)).
fn cell_coord(x: Real, d: u32, n: u32) -> u32 {
    let k = u32(max(r_to_f32(r_mul(x, c(3u + d))), 0.0));
    return min(k, n - 1u);
}

fn cell_of(r: array<Real, 3>) -> vec3<u32> {
    return vec3<u32>(cell_coord(r[0], 0u, NCX), cell_coord(r[1], 1u, NCY), cell_coord(r[2], 2u, NCZ));
}

fn cell_index(k: vec3<u32>) -> u32 { return k.x + NCX * (k.y + NCY * k.z); }
fn cell_coords(cell: u32) -> vec3<u32> { return vec3<u32>(cell % NCX, (cell / NCX) % NCY, cell / (NCX * NCY)); }

// Neighbour cell `n` (0..27; 13 is the cell itself) of cell k, and the box
// shift that brings its atoms next to cell k across a periodic face. With
// at least 3 cells a side no two of the 27 coincide, and a per-cell shift
// replaces a minimum-image test on every candidate pair.
struct Neighbour { cell: u32, shift: array<Real, 3> }

// `neighbour`, `add_force` and `store_force` come from comd/axes_loop.wgsl
// or comd/axes_unrolled.wgsl, and force_cell's candidate test (`Probe`,
// `probe_of`, `stage_probe`, `staged_hit`, `take_hit`) from
// comd/hits_four.wgsl or comd/hits_coarse.wgsl, and how it takes its hits
// (`take_hits`) from comd/take_one.wgsl or comd/take_two.wgsl, chosen by
// precision (see `axes_source` and `cell_form`).

fn threads(nwg: vec3<u32>) -> u32 { return nwg.x * nwg.y * WG; }

// The three components of atom i's velocity and force. Every pass reads
// all of an atom's inputs before it stores anything: the buffers may alias
// as far as the compiler knows, so a load after a store would wait for it
// (a load, store, load chain per axis made the kicks latency-bound).
fn load_vel(i: u32) -> array<Real, 3> {
    return array<Real, 3>(r_load(vel[at(i, 0u)]), r_load(vel[at(i, 1u)]), r_load(vel[at(i, 2u)]));
}

fn load_frc(i: u32) -> array<Real, 3> {
    return array<Real, 3>(r_load(frc[at(i, 0u)]), r_load(frc[at(i, 1u)]), r_load(frc[at(i, 2u)]));
}

fn store_vel(i: u32, v: array<Real, 3>) {
    vel[at(i, 0u)] = r_store(v[0]);
    vel[at(i, 1u)] = r_store(v[1]);
    vel[at(i, 2u)] = r_store(v[2]);
}

fn store_pos(i: u32, r: array<Real, 3>) {
    pos[at(i, 0u)] = r_store(r[0]);
    pos[at(i, 1u)] = r_store(r[1]);
    pos[at(i, 2u)] = r_store(r[2]);
}

// Half a kick: v + dt/(2m) f.
fn kicked(v: array<Real, 3>, f: array<Real, 3>) -> array<Real, 3> {
    let h = c(11u);
    return array<Real, 3>(r_fma(h, f[0], v[0]), r_fma(h, f[1], v[1]), r_fma(h, f[2], v[2]));
}

// x moved back into [0, l) (a step moves an atom far less than a box).
fn wrapped(x: Real, l: Real) -> Real {
    var y = x;
    if (r_lt(y, r_zero())) { y = r_add(y, l); }
    if (!r_lt(y, l)) { y = r_sub(y, l); }
    return y;
}

// The drift: r + dt v, wrapped into the box.
fn drifted(r: array<Real, 3>, v: array<Real, 3>) -> array<Real, 3> {
    let dt = c(12u);
    return array<Real, 3>(
        wrapped(r_fma(dt, v[0], r[0]), c(0u)),
        wrapped(r_fma(dt, v[1], r[1]), c(1u)),
        wrapped(r_fma(dt, v[2], r[2]), c(2u)),
    );
}

// Atom i, at r, takes a slot in the cell it is in, and the slot a copy of
// its position (the stored form, bit for bit as in pos): the gather into
// cell order costs no pass of its own, as r is in registers here.
fn bin_at(i: u32, r: array<Real, 3>) {
    let k = cell_index(cell_of(r));
    let slot = atomicAdd(&cell_count[k], 1u);
    // Only an overflow is recorded: every atom's maximum into one word
    // would make all of them queue at one address.
    if (slot >= CAP) { atomicMax(&status[0], slot + 1u); }
    if (slot < CAP) {
        let t = k * CAP + slot;
        cell_atoms[t] = i;
        cpos[slot_at(t, 0u)] = r_store(r[0]);
        cpos[slot_at(t, 1u)] = r_store(r[1]);
        cpos[slot_at(t, 2u)] = r_store(r[2]);
    }
    cell_atoms[NSLOTS + i] = k;
}

// AdvanceVelocity: half a kick, v += dt/(2m) F.
@compute @workgroup_size(WG)
fn advance_velocity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        store_vel(i, kicked(load_vel(i), load_frc(i)));
    }
}

// AdvancePosition: r += dt v, wrapped back into the box.
@compute @workgroup_size(WG)
fn advance_position(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        store_pos(i, drifted(load_pos(i), load_vel(i)));
    }
}

// Redistribution, part 1: empty every cell.
@compute @workgroup_size(WG)
fn clear_cells(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var k = linear_id(gid, nwg); k < NCELLS; k += threads(nwg)) {
        atomicStore(&cell_count[k], 0u);
    }
}

// Redistribution, part 2: every atom takes a slot in the cell it is in,
// and the slot a copy of its position.
@compute @workgroup_size(WG)
fn bin_atoms(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        bin_at(i, load_pos(i));
    }
}

// The step's half kick, drift and binning in one pass (the step runs
// clear_cells before it): each atom's velocity and position are read once
// and its new position binned and copied into cell order from registers.
@compute @workgroup_size(WG)
fn advance_bin(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = linear_id(gid, nwg); i < NATOMS; i += threads(nwg)) {
        let v = kicked(load_vel(i), load_frc(i));
        let r = drifted(load_pos(i), v);
        store_vel(i, v);
        store_pos(i, r);
        bin_at(i, r);
    }
}

// The Lennard-Jones constants, read once per invocation: 2 eps, 24 eps and
// 48 eps, the factors pair_term needs as they are, and half the energy
// shift.
struct Lj { box: array<Real, 3>, rc2: Real, sigma2: Real, eps2: Real, eps24: Real, eps48: Real, half_shift: Real }

fn lj_constants() -> Lj {
    return Lj(array<Real, 3>(c(0u), c(1u), c(2u)), c(6u), c(7u), c(8u), c(9u), c(14u), c(10u));
}

// Force on atom i and half the energy of its pairs, less the shift of
// `pairs` of them where COUNT_SHIFTS (injected) leaves it to `settled`.
struct Acc { f: array<Real, 3>, e: Real, pairs: u32 }

fn acc_zero() -> Acc { return Acc(array<Real, 3>(r_zero(), r_zero(), r_zero()), r_zero(), 0u); }

fn acc_add(a: Acc, b: Acc) -> Acc {
    return Acc(array<Real, 3>(r_add(a.f[0], b.f[0]), r_add(a.f[1], b.f[1]), r_add(a.f[2], b.f[2])), r_add(a.e, b.e), a.pairs + b.pairs);
}

// acc with the shifts of its counted pairs subtracted from its energy.
fn settled(lj: Lj, a: Acc) -> Acc {
    if (!COUNT_SHIFTS) { return a; }
    return Acc(a.f, r_fma(r_from_f32(-f32(a.pairs)), lj.half_shift, a.e), 0u);
}

// Only about one candidate in seven lies inside the cutoff, so testing and
// interacting in one loop would make every invocation of a subgroup wait
// for the interaction of whichever invocation has one, at nearly every
// candidate. The force loops therefore test up to 32 candidates first,
// keeping the hits as bits, and then interact with the hits only.

// Offset of the neighbour image at rj from atom i at ri.
fn offset(ri: array<Real, 3>, rj: array<Real, 3>) -> array<Real, 3> {
    return array<Real, 3>(r_sub(rj[0], ri[0]), r_sub(rj[1], ri[1]), r_sub(rj[2], ri[2]));
}

fn dist2(d: array<Real, 3>) -> Real { return r_fma(d[0], d[0], r_fma(d[1], d[1], r_mul(d[2], d[2]))); }

fn inside(lj: Lj, d: array<Real, 3>) -> bool { return r_lt(dist2(d), lj.rc2); }

// The pair term of atom i with a neighbour at offset d inside the cutoff,
// from ir2 = 1 / r^2: the force on atom i is s d, and half the pair's
// energy is s6 g. With phi = 4 eps s6 (s6 - 1) - shift and
// F_i = -24 eps s6 (2 s6 - 1) / r^2 d, the force is written around one fma
// with constant factors (one operation fewer). With COUNT_SHIFTS the energy
// is too, and the shift is left to `settled` (two fewer): df64's force 7%
// faster on the H200, f64's 1% slower, so f32 and f64 keep the shift in
// each pair's g (docs/notebook/benchmarks.md 2026-11-26 h).
struct PairTerm { s: Real, s6: Real, g: Real }

fn pair_term(lj: Lj, ir2: Real) -> PairTerm {
    let s2 = r_mul(lj.sigma2, ir2);
    let s6 = r_mul(s2, r_mul(s2, s2));
    let fr = r_mul(r_mul(r_fma(lj.eps48, s6, r_neg(lj.eps24)), s6), ir2);
    if (COUNT_SHIFTS) {
        return PairTerm(r_neg(fr), s6, r_fma(lj.eps2, s6, r_neg(lj.eps2)));
    }
    return PairTerm(r_neg(fr), r_one(), r_sub(r_mul(r_mul(lj.eps2, s6), r_sub(s6, r_one())), lj.half_shift));
}

// acc gains pair term t of the neighbour at offset d, `pairs` (0 or 1)
// times: 0 adds nothing when t's s and g are zero.
fn add_term(acc: ptr<function, Acc>, t: PairTerm, d: array<Real, 3>, pairs: u32) {
    add_force(acc, t.s, d);
    (*acc).e = r_fma(t.s6, t.g, (*acc).e);
    if (COUNT_SHIFTS) { (*acc).pairs += pairs; }
}

// acc gains the pair term of a neighbour at offset d inside the cutoff.
fn interact(acc: ptr<function, Acc>, lj: Lj, d: array<Real, 3>) { add_term(acc, pair_term(lj, r_recip(dist2(d))), d, 1u); }

// Whether the force kernels also give the step's closing half kick
// (coefficient 13, set for the step's runs): one flag read at run time
// rather than a second entry point, so the step reuses the force kernel's
// compiled pipeline (in df64 on lavapipe each costs minutes to build).
fn kicks() -> bool { return r_lt(r_zero(), c(13u)); }

// The force and energy of atom i, and with `kick` the step's closing half
// kick from that force (so the step needs no pass of its own for it).
fn store_acc(i: u32, acc: Acc, kick: bool) {
    var v = array<Real, 3>(r_zero(), r_zero(), r_zero());
    if (kick) { v = load_vel(i); }
    store_force(i, acc.f);
    if (kick) { store_vel(i, kicked(v, acc.f)); }
    epot[i] = r_store(acc.e);
}

// ComputeForce, one invocation per atom, in cell order (slot t): the atoms
// of one cell run side by side and walk the same 27 neighbour runs.
@compute @workgroup_size(WG)
fn force_atom(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let lj = lj_constants();
    let kick = kicks();
    for (var t = linear_id(gid, nwg); t < NSLOTS; t += threads(nwg)) {
        let cell = t / CAP;
        if (t % CAP >= occupancy(cell)) { continue; }
        let ri = load_slot(t);
        let k = cell_coords(cell);
        var acc = acc_zero();
        for (var n = 0u; n < 27u; n++) {
            let nb = neighbour(k, n, lj.box);
            // ri moved against the shift, so rj - ri is the image's offset.
            let rn = array<Real, 3>(r_sub(ri[0], nb.shift[0]), r_sub(ri[1], nb.shift[1]), r_sub(ri[2], nb.shift[2]));
            let end = nb.cell * CAP + occupancy(nb.cell);
            for (var u0 = nb.cell * CAP; u0 < end; u0 += 32u) {
                var hits = 0u;
                for (var b = 0u; b < min(32u, end - u0); b++) {
                    let u = u0 + b;
                    if (u != t && inside(lj, offset(rn, load_slot(u)))) { hits |= 1u << b; }
                }
                while (hits != 0u) {
                    let b = firstTrailingBit(hits);
                    hits &= hits - 1u;
                    interact(&acc, lj, offset(rn, load_slot(u0 + b)));
                }
            }
        }
        store_acc(cell_atoms[t], settled(lj, acc), kick);
    }
}

// ComputeForce, one workgroup per link cell: the neighbour cells' atoms are
// staged in workgroup memory, already shifted to their periodic images and
// packed without gaps, in rounds of as many whole cells as STAGE atoms hold
// (the `stage` parameter; its default: plan.rs). A cell holds fewer atoms
// than the workgroup has invocations, so each atom gets WG / count of them,
// each taking every (WG / count)-th staged neighbour, and their partial
// sums meet at the end. Workgroup memory is what limits how many
// workgroups an NVIDIA SM holds (on the H100 8.5 KiB more per workgroup
// made the force 1.8x slower), so the stage is packed, not CAP slots a
// cell, and the partial forces reuse it once the last round is done. Each
// place is a whole position (read as one array, not three reals of a flat
// one: f32 measured 27% slower flat).
var<workgroup> scratch: array<array<Real, 3>, SCRATCH>;
var<workgroup> partial_e: array<Real, WG>;
// stage_pre[n]: the atoms of neighbour cells 0..n (stage_pre[27]: all 27).
var<workgroup> stage_pre: array<u32, 28>;
// The 27 neighbour cells and their box shifts, found once per cell rather
// than once per staged slot (`neighbour` costs divisions and branches).
var<workgroup> stage_cell: array<u32, 27>;
var<workgroup> stage_shift: array<array<Real, 3>, 27>;
// Rounds: round r stages neighbour cells stage_stops[r]..stage_stops[r + 1]
// (whole cells while their atoms fit the stage; one always does, as
// STAGE >= CAP); stage_rounds of them.
var<workgroup> stage_stops: array<u32, 28>;
var<workgroup> stage_rounds: u32;

// Staged atom m (m < STAGE).
fn staged_pos(m: u32) -> array<Real, 3> {
    return scratch[m];
}

fn put_partial(l: u32, a: Acc) {
    scratch[l] = a.f;
    partial_e[l] = a.e;
}

fn partial_at(l: u32) -> Acc {
    return Acc(scratch[l], partial_e[l], 0u);
}

// Invocation n finds neighbour cell n, keeps it and its shift, and counts
// its atoms into stage_pre[n + 1]; invocation 0 then scans the counts in
// place, so a staged atom finds its packed place in one lookup instead of a
// loop over the cells before its own (up to 26 per atom), and cuts the
// rounds as it goes. Called by the whole workgroup: its barriers publish
// the neighbours, counts, scan and rounds.
fn scan_neighbours(k: vec3<u32>, lid: u32, box: array<Real, 3>) {
    if (lid < 27u) {
        let nb = neighbour(k, lid, box);
        stage_cell[lid] = nb.cell;
        stage_shift[lid] = nb.shift;
        stage_pre[lid + 1u] = occupancy(nb.cell);
    }
    workgroupBarrier();
    if (lid == 0u) {
        stage_pre[0] = 0u;
        stage_stops[0] = 0u;
        var sum = 0u;
        var begin = 0u;
        var rounds = 0u;
        for (var n = 1u; n < 28u; n++) {
            let next = sum + stage_pre[n];
            if (next - begin > STAGE) {
                rounds++;
                stage_stops[rounds] = n - 1u;
                begin = sum;
            }
            sum = next;
            stage_pre[n] = sum;
        }
        rounds++;
        stage_stops[rounds] = 27u;
        stage_rounds = rounds;
    }
    workgroupBarrier();
}

// The lower corner of cell k, near enough: the coarse candidate test only
// measures from it to keep its f32 coordinates small.
fn cell_corner(k: vec3<u32>, box: array<Real, 3>) -> array<Real, 3> {
    return array<Real, 3>(
        r_from_f32(f32(k.x) * r_to_f32(box[0]) / f32(NCX)),
        r_from_f32(f32(k.y) * r_to_f32(box[1]) / f32(NCY)),
        r_from_f32(f32(k.z) * r_to_f32(box[2]) / f32(NCZ)),
    );
}

// Stages neighbour cells first..stop, each atom moved to its periodic
// image and packed without gaps from the stage's start, with what the
// candidate test reads of it.
fn stage_round(first: u32, stop: u32, lid: u32, cell: u32, box: array<Real, 3>) {
    let base = stage_pre[first];
    // Found again each round rather than held in registers through them.
    let corner = cell_corner(cell_coords(cell), box);
    for (var t = lid; t < (stop - first) * CAP; t += WG) {
        let n = first + t / CAP;
        let s = t % CAP;
        let packed = stage_pre[n] + s;
        if (packed < stage_pre[n + 1u]) {
            let rj = load_slot(stage_cell[n] * CAP + s);
            let shift = stage_shift[n];
            let m = packed - base;
            let image = array<Real, 3>(r_add(rj[0], shift[0]), r_add(rj[1], shift[1]), r_add(rj[2], shift[2]));
            scratch[m] = image;
            stage_probe(m, image, corner);
        }
    }
    // Places past the round's atoms, up to STAGE where the candidate test
    // clamps its reads, hold a place outside every cutoff: the test then
    // needs no bound of its own.
    let far = array<Real, 3>(r_from_f32(FAR), r_from_f32(FAR), r_from_f32(FAR));
    for (var m = stage_pre[stop] - base + lid; m <= STAGE; m += WG) {
        scratch[m] = far;
        stage_probe(m, far, corner);
    }
}

// A coordinate of the places past a round's atoms: its squared distance
// from any atom is far outside the cutoff and still finite in f32.
const FAR: f32 = 1.0e15;

// Bit b: staged atom m0 + b * parts may be a neighbour of atom i (b < 32),
// by the candidate test's `staged_hit`, which reads place min(m, STAGE):
// past the `staged` atoms it finds FAR, so no candidate needs a bound or
// index test of its own. Four candidates a step with no branch between
// their loads and tests, so that their latencies overlap (on the H100 12%
// and 7% faster in f32 and f64 than one candidate a step with a branch,
// docs/notebook/benchmarks.md 2026-11-25 b).
fn staged_hits(lj: Lj, probe: Probe, m0: u32, staged: u32, parts: u32) -> u32 {
    var hits = 0u;
    for (var b = 0u; b < 32u; b += 4u) {
        let m = m0 + b * parts;
        if (m >= staged) { break; }
        let four = staged_hit(lj, probe, m)
            | (staged_hit(lj, probe, m + parts) << 1u)
            | (staged_hit(lj, probe, m + 2u * parts) << 2u)
            | (staged_hit(lj, probe, m + 3u * parts) << 3u);
        hits |= four << b;
    }
    return hits;
}

// Tests atom i at ri (its probe for the candidate test) against every
// parts-th of the `staged` staged atoms from `part` on and interacts with
// the hits (`take_hits`, one or two a step); `me` is atom i's own place
// among them (past the stage when its cell is in another round).
fn interact_staged(acc: ptr<function, Acc>, lj: Lj, ri: array<Real, 3>, probe: Probe, staged: u32, me: u32, part: u32, parts: u32) {
    // Atom i is candidate `own` of this invocation (bit own % 32 of word
    // own / 32) where its place is one of every parts-th from `part`; its
    // bit is cleared once a word rather than tested at every candidate.
    let own = select(0xffffffffu, me / parts, me % parts == part);
    var word = 0u;
    for (var m0 = part; m0 < staged; m0 += 32u * parts) {
        var hits = staged_hits(lj, probe, m0, staged, parts);
        hits &= ~select(0u, 1u << (own & 31u), own >> 5u == word);
        word++;
        while (hits != 0u) { take_hits(acc, lj, ri, &hits, m0, parts); }
    }
}

@compute @workgroup_size(WG)
fn force_cell(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let lj = lj_constants();
    let kick = kicks();
    let groups = nwg.x * nwg.y;
    for (var cell = wid.x + wid.y * nwg.x; cell < NCELLS; cell += groups) {
        let k = cell_coords(cell);
        scan_neighbours(k, lid, lj.box);
        let own = stage_pre[14u] - stage_pre[13u];
        let atoms = max(own, 1u);
        let parts = WG / atoms;
        let a = lid % atoms;
        let part = lid / atoms;
        let busy = part < parts && a < own;
        var ri = array<Real, 3>(r_zero(), r_zero(), r_zero());
        if (busy) { ri = load_slot(cell * CAP + a); }
        let probe = probe_of(lj, ri, cell_corner(k, lj.box));
        var acc = acc_zero();
        let rounds = workgroupUniformLoad(&stage_rounds);
        for (var r = 0u; r < rounds; r++) {
            let first = stage_stops[r];
            let stop = stage_stops[r + 1u];
            stage_round(first, stop, lid, cell, lj.box);
            let base = stage_pre[first];
            let mine = first <= 13u && 13u < stop;
            let me = select(STAGE, stage_pre[13u] - base + a, mine);
            workgroupBarrier();
            if (busy) { interact_staged(&acc, lj, ri, probe, stage_pre[stop] - base, me, part, parts); }
            workgroupBarrier();
        }
        put_partial(lid, settled(lj, acc));
        workgroupBarrier();
        if (lid < own) {
            var sum = partial_at(lid);
            for (var q = 1u; q < parts; q++) { sum = acc_add(sum, partial_at(lid + q * atoms)); }
            store_acc(cell_atoms[cell * CAP + lid], sum, kick);
        }
        workgroupBarrier();
    }
}
