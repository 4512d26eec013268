// su3_bench: C[s].link[l] = A[s].link[l] * B[l] for every lattice site s and
// link l, each link a 3x3 complex matrix. One source for every thread mapping
// (one entry point each) and every data layout: the host injects
//   WG           workgroup size
//   SITES        lattice sites (L^4)
//   LAYOUT       0 = aos-milc, 1 = aos, 2 = soa (decides the thread order)
//   SITE_STRIDE  reals from one site to the next (80, 72, or 1 in soa)
//   COMP_STRIDE  reals from one of a site's 72 components to the next (1, or SITES in soa)
// and one of two includes binds A and C and says where element e of site s
// is: pairs.wgsl for the array-of-structs layouts, whose (re, im) pairs are
// adjacent and load as one vector, split.wgsl for soa, whose parts are
// SITES apart. Either way the index is a multiply-add of constants with no
// branch. B and the products every mapping shares are in products.wgsl
// (vector.wgsl's row-vector mapping shares them too).

const SOA: u32 = 2u;

// Splits invocation t into (site, sub-index < per_site). In soa the site
// varies fastest, so neighbouring invocations read neighbouring reals of
// each component array; in the array-of-structs layouts the sub-index varies
// fastest, so neighbouring invocations stay inside one site's struct.
fn split(t: u32, per_site: u32) -> vec2<u32> {
    if (LAYOUT == SOA) {
        return vec2<u32>(t % SITES, t / SITES);
    }
    return vec2<u32>(t / per_site, t % per_site);
}

// The three outputs of row r of link l of site s. Each element of A is
// loaded once. No private arrays: an indexed array of complex values went
// to local memory for f64 on NVIDIA's compiler (su3 site/link f64 at half
// of the element mapping), whereas named values stay in registers. Every
// load comes before the first store here and in the mappings below: the
// compiler cannot tell that C is not A or B, so a load after a store
// would wait for it.
fn row_product(s: u32, l: u32, r: u32) {
    let first = l * 9u + 3u * r;
    let a0 = load_a(s, first);
    let a1 = load_a(s, first + 1u);
    let a2 = load_a(s, first + 2u);
    let v0 = times_b(a0, a1, a2, first);
    let v1 = times_b(a0, a1, a2, first + 1u);
    let v2 = times_b(a0, a1, a2, first + 2u);
    store_c(s, first, v0);
    store_c(s, first + 1u, v1);
    store_c(s, first + 2u, v2);
}

// All nine outputs of link l of site s, a row at a time.
fn link_product(s: u32, l: u32) {
    for (var r = 0u; r < 3u; r++) {
        row_product(s, l, r);
    }
}

// Mapping `site`: one invocation computes all 4 links (36 outputs) of a site.
@compute @workgroup_size(WG)
fn site(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(gid, nwg);
    if (s >= SITES) { return; }
    for (var l = 0u; l < 4u; l++) {
        link_product(s, l);
    }
}

// Mapping `link`: one invocation per link (9 outputs).
@compute @workgroup_size(WG)
fn link(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_id(gid, nwg);
    if (t >= SITES * 4u) { return; }
    let sl = split(t, 4u);
    link_product(sl.x, sl.y);
}

// Mapping `row`: one invocation per row of a link (3 outputs, 12 per site).
@compute @workgroup_size(WG)
fn row(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_id(gid, nwg);
    if (t >= SITES * 12u) { return; }
    let sq = split(t, 12u);
    row_product(sq.x, sq.y / 3u, sq.y % 3u);
}

// Output element se.y of site se.x (a pair `split` made).
fn element_value(se: vec2<u32>) -> Complex {
    let row0 = se.y - se.y % 3u;  // link * 9 + row * 3
    return times_b(load_a(se.x, row0), load_a(se.x, row0 + 1u), load_a(se.x, row0 + 2u), se.y);
}

// Mapping `element`: one invocation per output complex element (36 per site).
@compute @workgroup_size(WG)
fn element(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_id(gid, nwg);
    if (t >= SITES * 36u) { return; }
    let se = split(t, 36u);
    store_c(se.x, se.y, element_value(se));
}

// Mapping `pair`: one invocation per two output elements, the same element
// in each half of the lattice. The two are independent, so their loads are
// in flight together: twice the bytes in flight per invocation where one
// element's 8 bytes (f32) leave the memory system waiting.
@compute @workgroup_size(WG)
fn pair(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_id(gid, nwg);
    let half = SITES * 18u;
    if (t >= half) { return; }
    let first = split(t, 36u);
    let second = split(t + half, 36u);
    let v = element_value(first);
    let w = element_value(second);
    store_c(first.x, first.y, v);
    store_c(second.x, second.y, w);
}
