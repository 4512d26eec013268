// Complex numbers over whichever Real prelude precedes this file.
struct Complex { re: Real, im: Real }

fn c_new(re: Real, im: Real) -> Complex { return Complex(re, im); }
fn c_zero() -> Complex { return Complex(r_zero(), r_zero()); }
fn c_load(re: RealStore, im: RealStore) -> Complex { return Complex(r_load(re), r_load(im)); }
fn c_pack(v: Complex) -> ComplexStore { return ComplexStore(r_store(v.re), r_store(v.im)); }
fn c_add(a: Complex, b: Complex) -> Complex { return Complex(r_add(a.re, b.re), r_add(a.im, b.im)); }
fn c_sub(a: Complex, b: Complex) -> Complex { return Complex(r_sub(a.re, b.re), r_sub(a.im, b.im)); }
fn c_neg(a: Complex) -> Complex { return Complex(r_neg(a.re), r_neg(a.im)); }
fn c_conj(a: Complex) -> Complex { return Complex(a.re, r_neg(a.im)); }
fn c_scale(a: Complex, s: Real) -> Complex { return Complex(r_mul(a.re, s), r_mul(a.im, s)); }
// a * b with each part possibly unnormalised (see r_fma_raw in df64.wgsl).
fn c_mul_raw(a: Complex, b: Complex) -> Complex {
    return Complex(r_fma_raw(a.re, b.re, r_neg(r_mul_raw(a.im, b.im))), r_fma_raw(a.re, b.im, r_mul_raw(a.im, b.re)));
}
fn c_mul(a: Complex, b: Complex) -> Complex {
    let p = c_mul_raw(a, b);
    return Complex(r_norm(p.re), r_norm(p.im));
}
// a * b + c with four fused multiply-adds: the inner step of every complex dot product.
fn c_fma(a: Complex, b: Complex, c: Complex) -> Complex {
    let re = r_fma(a.re, b.re, r_fma(r_neg(a.im), b.im, c.re));
    let im = r_fma(a.re, b.im, r_fma(a.im, b.re, c.im));
    return Complex(re, im);
}
fn c_abs2(a: Complex) -> Real { return r_fma(a.re, a.re, r_mul(a.im, a.im)); }
fn c_abs(a: Complex) -> Real { return r_sqrt(c_abs2(a)); }
fn c_div(a: Complex, b: Complex) -> Complex {
    let d = c_abs2(b);
    let n = c_mul(a, c_conj(b));
    return Complex(r_div(n.re, d), r_div(n.im, d));
}
