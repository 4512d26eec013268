// Appended to the f32 and f64 preludes: what they share. A single word is
// always normalised and rounds each operation once, so the df64 prelude's
// cheaper forms are the plain operations here; c_unpack (last) reads a
// ComplexStore, whose type each prelude defines.
fn r_norm(a: Real) -> Real { return a; }
fn r_mul_raw(a: Real, b: Real) -> Real { return a * b; }
fn r_fma_raw(a: Real, b: Real, c: Real) -> Real { return fma(a, b, c); }
fn r_sq_add_raw(a: Real, c: Real) -> Real { return fma(a, a, c); }
fn r_recip_raw(a: Real) -> Real { return r_recip(a); }
fn r_sub_sloppy_raw(a: Real, b: Real) -> Real { return a - b; }
// Several reciprocals are cheaper as one reciprocal of their product and a
// few products (Montgomery's trick): a reciprocal costs more than five products.
const R_BATCH_RECIP: bool = true;
fn c_unpack(v: ComplexStore) -> Complex { return Complex(v.x, v.y); }
