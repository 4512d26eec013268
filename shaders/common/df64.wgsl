// Real = double-word ("df64"): the unevaluated sum hi + lo of two f32, about 48
// significant bits. Algorithms and error bounds follow Joldes, Muller & Popescu,
// "Tight and rigorous error bounds for basic building blocks of double-word
// arithmetic" (ACM TOMS 2017): add 3u^2, mul 5u^2 (u = 2^-24); r_fma and
// r_recip below state their own.
//
// The adapter's self-test picks the formulation. On Vulkan it first tries the
// module compiled to SPIR-V with every float operation decorated
// NoContraction (core/src/precise.rs), which keeps the arithmetic as written
// at no cost. Two injected switches cover the rest:
// DF64_FMA selects a fused fma() for TwoProd, else Veltkamp/Dekker splitting;
// DF64_GUARD routes every intermediate value through an integer XOR with a
// runtime zero (df64_guard.x, bound by the runtime in group 1). Drivers whose
// compilers treat float arithmetic as reassociable (Mesa's NIR and LLVM do,
// since naga emits no NoContraction) otherwise fold (a + b) - a into b, or
// distribute a guard multiplication by 1 and drop the rounding, erasing the
// error terms; float algebra cannot see through an integer operation on an
// unknown operand. The XOR changes no bit, only what the optimiser can prove.
struct Real { hi: f32, lo: f32 }
alias RealStore = vec2<f32>;

@group(1) @binding(0) var<uniform> df64_guard: vec4<u32>;

fn df_g(x: f32) -> f32 {
    if (DF64_GUARD) { return bitcast<f32>(bitcast<u32>(x) ^ df64_guard.x); }
    return x;
}

fn r_load(x: RealStore) -> Real { return Real(x.x, x.y); }
fn r_store(x: Real) -> RealStore { return vec2<f32>(x.hi, x.lo); }
fn r_from_f32(x: f32) -> Real { return Real(x, 0.0); }
fn r_to_f32(x: Real) -> f32 { return x.hi + x.lo; }
fn r_zero() -> Real { return Real(0.0, 0.0); }
fn r_one() -> Real { return Real(1.0, 0.0); }

// Error-free transforms. Each returns (rounded result, exact error).
fn df_two_sum(a: f32, b: f32) -> Real {
    let s = df_g(a + b);
    let bb = df_g(s - a);
    let e = df_g(a - df_g(s - bb)) + df_g(b - bb);
    return Real(s, e);
}

// Exact only when |a| >= |b| or a == 0.
fn df_fast_two_sum(a: f32, b: f32) -> Real {
    let s = df_g(a + b);
    let e = b - df_g(s - a);
    return Real(s, e);
}

fn df_split(a: f32) -> vec2<f32> {
    // 4097 = 2^12 + 1 splits a 24-bit significand into two 12-bit halves.
    let c = df_g(4097.0 * a);
    let hi = df_g(c - df_g(c - a));
    return vec2<f32>(hi, a - hi);
}

fn df_two_prod(a: f32, b: f32) -> Real {
    let p = df_g(a * b);
    if (DF64_FMA) {
        return Real(p, fma(a, b, -p));
    }
    let sa = df_split(a);
    let sb = df_split(b);
    let e1 = df_g(df_g(sa.x * sb.x) - p);
    let e2 = df_g(e1 + df_g(sa.x * sb.y));
    let e3 = df_g(e2 + df_g(sa.y * sb.x));
    let e = e3 + df_g(sa.y * sb.y);
    return Real(p, e);
}

fn r_add(x: Real, y: Real) -> Real {
    let s = df_two_sum(x.hi, y.hi);
    let t = df_two_sum(x.lo, y.lo);
    let v = df_fast_two_sum(s.hi, s.lo + t.hi);
    return df_fast_two_sum(v.hi, t.lo + v.lo);
}

fn r_neg(a: Real) -> Real { return Real(-a.hi, -a.lo); }
fn r_sub(a: Real, b: Real) -> Real { return r_add(a, r_neg(b)); }

