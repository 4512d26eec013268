//! The df64 self-test run at device creation.
//!
//! WGSL lets compilers reassociate and contract float operations, and does not
//! promise a fused `fma`; either breaks the error-free transforms that df64 is
//! built on. The test runs TwoProd and TwoSum on inputs whose exact error
//! terms the host knows, and the operations built on them (product, sum,
//! fma, reciprocal, quotient, products with a constant) against f64, in each
//! formulation of [`Df64Mode::ALL`] the device can compile (precise SPIR-V,
//! plain, guarded; fused or split TwoProd), and reports df64 as degraded
//! when none is exact. The transforms alone are not enough: in the plain
//! split formulation Chromium's SwiftShader kept them exact in this test and
//! lost the error terms inside lbm's df64 collision (which failed validation
//! in the browser from 2026-11-24 until the operations joined the test), and
//! lavapipe, made to use that formulation, fails the df64 operations'
//! integration test (`tests/tests/df64.rs`) likewise.

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::pipeline::{Bind, Compiler};
use super::resources;
use crate::error::Result;
use crate::precision::Precision;
use crate::shader::{Df64Mode, ShaderSpec};

/// How far the adapter's df64 arithmetic can be trusted (the outcome of
/// [`self_test`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Df64Status {
    /// Exact error-free transforms with this formulation.
    Exact(Df64Mode),
    /// No formulation gave exact error terms: df64 results are less accurate.
    Degraded(String),
}

impl Df64Status {
    /// The formulation kernels are composed with.
    pub fn mode(&self) -> Df64Mode {
        match self {
            Df64Status::Exact(m) => *m,
            Df64Status::Degraded(_) => Df64Mode::ALL[0],
        }
    }

    /// One line for the platform's description.
    pub fn describe(&self) -> String {
        match self {
            Df64Status::Exact(m) => format!(
                "exact (fma: {}, guard: {}, precise: {})",
                m.fma, m.guard, m.precise
            ),
            other => format!("{other:?}"),
        }
    }
}

const SOURCE: &str = include_str!("../../../shaders/common/df64_selftest.wgsl");

/// Inputs with non-zero product and sum error terms, plus random ones.
fn inputs() -> Vec<[f32; 2]> {
    let mut v = vec![
        [1.0 + f32::EPSILON, 1.0 - f32::EPSILON],
        [1.0, 2f32.powi(-30)],
        [3.0 / 7.0, 1.0 / 3.0],
        [16_777_215.0, 16_777_213.0],
    ];
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0xdf64);
    for _ in 0..252 {
        let a: f32 = rng.random_range(-1.0e3..1.0e3);
        let b: f32 = rng.random_range(-1.0e3..1.0e3);
        v.push([a, b]);
    }
    v
}

/// Results per input: TwoProd, TwoSum and ten operations, each a pair.
const PER_INPUT: usize = 12;

/// Worst relative error allowed of the operations, against f64: the
/// formulations' bounds are a few u^2 (u = 2^-24, u^2 = 3.6e-15), and a
/// compiler that breaks a transform inside an operation leaves f32's
/// 1e-8 or worse.
const OP_TOLERANCE: f64 = 1e-12;

/// How many inputs came back wrong: an error term that differs from the
/// exact one, or an operation further from f64 than [`OP_TOLERANCE`].
fn mismatches(inp: &[[f32; 2]], out: &[[f32; 2]]) -> usize {
    inp.iter()
        .zip(out.chunks_exact(PER_INPUT))
        .filter(|([a, b], got)| !exact_terms(*a, *b, got) || !ops_within(*a, *b, got))
        .count()
}

/// TwoProd's and TwoSum's results and error terms, bit for bit.
fn exact_terms(a: f32, b: f32, got: &[[f32; 2]]) -> bool {
    let (a, b) = (a as f64, b as f64);
    let p = a * b; // exact: 24 + 24 significant bits fit in 53
    let s = a + b; // exact for these magnitudes
    let split = |v: f64| [v as f32, (v - (v as f32) as f64) as f32];
    got[0] == split(p) && got[1] == split(s)
}

/// What the kernel's operations should give for inputs `a`, `b`, as (value,
/// the size of what it sums), in its output order: on x = a (1 + 2^-27) and
/// y = b (1 - 2^-28) (both exact in f64) and the constants 1, 1.5, 3, 4.5.
fn op_values(a: f64, b: f64) -> [(f64, f64); PER_INPUT - 2] {
    let x = a + a * 2f64.powi(-27);
    let y = b - b * 2f64.powi(-28);
    [
        (x * y, (x * y).abs()),
        (x + x * y, x.abs() + (x * y).abs()),
        (x * y - y, (x * y).abs() + y.abs()),
        (1.0 / x, (1.0 / x).abs()),
        (x / y, (x / y).abs()),
        (1.5 * y, (1.5 * y).abs()),
        (x - 1.5 * y, x.abs() + (1.5 * y).abs()),
        (1.0 / y, (1.0 / y).abs()),
        (1.0 - 1.5 * x * x, 1.0 + 1.5 * x * x),
        (
            x * (4.5 * x + 3.0) + y,
            x.abs() * (4.5 * x.abs() + 3.0) + y.abs(),
        ),
    ]
}

