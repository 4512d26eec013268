// What every su3 mapping shares (su3.wgsl, vector.wgsl): B, and a row of A
// times a column of B.
//
// Component numbering within a site: link * 18 + row * 6 + col * 2 + (0 = re, 1 = im).
// B holds the 4 matrices in the same numbering (72 reals), in a small
// read-only buffer that every invocation reads and the caches keep.

// B is read as pairs of reals; reading it as complex vectors as well
// (measured on the H100) left the element mapping unchanged and slowed site
// in f32 by 8%.
@group(0) @binding(1) var<storage, read> b: array<RealStore>;

fn load_b(e: u32) -> Complex {
    return c_load(b[2u * e], b[2u * e + 1u]);
}

// One output element: a row of A times a column of B. Every mapping goes
// through here, so all of them produce bit-identical results.
fn dot3(a0: Complex, a1: Complex, a2: Complex, b0: Complex, b1: Complex, b2: Complex) -> Complex {
    return c_fma(a2, b2, c_fma(a1, b1, c_mul(a0, b0)));
}

// Output element e of a site whose row of A is a0, a1, a2: that row times
// column e % 3 of B's link e / 9, read from the tiny, cache-resident B.
fn times_b(a0: Complex, a1: Complex, a2: Complex, e: u32) -> Complex {
    let col = (e / 9u) * 9u + e % 3u;
    return dot3(a0, a1, a2, load_b(col), load_b(col + 3u), load_b(col + 6u));
}
