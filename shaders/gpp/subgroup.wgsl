// GPP pass 1 with a subgroup step before the workgroup step (composed after
// gpp.wgsl, whose bindings, accumulation and `finish` pass it shares).
//
// The subgroup sum is a butterfly of subgroupShuffleXor on the stored form of
// Real rather than subgroupAdd: subgroupAdd cannot add a df64 pair without
// rounding its high words, and its order is the driver's choice, while the
// butterfly's order is fixed (deterministic) and it works for every prelude.
// Lane 0 of each subgroup then leaves its sum in `red`, and invocation 0 adds
// the subgroups' sums in subgroup order.
fn sg_shuffle(v: Complex, mask: u32) -> Complex {
    return c_load(subgroupShuffleXor(r_store(v.re), mask), subgroupShuffleXor(r_store(v.im), mask));
}

fn sg_sum(v: Complex, lane: u32, sg_size: u32, sg_id: u32, n_sg: u32) -> Complex {
    var x = v;
    for (var mask = sg_size / 2u; mask > 0u; mask >>= 1u) {
        x = c_add(x, sg_shuffle(x, mask));
    }
    if (lane == 0u) {
        red[sg_id] = x;
    }
    workgroupBarrier();
    var total = red[0];
    for (var s = 1u; s < n_sg; s++) {
        total = c_add(total, red[s]);
    }
    // The next call overwrites `red`.
    workgroupBarrier();
    return total;
}

@compute @workgroup_size(WG)
fn main_sg(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) n_sg: u32,
) {
    let p = gpp_pair(wid);
    let acc = gpp_accumulate(p.x, p.y, lid);
    let s = Acc3(
        sg_sum(acc.a0, lane, sg_size, sg_id, n_sg),
        sg_sum(acc.a1, lane, sg_size, sg_id, n_sg),
        sg_sum(acc.a2, lane, sg_size, sg_id, n_sg),
    );
    if (lid == 0u) {
        gpp_store_partial(p.x * dims.ngpown + p.y, s);
    }
}
