// BabelStream's kernels over Real, moving 16 bytes per load (RealVec, RV_LANES
// reals). Each invocation handles EPI vectors spaced by the total invocation
// count, so consecutive invocations touch consecutive vectors (coalesced)
// whatever EPI is. dims.n counts vectors.
struct Dims {
    n: u32,
    threads: u32,
}

@group(0) @binding(0) var<storage, read_write> a: array<RealVec>;
@group(0) @binding(1) var<storage, read_write> b: array<RealVec>;
@group(0) @binding(2) var<storage, read_write> c: array<RealVec>;
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
        if (i < dims.n) {
            let cv = c[i];
            var out: RealVec;
            for (var l = 0u; l < RV_LANES; l++) { rv_set(&out, l, r_mul(s, rv_get(cv, l))); }
            b[i] = out;
        }
    }
}

@compute @workgroup_size(WG)
fn add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) {
            let av = a[i];
            let bv = b[i];
            var out: RealVec;
            for (var l = 0u; l < RV_LANES; l++) { rv_set(&out, l, r_add(rv_get(av, l), rv_get(bv, l))); }
            c[i] = out;
        }
    }
}

@compute @workgroup_size(WG)
fn triad(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = r_load(scalars[0]);
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) {
            let bv = b[i];
            let cv = c[i];
            var out: RealVec;
            for (var l = 0u; l < RV_LANES; l++) { rv_set(&out, l, r_fma(s, rv_get(cv, l), rv_get(bv, l))); }
            a[i] = out;
        }
    }
}

@compute @workgroup_size(WG)
fn nstream(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = r_load(scalars[0]);
    let base = linear_id(gid, nwg);
    for (var k = 0u; k < EPI; k++) {
        let i = base + k * dims.threads;
        if (i < dims.n) {
            let av = a[i];
            let bv = b[i];
            let cv = c[i];
            var out: RealVec;
            for (var l = 0u; l < RV_LANES; l++) {
                rv_set(&out, l, r_add(rv_get(av, l), r_fma(s, rv_get(cv, l), rv_get(bv, l))));
            }
            a[i] = out;
        }
    }
}

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
        if (i < dims.n) {
            let av = a[i];
            let bv = b[i];
            for (var l = 0u; l < RV_LANES; l++) { acc = r_fma(rv_get(av, l), rv_get(bv, l), acc); }
        }
    }
    let total = reduce_sum(acc, lid);
    if (lid == 0u) { partial[linear_group(wid, nwg)] = r_store(total); }
}