/// Each operation within [`OP_TOLERANCE`] of f64, relative to the size of
/// what it sums ([`op_values`]).
fn ops_within(a: f32, b: f32, got: &[[f32; 2]]) -> bool {
    if a == 0.0 || b == 0.0 {
        return true;
    }
    let want = op_values(a as f64, b as f64);
    want.iter().zip(&got[2..]).all(|((w, scale), [hi, lo])| {
        let g = *hi as f64 + *lo as f64;
        ((g - w) / scale).abs() <= OP_TOLERANCE
    })
}

/// The test kernel in formulation `mode` on `inp`: how many inputs came
/// back wrong ([`mismatches`]).
async fn run(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    compiler: &Compiler,
    mode: Df64Mode,
    inp: &[[f32; 2]],
) -> Result<usize> {
    let spec = ShaderSpec::new("df64-selftest", SOURCE, Precision::Df64)
        .with_u32("PER_INPUT", PER_INPUT as u32);
    let input = resources::storage_init(device, "df64-in", bytemuck::cast_slice(inp))?;
    let output = resources::storage_poisoned(
        device,
        queue,
        "df64-out",
        (inp.len() * PER_INPUT * 8) as u64,
        &f32::NAN.to_le_bytes(),
    );
    let pipe = resources::scoped(device, || {
        compiler.pipeline(device, &spec, "main", &[Bind::Read, Bind::ReadWrite], mode)
    })
    .await?;
    let bg = resources::bind_resources(
        device,
        &pipe.layout,
        &[input.as_entire_binding(), output.as_entire_binding()],
    );
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pipe.set(&mut pass, &bg);
        pass.dispatch_workgroups((inp.len() as u32).div_ceil(64), 1, 1);
    }
    queue.submit([enc.finish()]);
    let bytes = super::readback::read_buffers(device, queue, &[&output]).await?;
    let out: &[[f32; 2]] = bytemuck::cast_slice(&bytes[0]);
    Ok(mismatches(inp, out))
}

/// Runs the self-test on `device` and picks the fastest exact formulation
/// `compiler` can build.
pub async fn self_test(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    compiler: &Compiler,
) -> Result<Df64Status> {
    let inp = inputs();
    let mut tried = Vec::new();
    let modes = Df64Mode::ALL
        .into_iter()
        .filter(|m| !m.precise || compiler.precise_available());
    for mode in modes {
        let wrong = match run(device, queue, compiler, mode, &inp).await {
            Ok(wrong) => wrong,
            // SPIR-V passthrough is the one path wgpu does not vet; a driver
            // that rejects it still has the WGSL formulations.
            Err(e) if mode.precise => {
                log::warn!("df64: precise SPIR-V unusable on this adapter: {e}");
                continue;
            }
            Err(e) => return Err(e),
        };
        if wrong == 0 {
            if !tried.is_empty() {
                log::info!(
                    "df64: preferred formulations inexact on this adapter ({tried:?}); using {mode:?}"
                );
            }
            return Ok(Df64Status::Exact(mode));
        }
        tried.push((mode, wrong));
    }
    let msg = format!(
        "error-free transforms broken by the shader compiler in every formulation (wrong of {}: {tried:?})",
        inp.len()
    );
    log::warn!("df64 degraded: {msg}");
    Ok(Df64Status::Degraded(msg))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an exact device returns for `a`, `b` (the host's own f64
    /// results, split into pairs).
    fn exact(a: f32, b: f32) -> Vec<[f32; 2]> {
        let split = |v: f64| [v as f32, (v - (v as f32) as f64) as f32];
        let (a, b) = (a as f64, b as f64);
        let ops = op_values(a, b).map(|(w, _)| w);
        [a * b, a + b].into_iter().chain(ops).map(split).collect()
    }

    #[test]
    fn exact_results_pass_and_a_lost_low_word_is_caught() {
        let inp = inputs();
        let good: Vec<[f32; 2]> = inp.iter().flat_map(|[a, b]| exact(*a, *b)).collect();
        assert_eq!(mismatches(&inp, &good), 0);
        // A product whose low word is gone (the error TwoProd should keep):
        // off by about 1e-8 of itself.
        let mut bad = good.clone();
        bad[2 * PER_INPUT + 2][1] = 0.0;
        assert_eq!(mismatches(&inp, &bad), 1);
        // An error term that differs in its last bit.
        let mut bad = good;
        bad[0][1] = f32::from_bits(bad[0][1].to_bits() ^ 1);
        assert_eq!(mismatches(&inp, &bad), 1);
    }
}
