// df64 self-test: the error-free transforms on known inputs, and the
// operations built on them. The host checks every error term bit for bit and
// each operation against f64; a compiler that reassociates or fuses the
// transforms away is caught here, at device creation. The operations matter
// on their own: a compiler can keep TwoProd exact in isolation and still
// break it inside a product (Mesa's NIR did, in the plain formulation).
@group(0) @binding(0) var<storage, read> inputs: array<vec2<f32>>;
// Per input (PER_INPUT pairs, injected by the host): TwoProd (hi, lo),
// TwoSum (hi, lo), then x y, x + x y, x y - y, 1 / x, x / y, 1.5 y,
// x - 1.5 y, 1 / y, 1 - 1.5 x x and x (4.5 x + 3) + y as (hi, lo) pairs,
// for x = a (1 + 2^-27) and y = b (1 - 2^-28) held as double words. The
// constants are what lbm's collision has (its 1, -1.5, 3 and 4.5): a
// compiler that may reassociate folds a split constant's partial products
// and drops the error term (SwiftShader did, in the plain formulation).
@group(0) @binding(1) var<storage, read_write> outputs: array<vec2<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&inputs)) {
        return;
    }
    let a = inputs[i].x;
    let b = inputs[i].y;
    let p = df_two_prod(a, b);
    let s = df_two_sum(a, b);
    let x = Real(a, a * 0x1p-27f);
    let y = Real(b, -b * 0x1p-28f);
    let o = PER_INPUT * i;
    outputs[o] = vec2<f32>(p.hi, p.lo);
    outputs[o + 1u] = vec2<f32>(s.hi, s.lo);
    outputs[o + 2u] = r_store(r_mul(x, y));
    outputs[o + 3u] = r_store(r_add(x, r_mul(x, y)));
    outputs[o + 4u] = r_store(r_fma(x, y, r_neg(y)));
    outputs[o + 5u] = r_store(r_recip(x));
    outputs[o + 6u] = r_store(r_div(x, y));
    outputs[o + 7u] = r_store(r_mul(r_from_f32(1.5), y));
    outputs[o + 8u] = r_store(r_fma(r_from_f32(-1.5), y, x));
    outputs[o + 9u] = r_store(r_div(r_one(), y));
    outputs[o + 10u] = r_store(r_fma(r_from_f32(-1.5), r_mul(x, x), r_one()));
    outputs[o + 11u] = r_store(r_fma(x, r_fma(r_from_f32(4.5), x, r_from_f32(3.0)), y));
}
