// Deterministic workgroup sum over Real (WG a power of two): a fixed tree,
// so a reduction gives the same bits run after run (WGSL has no float
// atomics, and their order would vary anyway). Every invocation of the
// workgroup must call it once per dispatch; all get the total.
var<workgroup> reduce_buf: array<Real, WG>;

fn reduce_sum(v: Real, lid: u32) -> Real {
    reduce_buf[lid] = v;
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        workgroupBarrier();
        if (lid < half) { reduce_buf[lid] = r_add(reduce_buf[lid], reduce_buf[lid + half]); }
    }
    workgroupBarrier();
    return reduce_buf[0];
}
