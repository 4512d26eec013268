// Scalar multiply-add on spinor fields, out = y + s x, where s is a scalar
// the GPU holds (-kappa for M, CG's alpha or beta): scalars[op.slot],
// negated when op.negate is set. Every real of a site is independent, so
// the loop runs over the layout's slots of the site's 24 reals.
// `axpy_norm` also leaves one partial of |out|^2 per workgroup for
// cg.wgsl's `finish` (CG's r' = r - alpha A p with |r'|^2, and M after a
// split Dslash with |M p|^2), so no dot pass re-reads `out`. Each kernel
// covers the sites of its part (part_site: a rank's own, whose halos hold
// its neighbours' sites; every site on one device).
const SPINOR: u32 = 24u;

struct Op { slot: u32, negate: u32, pad0: u32, pad1: u32 }


// out = y + s x at one site; returns acc + the site's |out|^2 (`axpy`
// drops it, and with it the compiler drops the squares).
fn axpy_at(site: u32, s: Real, acc: Real) -> Real {
    var a = acc;
    for (var k = 0u; k < SPINOR; k++) {
        let o = r_fma(s, r_load(x_ld(site, k)), r_load(y_ld(site, k)));
        out_st(site, k, r_store(o));
        a = r_fma(o, o, a);
    }
    return a;
}

fn op_scalar() -> Real {
    let s = r_load(scalars[op.slot]);
    if (op.negate != 0u) { return r_neg(s); }
    return s;
}

@compute @workgroup_size(WG)
fn axpy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = op_scalar();
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) { _ = axpy_at(part_site(first + v), s, r_zero()); }
    }
}

@compute @workgroup_size(WG)
fn axpy_norm(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let s = op_scalar();
    let first = linear_id(gid, nwg) * VVL;
    var acc = r_zero();
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) { acc = axpy_at(part_site(first + v), s, acc); }
    }
    // Every invocation reaches the reduction (its barriers need the whole workgroup).
    let total = reduce_sum(acc, lid);
    if (lid == 0u) { partial[linear_group(wid, nwg)] = r_store(total); }
}

// out = 0 (CG's starting guess).
@compute @workgroup_size(WG)
fn zero(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) {
            let site = part_site(first + v);
            for (var k = 0u; k < SPINOR; k++) { out_st(site, k, r_store(r_zero())); }
        }
    }
}
