// Working-set sweep: every invocation reads REPS vec4<u32> from a buffer of M
// vec4 (a power of two), stepping by the invocation count and wrapping, so the
// whole set is swept and re-read from whichever cache level holds it.
struct Dims {
    mask: u32,
    threads: u32,
    reps: u32,
}

@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> dims: Dims;

@compute @workgroup_size(WG)
fn sweep_read(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= dims.threads) { return; }
    var acc = vec4<u32>(0u);
    var j = i & dims.mask;
    for (var r = 0u; r < dims.reps; r++) {
        acc += data[j];
        j = (j + dims.threads) & dims.mask;
    }
    out[i] = acc.x + acc.y + acc.z + acc.w;
}
