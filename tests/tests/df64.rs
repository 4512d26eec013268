//! df64 arithmetic on the real adapter against f64, and the double
//! preludes' reciprocal.

use rand::{Rng, SeedableRng};
use skylight_core::Precision;
use skylight_core::gpu::Bind;
use skylight_core::shader::ShaderSpec;

const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read> xs: array<RealStore>;
@group(0) @binding(1) var<storage, read> ys: array<RealStore>;
@group(0) @binding(2) var<storage, read_write> out: array<RealStore>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = arrayLength(&xs);
    if (i >= n) { return; }
    let x = r_load(xs[i]);
    let y = r_load(ys[i]);
    out[i] = r_store(r_add(x, y));
    out[n + i] = r_store(r_mul(x, y));
    out[2u * n + i] = r_store(r_div(x, y));
    out[3u * n + i] = r_store(r_sqrt(r_abs(x)));
    out[4u * n + i] = r_store(r_sub(x, y));
    out[5u * n + i] = r_store(r_add(x, r_add(x, y)));
    out[6u * n + i] = r_store(r_add(x, r_mul(x, y)));
    out[7u * n + i] = r_store(r_mul(r_add(x, y), y));
    out[8u * n + i] = r_store(r_fma(x, y, r_neg(y)));
    out[9u * n + i] = r_store(r_recip(x));
    // The cheaper forms, stored as they come (unnormalised in df64), and a
    // raw value consumed by the next product.
    out[10u * n + i] = r_store(r_mul_raw(x, y));
    out[11u * n + i] = r_store(r_fma_raw(x, y, r_neg(y)));
    out[12u * n + i] = r_store(r_sub_sloppy_raw(x, y));
    out[13u * n + i] = r_store(r_recip_raw(y));
    out[14u * n + i] = r_store(r_fma(r_fma_raw(x, y, r_neg(y)), r_recip_raw(y), x));
    out[15u * n + i] = r_store(r_sq_add_raw(x, y));
    out[16u * n + i] = r_store(r_mul(r_sub_sloppy_raw(x, y), y));
}
"#;

/// Results per input pair of [`KERNEL`].
const OPS: usize = 17;

/// [`KERNEL`]'s results in precision `p`, op by op (`OPS` blocks of `x.len()`).
fn run_in(p: Precision, x: &[f64], y: &[f64]) -> Vec<f64> {
    let gpu = skylight_tests::gpu();
    let n = x.len();
    let spec = ShaderSpec::new("ops", KERNEL, p);
    let pipe = pollster::block_on(
        gpu.scoped(|| gpu.pipeline(&spec, "main", &[Bind::Read, Bind::Read, Bind::ReadWrite])),
    )
    .expect("pipeline");
    let xb = gpu.storage_init("x", &p.encode(x)).expect("x");
    let yb = gpu.storage_init("y", &p.encode(y)).expect("y");
    let out = gpu
        .storage_poisoned(
            "out",
            (OPS * n) as u64 * p.real_bytes(),
            &p.poison_pattern(),
        )
        .expect("out");
    let bg = gpu.bind(&pipe, &[&xb, &yb, &out]);
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pipe.set(&mut pass, &bg);
        pass.dispatch_workgroups((n as u32).div_ceil(64), 1, 1);
    }
    gpu.queue.submit([enc.finish()]);
    let bytes = pollster::block_on(gpu.read_buffers(&[&out])).expect("readback");
    p.decode(&bytes[0])
}

fn run(x: &[f64], y: &[f64]) -> Vec<f64> {
    run_in(Precision::Df64, x, y)
}

/// `r_recip` (f64: an f32 seed and two Newton steps) on 1e5 values of
/// either sign across 1e-26 to 1e26 (df64's range where f32 subnormals are
/// flushed, as on NVIDIA; see df64.wgsl): within 4 unit roundoffs of the exact
/// reciprocal (2 ulp in f64), in native f64 where the adapter has it and in
/// df64.
#[test]
fn reciprocal_is_within_four_unit_roundoffs() {
    let gpu = skylight_tests::gpu();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let n = 100_000;
    let mut precisions = vec![Precision::Df64];
    if gpu.caps.f64 {
        precisions.push(Precision::F64);
    }
    for p in precisions {
        let q = |v: f64| p.decode(&p.encode(&[v]))[0];
        let x: Vec<f64> = (0..n)
            .map(|k| {
                let v = 10f64.powf(rng.random_range(-26.0..26.0));
                q(if k % 2 == 0 { v } else { -v })
            })
            .collect();
        let got = &run_in(p, &x, &x)[9 * n..10 * n];
        let worst = x
            .iter()
            .zip(got)
            .map(|(&a, &g)| ((g - 1.0 / a) * a).abs() / p.unit_roundoff())
            .fold(0.0, f64::max);
        assert!(worst <= 4.0, "{p:?} r_recip: {worst} unit roundoffs");
    }
}

