// BabelStream's kernels over Real, moving one StreamVec (SV_LANES reals) per
// load: a 16-byte vector or a single real, as the `load` parameter picks
// (stream/load_vector.wgsl, stream/load_real.wgsl). Each invocation handles
// EPI of them spaced by the total invocation count, so consecutive
// invocations touch consecutive ones (coalesced) whatever EPI is. dims.n
// counts StreamVecs.
struct Dims {
    n: u32,
    threads: u32,
}

@group(0) @binding(0) var<storage, read_write> a: array<StreamVec>;
@group(0) @binding(1) var<storage, read_write> b: array<StreamVec>;
@group(0) @binding(2) var<storage, read_write> c: array<StreamVec>;
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
            var out: StreamVec;
            for (var l = 0u; l < SV_LANES; l++) { sv_set(&out, l, r_mul(s, sv_get(cv, l))); }
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
            var out: StreamVec;
            for (var l = 0u; l < SV_LANES; l++) { sv_set(&out, l, r_add(sv_get(av, l), sv_get(bv, l))); }
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
            var out: StreamVec;
            for (var l = 0u; l < SV_LANES; l++) { sv_set(&out, l, r_fma(s, sv_get(cv, l), sv_get(bv, l))); }
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
            var out: StreamVec;
            for (var l = 0u; l < SV_LANES; l++) {
                sv_set(&out, l, r_add(sv_get(av, l), r_fma(s, sv_get(cv, l), sv_get(bv, l))));
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
            for (var l = 0u; l < SV_LANES; l++) { acc = r_fma(sv_get(av, l), sv_get(bv, l), acc); }
        }
    }
    let total = reduce_sum(acc, lid);
    if (lid == 0u) { partial[linear_group(wid, nwg)] = r_store(total); }
}
