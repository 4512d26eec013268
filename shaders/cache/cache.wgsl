// Memory-level bandwidth. `sweep_read`: every invocation reads REPS vec4<u32>
// from a buffer of M vec4 (a power of two), stepping by the invocation count
// and wrapping, so the whole set is swept and re-read from whichever cache
// level holds it. `sweep_copy`: the read-write form, dst[j] = src[j] + 1 over
// two halves of the working set (invocations that meet on an element write
// the same value). `shared_read`: the same read loop over workgroup memory.
struct Dims {
    mask: u32,
    threads: u32,
    reps: u32,
}

@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
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
    out[i].x = acc.x + acc.y + acc.z + acc.w;
}

@compute @workgroup_size(WG)
fn sweep_copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= dims.threads) { return; }
    var j = i & dims.mask;
    for (var r = 0u; r < dims.reps; r++) {
        out[j] = data[j] + vec4<u32>(1u);
        j = (j + dims.threads) & dims.mask;
    }
}

// SHARED vec4 (16 bytes each) of workgroup memory, a power of two.
var<workgroup> tile: array<vec4<u32>, SHARED>;

@compute @workgroup_size(WG)
fn shared_read(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    for (var k = lid; k < SHARED; k += WG) {
        tile[k] = data[k];
    }
    workgroupBarrier();
    var acc = vec4<u32>(0u);
    var j = lid;
    for (var r = 0u; r < dims.reps; r++) {
        acc += tile[j];
        j = (j + WG) & (SHARED - 1u);
    }
    let i = linear_id(gid, nwg);
    if (i < dims.threads) {
        out[i].x = acc.x + acc.y + acc.z + acc.w;
    }
}
