//! The df64 self-test run at device creation.
//!
//! WGSL lets compilers reassociate and contract float operations, and does not
//! promise a fused `fma`; either breaks the error-free transforms that df64 is
//! built on. The test runs TwoProd and TwoSum on inputs whose exact error terms
//! the host knows in each formulation of [`Df64Mode::ALL`] the device can
//! compile (precise SPIR-V, plain, guarded; fused or split TwoProd), and reports
//! df64 as degraded when none is exact.

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

/// Indices of inputs whose GPU error terms differ from the exact ones.
fn mismatches(inp: &[[f32; 2]], out: &[[f32; 4]]) -> usize {
    inp.iter()
        .zip(out)
        .filter(|([a, b], [ph, pl, sh, sl])| {
            let (a, b) = (*a as f64, *b as f64);
            let p = a * b; // exact: 24 + 24 significant bits fit in 53
            let s = a + b; // exact for these magnitudes
            let want = [
                p as f32,
                (p - (p as f32) as f64) as f32,
                s as f32,
                (s - (s as f32) as f64) as f32,
            ];
            want != [*ph, *pl, *sh, *sl]
        })
        .count()
}

/// The test kernel in formulation `mode` on `inp`: how many error terms are wrong.
async fn run(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    compiler: &Compiler,
    mode: Df64Mode,
    inp: &[[f32; 2]],
) -> Result<usize> {
    let spec = ShaderSpec::new("df64-selftest", SOURCE, Precision::Df64);
    let input = resources::storage_init(device, "df64-in", bytemuck::cast_slice(inp))?;
    let output = resources::storage_poisoned(
        device,
        queue,
        "df64-out",
        (inp.len() * 16) as u64,
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
    let out: &[[f32; 4]] = bytemuck::cast_slice(&bytes[0]);
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
