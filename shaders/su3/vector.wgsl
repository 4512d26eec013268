// su3's `row-vector` mapping, soa only: one invocation per row of a link at
// RV_LANES consecutive sites, so every real component of A and C moves as
// one 16-byte vector (the prelude's RealVec: 4 sites in f32, 2 in f64 and
// df64) instead of RV_LANES separate 4- or 8-byte accesses. The host
// injects WG and SITES (a multiple of RV_LANES); products.wgsl gives B and
// the row-times-column product, the same as every other mapping's, so the
// results are bit-identical.
@group(0) @binding(0) var<storage, read> a: array<RealVec>;
@group(0) @binding(2) var<storage, read_write> c: array<RealVec>;

// Vectors in one component's array of SITES reals.
const VECTORS: u32 = SITES / RV_LANES;

// Component `comp` of the sites of vector v, in A and in C.
fn load_av(v: u32, comp: u32) -> RealVec { return a[comp * VECTORS + v]; }
fn store_cv(v: u32, comp: u32, x: RealVec) { c[comp * VECTORS + v] = x; }

// The complex element of lane (site) k, its parts in vectors re and im.
fn lane(re: RealVec, im: RealVec, k: u32) -> Complex { return c_new(rv_get(re, k), rv_get(im, k)); }

@compute @workgroup_size(WG)
fn row_vector(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_id(gid, nwg);
    if (t >= VECTORS * 12u) { return; }
    // Sites vary fastest, as in every soa mapping; link * 9 + row * 3 = 3 q.
    let v = t % VECTORS;
    let first = 3u * (t / VECTORS);
    let a0r = load_av(v, 2u * first);
    let a0i = load_av(v, 2u * first + 1u);
    let a1r = load_av(v, 2u * first + 2u);
    let a1i = load_av(v, 2u * first + 3u);
    let a2r = load_av(v, 2u * first + 4u);
    let a2i = load_av(v, 2u * first + 5u);
    var c0r: RealVec;
    var c0i: RealVec;
    var c1r: RealVec;
    var c1i: RealVec;
    var c2r: RealVec;
    var c2i: RealVec;
    for (var k = 0u; k < RV_LANES; k++) {
        let a0 = lane(a0r, a0i, k);
        let a1 = lane(a1r, a1i, k);
        let a2 = lane(a2r, a2i, k);
        let v0 = times_b(a0, a1, a2, first);
        let v1 = times_b(a0, a1, a2, first + 1u);
        let v2 = times_b(a0, a1, a2, first + 2u);
        rv_set(&c0r, k, v0.re);
        rv_set(&c0i, k, v0.im);
        rv_set(&c1r, k, v1.re);
        rv_set(&c1i, k, v1.im);
        rv_set(&c2r, k, v2.re);
        rv_set(&c2i, k, v2.im);
    }
    store_cv(v, 2u * first, c0r);
    store_cv(v, 2u * first + 1u, c0i);
    store_cv(v, 2u * first + 2u, c1r);
    store_cv(v, 2u * first + 3u, c1i);
    store_cv(v, 2u * first + 4u, c2r);
    store_cv(v, 2u * first + 5u, c2i);
}
