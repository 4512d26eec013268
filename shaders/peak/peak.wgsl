// Compute ceilings. `fma`: CHAINS independent recurrences x <- x * a + b per
// invocation, ITERS steps each, so the FMA units always have independent work.
// The host generates `fma_chains_run` with one named variable per chain: an
// array indexed in a loop ended up in local memory for f64 on one driver.
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
    out[i] = r_store(fma_chains_run(r_load(x0[i]), a, b));
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
