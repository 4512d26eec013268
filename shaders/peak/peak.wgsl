// Compute ceilings. `fma`: CHAINS independent recurrences x <- x * a + b per
// invocation, ITERS steps each, so the FMA units always have independent work.
// `mix`: one recurrence of INTENSITY steps per element read and written (the
// mixbench-style arithmetic-intensity sweep). a and b come from a buffer so the
// compiler cannot fold the chains.
struct Dims {
    n: u32,
    threads: u32,
}

@group(0) @binding(0) var<storage, read> x0: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> out: array<RealStore>;
@group(0) @binding(2) var<storage, read> coef: array<RealStore>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn fma_chains(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= dims.n) { return; }
    let a = r_load(coef[0]);
    let b = r_load(coef[1]);
    let s = r_load(x0[i]);
    var x: array<Real, CHAINS>;
    for (var c = 0u; c < CHAINS; c++) {
        x[c] = r_add(s, r_from_f32(f32(c) * 0.0625));
    }
    for (var it = 0u; it < ITERS; it++) {
        for (var c = 0u; c < CHAINS; c++) {
            x[c] = r_fma(x[c], a, b);
        }
    }
    var sum = x[0];
    for (var c = 1u; c < CHAINS; c++) {
        sum = r_add(sum, x[c]);
    }
    out[i] = r_store(sum);
}

@compute @workgroup_size(WG)
fn mix(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= dims.n) { return; }
    let a = r_load(coef[0]);
    let b = r_load(coef[1]);
    var v = r_load(x0[i]);
    for (var k = 0u; k < INTENSITY; k++) {
        v = r_fma(v, a, b);
    }
    out[i] = r_store(v);
}
