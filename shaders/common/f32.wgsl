// Real = IEEE single precision. One of three interchangeable preludes: a kernel
// uses only the names below (and single_word.wgsl's, appended to f32 and
// f64), so the same source runs in f32, f64 and df64.
alias Real = f32;
alias RealStore = f32;
// One complex number as stored: (re, im) interleaved, one load.
alias ComplexStore = vec2<f32>;

fn r_load(x: RealStore) -> Real { return x; }
fn r_store(x: Real) -> RealStore { return x; }
fn r_from_f32(x: f32) -> Real { return x; }
fn r_to_f32(x: Real) -> f32 { return x; }
fn r_zero() -> Real { return 0.0; }
fn r_one() -> Real { return 1.0; }
fn r_add(a: Real, b: Real) -> Real { return a + b; }
fn r_sub(a: Real, b: Real) -> Real { return a - b; }
fn r_mul(a: Real, b: Real) -> Real { return a * b; }
fn r_div(a: Real, b: Real) -> Real { return a / b; }
fn r_recip(a: Real) -> Real { return 1.0 / a; }
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
alias RealVec = vec4<f32>;
const RV_LANES: u32 = 4u;
fn rv_get(v: RealVec, k: u32) -> Real { return v[k]; }
fn rv_set(v: ptr<function, RealVec>, k: u32, x: Real) { (*v)[k] = x; }
