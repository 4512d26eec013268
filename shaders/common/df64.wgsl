// Real = double-word ("df64"): the unevaluated sum hi + lo of two f32, about 48
// significant bits. Algorithms and error bounds follow Joldes, Muller & Popescu,
// "Tight and rigorous error bounds for basic building blocks of double-word
// arithmetic" (ACM TOMS 2017): add 3u^2, mul 5u^2 (u = 2^-24); r_fma and
// r_recip below state their own. The range is f32's, narrowed where the
// device flushes f32 subnormals (NVIDIA does): a low word below 2^-126 is
// lost, so magnitudes under about 1e-27 keep fewer bits. The reciprocal is
// tested for 1e-26 to 1e26 (the H200: at most 3.3 u^2 within 1e-27 to 1e27,
// over 2.7e3 u^2 outside).
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
// One complex number as stored: (re.hi, re.lo, im.hi, im.lo), one 16-byte load.
alias ComplexStore = vec4<f32>;
fn c_unpack(v: ComplexStore) -> Complex { return Complex(Real(v.x, v.y), Real(v.z, v.w)); }

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

// a - b with one TwoSum (8 operations against r_sub's 20), left raw (see
// r_mul_raw): the low words are subtracted in plain f32, so the error is
// absolute, at most about 2 u^2 (|a| + |b|), with no relative bound where
// a - b cancels. That is the error the inputs' own last bits already carry
// into a - b, so it is the right form where a difference is consumed as a
// backward-stable quantity: a multiplicand, whose low word then enters
// only through the cross terms, with the same absolute error.
fn r_sub_sloppy_raw(a: Real, b: Real) -> Real {
    let s = df_two_sum(a.hi, -b.hi);
    return Real(s.hi, df_g(s.lo + df_g(a.lo - b.lo)));
}

// c + the cross terms x.lo y.hi + x.hi y.lo of a double-word product
// (x.lo y.lo is below the result's last bit), in two fma: neither needs to
// be fused (an unfused one rounds its product once more, u^2 |xy| here), so
// this holds for both DF64_FMA settings, and it is one operation fewer than
// adding c to the cross terms.
fn df_cross_add(x: Real, y: Real, c: f32) -> f32 {
    return fma(x.lo, y.hi, df_g(fma(x.hi, y.lo, c)));
}

// Renormalises a `_raw` result: |lo| back to at most half an ulp of hi.
fn r_norm(x: Real) -> Real { return df_fast_two_sum(x.hi, x.lo); }

// The `_raw` forms skip the closing renormalisation (three operations): same
// value and error bound, but |lo| may exceed half an ulp of hi (by a few ulps,
// or more where a sum cancels). Such a value is a fine multiplicand or
// addend of the products and r_fma (its lo enters only through the cross
// terms and the low-word sum, so the error stays within the bound relative
// to the uncancelled magnitudes) and a fine argument of r_recip_raw. Pass it
// through r_norm before r_add, a comparison, a store or r_to_f32.
fn r_mul_raw(x: Real, y: Real) -> Real {
    let c = df_two_prod(x.hi, y.hi);
    return Real(c.hi, df_g(df_cross_add(x, y, c.lo)));
}

fn r_mul(x: Real, y: Real) -> Real { return r_norm(r_mul_raw(x, y)); }

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

// One Newton step from the f32 reciprocal y0: with e = 1 - x y0,
// 1/x = y0 (1 + e + e^2 + ...). Keeping e^2 makes the truncation third
// order in the seed's error, so even Vulkan's 2.5-ulp f32 division leaves
// only the few u^2 of rounding in e; one division and 4 operations (7
// without a fused fma) against long division's three and ~70.
// e's leading part 1 - x.hi y0 is exact through TwoProd; a fused fma gives
// it in one operation, exactly when y0 is within an ulp of 1 / x.hi (the
// residual then fits in 24 bits), else rounded once (at most about 2 u^2
// of the result). x may be unnormalised: its lo enters only e.
fn r_recip_raw(x: Real) -> Real {
    let y0 = 1.0 / x.hi;
    var e_hi: f32;
    if (DF64_FMA) {
        e_hi = fma(-x.hi, y0, 1.0);
    } else {
        let p = df_two_prod(x.hi, y0);
        e_hi = df_g(df_g(1.0 - p.hi) - p.lo);
    }
    let e = df_g(fma(-x.lo, y0, e_hi));
    return Real(y0, df_g(y0 * df_g(fma(e, e, e))));
}

fn r_recip(x: Real) -> Real { return r_norm(r_recip_raw(x)); }

// Montgomery's trick (one reciprocal of a product, then products) does not
// pay here: r_recip_raw is one f32 division and 4-7 operations, a product 4-7.
const R_BATCH_RECIP: bool = false;

// a b + c fused: TwoProd of the high parts, the cross terms and c's low part
// folded into the low word, and one TwoSum with c.hi: 15 operations (12
// raw) against 27 for r_add(r_mul(a, b), c). Summing its roundings bounds its absolute
// error by 13 u^2 |a b| + 3 u^2 |c|, the bound every sum of products needs;
// like f64's unfused a * b + c it has no relative bound when a b + c cancels.
fn r_fma_raw(a: Real, b: Real, c: Real) -> Real {
    let p = df_two_prod(a.hi, b.hi);
    let s = df_two_sum(p.hi, c.hi);
    return Real(s.hi, df_g(df_g(df_g(df_cross_add(a, b, p.lo)) + c.lo) + s.lo));
}

fn r_fma(a: Real, b: Real, c: Real) -> Real { return r_norm(r_fma_raw(a, b, c)); }

// a^2 + c for c >= 0, raw: r_fma_raw(a, a, c) with one operation fewer.
// Both addends of the high sum are then non-negative, so taking them as
// (max, min) meets Fast2Sum's condition, and two selections and Fast2Sum
// replace TwoSum's six operations.
fn r_sq_add_raw(a: Real, c: Real) -> Real {
    let p = df_two_prod(a.hi, a.hi);
    let s = df_fast_two_sum(max(p.hi, c.hi), min(p.hi, c.hi));
    return Real(s.hi, df_g(df_g(df_g(df_cross_add(a, a, p.lo)) + c.lo) + s.lo));
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
// t where c, else f, without a branch.
fn r_select(f: Real, t: Real, c: bool) -> Real { return Real(select(f.hi, t.hi, c), select(f.lo, t.lo, c)); }

// 16-byte vectors of reals, for kernels that stream memory: one load moves
// RV_LANES reals, laid out as consecutive (hi, lo) pairs like RealStore.
alias RealVec = vec4<f32>;
const RV_LANES: u32 = 2u;
fn rv_get(v: RealVec, k: u32) -> Real { return Real(v[2u * k], v[2u * k + 1u]); }
fn rv_set(v: ptr<function, RealVec>, k: u32, x: Real) {
    (*v)[2u * k] = x.hi;
    (*v)[2u * k + 1u] = x.lo;
}
