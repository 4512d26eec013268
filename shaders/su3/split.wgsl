// A and C in the soa layout: each real component is its own array of SITES
// reals (COMP_STRIDE apart), so a complex element is two loads, each
// coalesced across neighbouring sites.
@group(0) @binding(0) var<storage, read> a: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> c: array<RealStore>;

// Index in A or C of the real part of complex element e (link * 9 + row * 3 + col) of site s.
fn at(s: u32, e: u32) -> u32 {
    return s * SITE_STRIDE + (2u * e) * COMP_STRIDE;
}

fn load_a(s: u32, e: u32) -> Complex {
    let i = at(s, e);
    return c_load(a[i], a[i + COMP_STRIDE]);
}

fn store_c(s: u32, e: u32, v: Complex) {
    let i = at(s, e);
    c[i] = r_store(v.re);
    c[i + COMP_STRIDE] = r_store(v.im);
}
