// GPP pass 1 with a subgroup step before the workgroup step (composed after
// gpp.wgsl, whose bindings, accumulation and `finish` pass it shares).
//
// The subgroup sum is a butterfly of subgroupShuffleXor on the stored form of
// Real rather than subgroupAdd: subgroupAdd cannot add a df64 pair without
// rounding its high words, and its order is the driver's choice, while the
// butterfly's order is fixed (deterministic) and it works for every prelude.
// A team smaller than a subgroup is summed by the butterfly's first LANES
// lanes' worth of masks (XOR with a mask under LANES stays within an aligned
// block of LANES lanes); a larger one leaves each subgroup's sum in `red`,
// and every invocation adds its team's sums in subgroup order. Both take a
// subgroup's lanes to be consecutive invocations, as every driver lays out a
// 1-D workgroup (were one not to, the sums would mix teams and fail
// validation).
fn sg_shuffle(v: Complex, mask: u32) -> Complex {
    return c_load(subgroupShuffleXor(r_store(v.re), mask), subgroupShuffleXor(r_store(v.im), mask));
}

fn sg_sum(v: Complex, lid: u32, sg_size: u32) -> Complex {
    let width = min(sg_size, LANES);
    var x = v;
    for (var mask = width / 2u; mask > 0u; mask >>= 1u) {
        x = c_add(x, sg_shuffle(x, mask));
    }
    if (lid % width == 0u) {
        red[lid / width] = x;
    }
    workgroupBarrier();
    let per_team = LANES / width;
    let first = lid / LANES * per_team;
    var total = red[first];
    for (var s = first + 1u; s < first + per_team; s++) {
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
    @builtin(subgroup_size) sg_size: u32,
) {
    let lane = lid % LANES;
    let p = gpp_pair(wid, lid / LANES);
    let acc = gpp_team_sums(p, lane);
    let s = Acc3(sg_sum(acc.a0, lid, sg_size), sg_sum(acc.a1, lid, sg_size), sg_sum(acc.a2, lid, sg_size));
    if (lane == 0u && gpp_has_band(p.x)) {
        gpp_store_partial(p.x * dims.ngpown + p.y, s);
    }
}
