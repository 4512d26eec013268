// Colour and spin algebra of the Wilson-Dirac kernels, and the lattice
// geometry. Values are named struct fields, never indexed private arrays, so
// they stay in registers. The host injects LX (x and y extent), LZ (z
// extent: LX on one device) and LT (time extent); sites are
// x + LX (y + LX (z + LZ t)).
struct Vec3 { c0: Complex, c1: Complex, c2: Complex }
struct Half { h0: Vec3, h1: Vec3 }
struct Spinor { s0: Vec3, s1: Vec3, s2: Vec3, s3: Vec3 }
struct Mat3 { r0: Vec3, r1: Vec3, r2: Vec3 }

fn v_zero() -> Vec3 { return Vec3(c_zero(), c_zero(), c_zero()); }
fn v_add(a: Vec3, b: Vec3) -> Vec3 { return Vec3(c_add(a.c0, b.c0), c_add(a.c1, b.c1), c_add(a.c2, b.c2)); }
fn v_sub(a: Vec3, b: Vec3) -> Vec3 { return Vec3(c_sub(a.c0, b.c0), c_sub(a.c1, b.c1), c_sub(a.c2, b.c2)); }
// i z: a swap and a sign, no arithmetic.
fn c_times_i(z: Complex) -> Complex { return Complex(r_neg(z.im), z.re); }
fn v_i(a: Vec3) -> Vec3 { return Vec3(c_times_i(a.c0), c_times_i(a.c1), c_times_i(a.c2)); }
fn spinor_zero() -> Spinor { return Spinor(v_zero(), v_zero(), v_zero(), v_zero()); }

// s x + y, real by real (M's multiply-add, the same fma per real as axpy.wgsl).
fn c_axpy(s: Real, x: Complex, y: Complex) -> Complex { return Complex(r_fma(s, x.re, y.re), r_fma(s, x.im, y.im)); }
fn v_axpy(s: Real, x: Vec3, y: Vec3) -> Vec3 { return Vec3(c_axpy(s, x.c0, y.c0), c_axpy(s, x.c1, y.c1), c_axpy(s, x.c2, y.c2)); }
fn spinor_axpy(s: Real, x: Spinor, y: Spinor) -> Spinor {
    return Spinor(v_axpy(s, x.s0, y.s0), v_axpy(s, x.s1, y.s1), v_axpy(s, x.s2, y.s2), v_axpy(s, x.s3, y.s3));
}
// acc + |v|^2, one fma per real in component order (as dot.wgsl adds a site).
fn c_norm2_add(z: Complex, acc: Real) -> Real { return r_fma(z.im, z.im, r_fma(z.re, z.re, acc)); }
fn v_norm2_add(v: Vec3, acc: Real) -> Real { return c_norm2_add(v.c2, c_norm2_add(v.c1, c_norm2_add(v.c0, acc))); }
fn spinor_norm2_add(s: Spinor, acc: Real) -> Real {
    return v_norm2_add(s.s3, v_norm2_add(s.s2, v_norm2_add(s.s1, v_norm2_add(s.s0, acc))));
}

// conj(a) b + c.
fn c_cfma(a: Complex, b: Complex, c: Complex) -> Complex {
    let re = r_fma(a.re, b.re, r_fma(a.im, b.im, c.re));
    let im = r_fma(a.re, b.im, r_fma(r_neg(a.im), b.re, c.im));
    return Complex(re, im);
}

fn row_dot(r: Vec3, v: Vec3) -> Complex { return c_fma(r.c2, v.c2, c_fma(r.c1, v.c1, c_mul(r.c0, v.c0))); }
fn mat_vec(m: Mat3, v: Vec3) -> Vec3 { return Vec3(row_dot(m.r0, v), row_dot(m.r1, v), row_dot(m.r2, v)); }

// U^dagger v: component i is sum_k conj(U_ki) v_k.
fn adj_mat_vec(m: Mat3, v: Vec3) -> Vec3 {
    return Vec3(
        c_cfma(m.r2.c0, v.c2, c_cfma(m.r1.c0, v.c1, c_mul(c_conj(m.r0.c0), v.c0))),
        c_cfma(m.r2.c1, v.c2, c_cfma(m.r1.c1, v.c1, c_mul(c_conj(m.r0.c1), v.c0))),
        c_cfma(m.r2.c2, v.c2, c_cfma(m.r1.c2, v.c1, c_mul(c_conj(m.r0.c2), v.c0))),
    );
}

// conj(a b - c d).
fn c_conj_cross(a: Complex, b: Complex, c: Complex, d: Complex) -> Complex { return c_conj(c_fma(a, b, c_neg(c_mul(c, d)))); }
// The third row of an SU(3) matrix from its first two, conj(r0 x r1): the
// link accessors rebuild it where the links are stored as two rows
// (`reconstruct=12`, core's milc/links.rs).
fn su3_third_row(r0: Vec3, r1: Vec3) -> Vec3 {
    return Vec3(c_conj_cross(r0.c1, r1.c2, r0.c2, r1.c1), c_conj_cross(r0.c2, r1.c0, r0.c0, r1.c2), c_conj_cross(r0.c0, r1.c1, r0.c1, r1.c0));
}

fn half_mat_vec(m: Mat3, h: Half) -> Half { return Half(mat_vec(m, h.h0), mat_vec(m, h.h1)); }
fn half_adj_mat_vec(m: Mat3, h: Half) -> Half { return Half(adj_mat_vec(m, h.h0), adj_mat_vec(m, h.h1)); }

// The site one step forward (or back) along mu, periodic.
fn neighbour(site: u32, mu: u32, forward: bool) -> u32 {
    let stride = select(select(select(LX * LX * LZ, LX * LX, mu == 2u), LX, mu == 1u), 1u, mu == 0u);
    let extent = select(select(LX, LZ, mu == 2u), LT, mu == 3u);
    // Along t (the slowest axis) the quotient is the slice already; the
    // modulo is a multiply-high where a rank's padded T is no power of two.
    let c = select((site / stride) % extent, site / stride, mu == 3u);
    if (forward) {
        return select(site + stride, site - c * stride, c + 1u == extent);
    }
    return select(site - stride, site + (extent - 1u) * stride, c == 0u);
}