/// add, sub, mul, div, sqrt, fma, nested expressions and the unnormalised
/// (`_raw`, sloppy) forms on 1e5 random double-word values: error at most
/// 1e-13 against f64 (the operands are exact df64 numbers), relative to the
/// result, or where the result can cancel to the operands' magnitudes.
#[test]
fn df64_ops_match_f64() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(42);
    let n = 100_000;
    let q = |v: f64| Precision::Df64.decode(&Precision::Df64.encode(&[v]))[0];
    let x: Vec<f64> = (0..n).map(|_| q(rng.random_range(-1e3..1e3))).collect();
    let y: Vec<f64> = (0..n).map(|_| q(rng.random_range(0.5..2e3))).collect();
    let got = run(&x, &y);
    /// (name, exact result, the magnitude the error is measured against).
    type Op = (&'static str, fn(f64, f64) -> f64, fn(f64, f64) -> f64);
    fn sum_scale(a: f64, b: f64) -> f64 {
        a.abs() + b.abs()
    }
    fn fma_scale(a: f64, b: f64) -> f64 {
        (a * b).abs() + b.abs()
    }
    let ops: [Op; OPS] = [
        ("add", |a, b| a + b, sum_scale),
        ("mul", |a, b| a * b, |a, b| (a * b).abs()),
        ("div", |a, b| a / b, |a, b| (a / b).abs()),
        ("sqrt", |a, _| a.abs().sqrt(), |a, _| a.abs().sqrt()),
        ("sub", |a, b| a - b, sum_scale),
        // Nested operations: where compilers reassociate across inlined calls.
        ("x + (x + y)", |a, b| a + (a + b), sum_scale),
        ("x + x y", |a, b| a + (a * b), sum_scale),
        ("(x + y) y", |a, b| (a + b) * b, sum_scale),
        ("fma(x, y, -y)", |a, b| a.mul_add(b, -b), fma_scale),
        ("recip(x)", |a, _| 1.0 / a, |a, _| (1.0 / a).abs()),
        ("mul_raw", |a, b| a * b, |a, b| (a * b).abs()),
        ("fma_raw(x, y, -y)", |a, b| a.mul_add(b, -b), fma_scale),
        ("sub_sloppy_raw", |a, b| a - b, sum_scale),
        ("recip_raw(y)", |_, b| 1.0 / b, |_, b| 1.0 / b),
        (
            "fma(fma_raw(x, y, -y), recip_raw(y), x)",
            |a, b| (a * b - b) / b + a,
            |a, b| fma_scale(a, b) / b + a.abs(),
        ),
        // y > 0 here, as the squared distance's addend is.
        ("sq_add_raw(x, y)", |a, b| a.mul_add(a, b), |a, b| a * a + b),
        (
            "sub_sloppy_raw(x, y) y",
            |a, b| (a - b) * b,
            |a, b| sum_scale(a, b) * b,
        ),
    ];
    for (k, (name, f, magnitude)) in ops.iter().enumerate() {
        let mut worst = 0.0f64;
        for i in 0..n {
            let want = f(x[i], y[i]);
            let g = got[k * n + i];
            assert!(g.is_finite(), "{name}[{i}] not written");
            let scale = magnitude(x[i], y[i]).max(want.abs()).max(1e-300);
            worst = worst.max(((g - want) / scale).abs());
        }
        assert!(
            worst <= 1e-13,
            "df64 {name}: max relative error {worst:e} > 1e-13"
        );
    }
}

/// A product whose low part is non-zero must come back exactly: this fails
/// if the shader compiler has fused or reassociated the error-free transforms.
#[test]
fn df64_error_terms_survive_the_compiler() {
    let a = 1.0 + f32::EPSILON as f64;
    let b = 1.0 - f32::EPSILON as f64;
    let got = run(&[a], &[b]);
    let exact = a * b; // 1 - eps^2: its low part is -eps^2, non-zero
    assert_eq!(
        got[1],
        exact,
        "df64 mul lost the low part: {:e}",
        got[1] - exact
    );
    let gpu = skylight_tests::gpu();
    assert!(
        !matches!(gpu.df64, skylight_core::gpu::Df64Status::Degraded(_)),
        "df64 self-test reports {:?}",
        gpu.df64
    );
}