// The cross terms x.lo y.hi + x.hi y.lo of a double-word product (x.lo y.lo
// is below the result's last bit).
fn df_cross(x: Real, y: Real) -> f32 {
    if (DF64_FMA) {
        return fma(x.lo, y.hi, x.hi * y.lo);
    }
    return x.lo * y.hi + x.hi * y.lo;
}

fn r_mul(x: Real, y: Real) -> Real {
    let c = df_two_prod(x.hi, y.hi);
    return df_fast_two_sum(c.hi, c.lo + df_cross(x, y));
}

// Long division with two correction steps: each quotient digit is an f32
// division (up to 2.5 ulp on Vulkan), the remainders are exact, so the
// result keeps the double-word accuracy.
fn r_div(x: Real, y: Real) -> Real {
    let q1 = x.hi / y.hi;
    let r1 = r_sub(x, r_mul(y, Real(q1, 0.0)));
    let q2 = r1.hi / y.hi;
    let r2 = r_sub(r1, r_mul(y, Real(q2, 0.0)));
    let q3 = r2.hi / y.hi;
    let q = df_fast_two_sum(q1, q2);
    return r_add(q, Real(q3, 0.0));
}

// One Newton step from the f32 reciprocal y0: with e = 1 - x y0 (its
// leading part exact through TwoProd), 1/x = y0 (1 + e + e^2 + ...). Keeping
// e^2 makes the truncation third order in the seed's error, so even Vulkan's
// 2.5-ulp f32 division leaves only the few u^2 of rounding in e; one
// division and ~12 operations against long division's three and ~70.
fn r_recip(x: Real) -> Real {
    let y0 = 1.0 / x.hi;
    let p = df_two_prod(x.hi, y0);
    let e = df_g(df_g(df_g(1.0 - p.hi) - p.lo) - df_g(x.lo * y0));
    return df_fast_two_sum(y0, y0 * df_g(e * e + e));
}

// a b + c fused: TwoProd of the high parts, the cross terms and c's low part
// folded into the low word, and one TwoSum with c.hi: ~16 operations against
// 28 for r_add(r_mul(a, b), c). Summing its roundings bounds its absolute
// error by 13 u^2 |a b| + 3 u^2 |c|, the bound every sum of products needs;
// like f64's unfused a * b + c it has no relative bound when a b + c cancels.
fn r_fma(a: Real, b: Real, c: Real) -> Real {
    let p = df_two_prod(a.hi, b.hi);
    let s = df_two_sum(p.hi, c.hi);
    let lo = df_g(df_g(df_g(p.lo + df_cross(a, b)) + c.lo) + s.lo);
    return df_fast_two_sum(s.hi, lo);
}

fn r_abs(a: Real) -> Real {
    if (a.hi < 0.0) { return r_neg(a); }
    return a;
}

// One Newton step on the f32 root, with the residual x - s^2 taken exactly.
fn r_sqrt(x: Real) -> Real {
    if (x.hi <= 0.0) { return Real(sqrt(x.hi), 0.0); }
    let s = sqrt(x.hi);
    let p = df_two_prod(s, s);
    let r = df_g(df_g(x.hi - p.hi) - p.lo) + x.lo;
    return df_fast_two_sum(s, r / (2.0 * s));
}

fn r_lt(a: Real, b: Real) -> bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
fn r_max(a: Real, b: Real) -> Real { if (r_lt(a, b)) { return b; } return a; }
fn r_min(a: Real, b: Real) -> Real { if (r_lt(b, a)) { return b; } return a; }

// 16-byte vectors of reals, for kernels that stream memory: one load moves
// RV_LANES reals, laid out as consecutive (hi, lo) pairs like RealStore.
alias RealVec = vec4<f32>;
const RV_LANES: u32 = 2u;
fn rv_get(v: RealVec, k: u32) -> Real { return Real(v[2u * k], v[2u * k + 1u]); }
fn rv_set(v: ptr<function, RealVec>, k: u32, x: Real) {
    (*v)[2u * k] = x.hi;
    (*v)[2u * k + 1u] = x.lo;
}
