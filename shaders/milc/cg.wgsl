// The scalar side of conjugate gradient, kept on the GPU so a whole solve is
// recorded in one command buffer with no readback: `finish` (second pass of
// the dot products), and the one-invocation updates of alpha and beta. The
// host injects the slot numbers of `scalars` (S_*). Once the residual
// reaches the tolerance the solve freezes (alpha = beta = 0), so a fixed
// number of recorded iterations behaves as "until converged".
struct Op { slot: u32, negate: u32, count: u32, pad: u32 }


// One workgroup (the host sets WG to 256 here, whatever the case's size):
// invocation lid adds partials lid, lid + WG, ... below op.count (those the
// last reduction wrote) in order, then the tree adds the invocations' sums;
// the total goes to scalars[op.slot].
@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32) {
    var acc = r_zero();
    for (var g = lid; g < op.count; g += WG) { acc = r_add(acc, r_load(partial[g])); }
    let total = reduce_sum(acc, lid);
    if (lid == 0u) { scalars[op.slot] = r_store(total); }
}

fn slot_get(slot: u32) -> Real { return r_load(scalars[slot]); }
fn slot_set(slot: u32, v: Real) { scalars[slot] = r_store(v); }
fn converged() -> bool { return r_lt(r_from_f32(0.5), slot_get(S_CONVERGED)); }

// After the first <r, r>: remember |r0|^2, reset the counters.
@compute @workgroup_size(1)
fn cg_start() {
    slot_set(S_RR0, slot_get(S_RR));
    slot_set(S_ITERS, r_zero());
    slot_set(S_CONVERGED, r_zero());
}

// alpha = <r, r> / <p, A p>.
@compute @workgroup_size(1)
fn cg_alpha() {
    if (converged()) {
        slot_set(S_ALPHA, r_zero());
    } else {
        slot_set(S_ALPHA, r_div(slot_get(S_RR), slot_get(S_PAP)));
    }
}

// beta = <r', r'> / <r, r>; stop when |r'|^2 <= tol^2 |r0|^2.
@compute @workgroup_size(1)
fn cg_beta() {
    let rr_new = slot_get(S_RR_NEW);
    if (converged()) {
        slot_set(S_BETA, r_zero());
    } else {
        slot_set(S_ITERS, r_add(slot_get(S_ITERS), r_one()));
        if (r_lt(rr_new, r_mul(slot_get(S_TOL2), slot_get(S_RR0))) || !r_lt(r_zero(), rr_new)) {
            slot_set(S_CONVERGED, r_one());
            slot_set(S_BETA, r_zero());
        } else {
            slot_set(S_BETA, r_div(rr_new, slot_get(S_RR)));
        }
    }
    slot_set(S_RR, rr_new);
}
