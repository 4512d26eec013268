// BabelStream's kernels over Real. Each invocation handles EPI elements
// spaced by the total invocation count, so consecutive invocations touch
// consecutive elements (coalesced) whatever EPI is.
struct Dims {
    n: u32,
    threads: u32,
}

@group(0) @binding(0) var<storage, read_write> a: array<RealStore>;
@group(0) @binding(1) var<storage, read_write> b: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> c: array<RealStore>;
@group(0) @binding(3) var<storage, read> scalars: array<RealStore>;
@group(0) @binding(4) var<uniform> dims: Dims;
@group(0) @binding(5) var<storage, read_write> partial: array<RealStore>;

@compute @workgroup_size(WG)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) { c[i] = a[i]; }
    }
}

@compute @workgroup_size(WG)
fn mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = r_load(scalars[0]);
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) { b[i] = r_store(r_mul(s, r_load(c[i]))); }
    }
}

@compute @workgroup_size(WG)
fn add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) { c[i] = r_store(r_add(r_load(a[i]), r_load(b[i]))); }
    }
}

@compute @workgroup_size(WG)
fn triad(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = r_load(scalars[0]);
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) { a[i] = r_store(r_fma(s, r_load(c[i]), r_load(b[i]))); }
    }
}

@compute @workgroup_size(WG)
fn nstream(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = r_load(scalars[0]);
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) {
            a[i] = r_store(r_add(r_load(a[i]), r_fma(s, r_load(c[i]), r_load(b[i]))));
        }
    }
}

var<workgroup> wsum: array<Real, WG>;

// One partial sum per workgroup (tree reduction); the host adds the partials,
// as BabelStream does.
@compute @workgroup_size(WG)
fn dot(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let base = linear_id(gid, nwg);
    var acc = r_zero();
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) { acc = r_fma(r_load(a[i]), r_load(b[i]), acc); }
    }
    wsum[lid] = acc;
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        workgroupBarrier();
        if (lid < half) { wsum[lid] = r_add(wsum[lid], wsum[lid + half]); }
    }
    if (lid == 0u) { partial[linear_group(wid, nwg)] = r_store(wsum[0]); }
}
