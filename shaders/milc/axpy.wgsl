// Scalar multiply-add on spinor fields, out = y + s x, where s is a scalar
// the GPU holds (-kappa for M, CG's alpha or beta): scalars[op.slot],
// negated when op.negate is set. Every real of a site is independent, so
// the loop runs over the layout's slots of the site's 24 reals.
const SPINOR: u32 = 24u;

struct Op { slot: u32, negate: u32, pad0: u32, pad1: u32 }

@group(0) @binding(0) var<storage, read> x: array<RealStore>;
@group(0) @binding(1) var<storage, read> y: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> out: array<RealStore>;
@group(0) @binding(3) var<storage, read> scalars: array<RealStore>;
@group(0) @binding(4) var<uniform> op: Op;

fn axpy_at(site: u32, s: Real) {
    for (var k = 0u; k < SPINOR; k++) {
        let i = tdp_index(site, k, SPINOR);
        out[i] = r_store(r_fma(s, r_load(x[i]), r_load(y[i])));
    }
}

@compute @workgroup_size(WG)
fn axpy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    var s = r_load(scalars[op.slot]);
    if (op.negate != 0u) { s = r_neg(s); }
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < SITES) { axpy_at(first + v, s); }
    }
}

// out = 0 (CG's starting guess).
@compute @workgroup_size(WG)
fn zero(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        let site = first + v;
        if (site < SITES) {
            for (var k = 0u; k < SPINOR; k++) { out[tdp_index(site, k, SPINOR)] = r_store(r_zero()); }
        }
    }
}
