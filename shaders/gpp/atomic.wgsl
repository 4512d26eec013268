// GPP pass 1 with the seed's third reduction strategy (composed before
// gpp.wgsl, whose accumulation and workgroup tree it shares): after the tree,
// invocation 0 of each workgroup adds its three complex sums straight into
// achtemp with f32 atomics (SHADER_FLOAT32_ATOMIC), so there is no partials
// array and no finish pass. The host zeroes achtemp before each run. The
// order of the adds is the hardware's: the result is not bit-identical run
// to run, unlike the fixed-order reductions. f32 only: WGSL has no 64-bit
// float atomics.
@group(0) @binding(7) var<storage, read_write> achtemp: array<atomic<f32>>;

// Used by the finish pass, which this reduction does not run; it keeps
// gpp.wgsl's `finish` well-formed.
fn achtemp_store(i: u32, v: Real) {
    atomicStore(&achtemp[i], v);
}

@compute @workgroup_size(WG)
fn main_atomic(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let p = gpp_pair(wid);
    let acc = gpp_accumulate(p.x, p.y, lid);
    let s = Acc3(tree_sum(acc.a0, lid), tree_sum(acc.a1, lid), tree_sum(acc.a2, lid));
    if (lid == 0u) {
        atomicAdd(&achtemp[0], s.a0.re);
        atomicAdd(&achtemp[1], s.a0.im);
        atomicAdd(&achtemp[2], s.a1.re);
        atomicAdd(&achtemp[3], s.a1.im);
        atomicAdd(&achtemp[4], s.a2.re);
        atomicAdd(&achtemp[5], s.a2.im);
    }
}
