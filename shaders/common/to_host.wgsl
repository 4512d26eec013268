// Copies `src` into `dst` across PCIe, 16 bytes a load and a store: packed
// halo planes from device memory into a storage buffer in host memory (a
// readback the host maps, or a neighbour's mailbox), or arrived planes from
// this rank's mailbox into device memory. Dispatched from a few workgroups (the host injects WG), so the
// work recorded after it in the same pass keeps the rest of the GPU: each
// invocation loads UNROLL vec4s before storing any, which keeps enough
// bytes in flight for the bus with so few invocations.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

const UNROLL: u32 = 4u;

@compute @workgroup_size(WG)
fn to_host(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let stride = nwg.x * WG;
    let n = arrayLength(&dst);
    var v: array<vec4<u32>, UNROLL>;
    for (var base = gid.x; base < n; base += UNROLL * stride) {
        for (var u = 0u; u < UNROLL; u++) {
            let i = base + u * stride;
            if (i < n) { v[u] = src[i]; }
        }
        for (var u = 0u; u < UNROLL; u++) {
            let i = base + u * stride;
            if (i < n) { dst[i] = v[u]; }
        }
    }
}
