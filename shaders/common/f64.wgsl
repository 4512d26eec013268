// Real = native IEEE double precision (needs SHADER_F64).
alias Real = f64;
alias RealStore = f64;
// One complex number as stored: (re, im) interleaved, one 16-byte load.
alias ComplexStore = vec2<f64>;

fn r_load(x: RealStore) -> Real { return x; }
fn r_store(x: Real) -> RealStore { return x; }
fn r_from_f32(x: f32) -> Real { return f64(x); }
fn r_to_f32(x: Real) -> f32 { return f32(x); }
fn r_zero() -> Real { return 0.0lf; }
fn r_one() -> Real { return 1.0lf; }
fn r_add(a: Real, b: Real) -> Real { return a + b; }
fn r_sub(a: Real, b: Real) -> Real { return a - b; }
fn r_mul(a: Real, b: Real) -> Real { return a * b; }
fn r_div(a: Real, b: Real) -> Real { return a / b; }
// 1 / a from an f32 seed y and one third-order Newton step: with
// e = 1 - a y, 1 / a = y (1 + e + e^2 + ...), so y (1 + e + e^2) leaves e^3,
// below 2^-63 for the seed's e < 2^-21. Three dependent FMAs instead of a
// full division's sequence with its special-case path (or the four of two
// plain Newton steps). Requires |a| within f32's normal range (about 1e-38
// to 3e38).
fn r_recip(a: Real) -> Real {
    let y = f64(1.0 / f32(a));
    let e = fma(-a, y, 1.0lf);
    return fma(y, fma(e, e, e), y);
}
fn r_fma(a: Real, b: Real, c: Real) -> Real { return fma(a, b, c); }
fn r_neg(a: Real) -> Real { return -a; }
fn r_abs(a: Real) -> Real { return abs(a); }
fn r_sqrt(a: Real) -> Real { return sqrt(a); }
fn r_lt(a: Real, b: Real) -> bool { return a < b; }
fn r_max(a: Real, b: Real) -> Real { return max(a, b); }
fn r_min(a: Real, b: Real) -> Real { return min(a, b); }
// t where c, else f, without a branch.
fn r_select(f: Real, t: Real, c: bool) -> Real { return select(f, t, c); }

// 16-byte vectors of reals, for kernels that stream memory: one load moves
// RV_LANES reals.
alias RealVec = vec2<f64>;
const RV_LANES: u32 = 2u;
fn rv_get(v: RealVec, k: u32) -> Real { return v[k]; }
fn rv_set(v: ptr<function, RealVec>, k: u32, x: Real) { (*v)[k] = x; }
