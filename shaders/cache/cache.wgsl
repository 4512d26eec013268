// Memory-level bandwidth. `sweep_read`: each workgroup reads a window of
// REPS x WG vec4<u32> from a buffer of M vec4 (a power of two), wrapping,
// its invocations side by side, from a start `stride` elements past the
// previous workgroup's. A set smaller than the window is re-read whole by
// every workgroup (so by every compute unit: it stays in the nearest cache
// that holds it); a larger one is spread over the workgroups and read from
// the level that holds it all. `sweep_copy`: the read-write form, dst[j] =
// src[j] + 1 over two halves of the working set (invocations that meet on
// an element write the same value). `shared_read`: the read loop over
// workgroup memory.
struct Dims {
    mask: u32,
    threads: u32,
    reps: u32,
    stride: u32,
}

@group(0) @binding(0) var<storage, read> data: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> dims: Dims;

// Where invocation `lid` of workgroup `wid` starts: its workgroup's window
// start plus its place in the workgroup, wrapped into the set.
fn window_start(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (linear_group(wid, nwg) * dims.stride + lid) & dims.mask;
}

@compute @workgroup_size(WG)
fn sweep_read(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(gid, nwg);
    if (i >= dims.threads) { return; }
    var acc = vec4<u32>(0u);
    var j = window_start(wid, nwg, lid);
    for (var r = 0u; r < dims.reps; r++) {
        acc += data[j];
        j = (j + WG) & dims.mask;
    }
    out[i].x = acc.x + acc.y + acc.z + acc.w;
}

@compute @workgroup_size(WG)
fn sweep_copy(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(gid, nwg);
    if (i >= dims.threads) { return; }
    var j = window_start(wid, nwg, lid);
    for (var r = 0u; r < dims.reps; r++) {
        out[j] = data[j] + vec4<u32>(1u);
        j = (j + WG) & dims.mask;
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
