// A and C in the array-of-structs layouts (aos-milc, aos): a complex element
// is an adjacent (re, im) pair, so it loads and stores as one vector (one
// 8-byte access in f32 instead of two 4-byte ones). SITE_STRIDE is even.
@group(0) @binding(0) var<storage, read> a: array<ComplexStore>;
@group(0) @binding(2) var<storage, read_write> c: array<ComplexStore>;

// Index in A or C of complex element e (link * 9 + row * 3 + col) of site s.
fn at(s: u32, e: u32) -> u32 {
    return s * (SITE_STRIDE / 2u) + e;
}

fn load_a(s: u32, e: u32) -> Complex {
    return c_unpack(a[at(s, e)]);
}

fn store_c(s: u32, e: u32, v: Complex) {
    c[at(s, e)] = c_pack(v);
}
