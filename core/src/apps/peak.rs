//! `peak`: compute ceilings per precision (independent FMA chains) and an
//! arithmetic-intensity sweep that shows the ridge point.

use std::sync::Arc;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Timestamps, Validation,
    wg_param,
};
use crate::apps::common::{check_binding, fresh_rng, parse_size, random_reals};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Bind, Capabilities, Gpu, Pipeline, dispatch_shape};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

const SOURCE: &str = include_str!("../../../shaders/peak/peak.wgsl");

/// Recurrence x <- a x + b with fixed point b / (1 - a) = 1; both exact in f32.
const A: f64 = 1.0 - 1.0 / 1024.0;
const B: f64 = 1.0 / 1024.0;

choice! {
    /// The kernels.
    pub enum KernelName("kernel") {
        /// Independent FMA chains: the compute ceiling.
        Fma = "fma",
        /// FMAs per element read and written: the intensity sweep.
        Mix = "mix",
    }
}

/// One peak case, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Invocations of `fma`, elements of `mix`.
    pub n: u64,
    /// Workgroup size.
    pub wg: u32,
    /// What each invocation computes.
    pub work: Work,
}

/// The work of one invocation of a peak kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// `fma`: `chains` independent chains of `iters` steps.
    Fma {
        /// Independent chains per invocation.
        chains: u64,
        /// Steps of each chain.
        iters: u64,
    },
    /// `mix`: `intensity` FMAs per element.
    Mix {
        /// FMAs per element read and written.
        intensity: u64,
    },
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every peak result file).
    pub fn case(&self) -> Case {
        match self.work {
            Work::Fma { chains, iters } => Case::new(
                "peak",
                KernelName::Fma.name(),
                &format!("wg{}/chains{chains}", self.wg),
                self.precision,
            )
            .param("n", self.n)
            .param("wg", self.wg)
            .param("chains", chains)
            .param("iters", iters),
            Work::Mix { intensity } => Case::new(
                "peak",
                KernelName::Mix.name(),
                &format!("fma{intensity}/wg{}", self.wg),
                self.precision,
            )
            .param("n", self.n)
            .param("wg", self.wg)
            .param("intensity", intensity),
        }
    }

    /// The recurrence work of the case.
    fn shape(&self) -> Shape {
        let (chains, steps) = match self.work {
            Work::Fma { chains, iters } => (chains, iters),
            Work::Mix { intensity } => (1, intensity),
        };
        Shape {
            n: self.n,
            chains,
            steps,
        }
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        let work = match case.kernel_as()? {
            KernelName::Fma => Work::Fma {
                chains: case.uint("chains")?,
                iters: case.uint("iters")?,
            },
            KernelName::Mix => Work::Mix {
                intensity: case.uint("intensity")?,
            },
        };
        Ok(Params {
            precision: case.precision,
            n: case.uint("n")?,
            wg: case.u32("wg")?,
            work,
        })
    }
}

/// The `peak` app.
pub struct Peak;

impl App for Peak {
    fn name(&self) -> &'static str {
        "peak"
    }

    /// The reference runs the same chains on the host: workgroup sizes are the GPU's.
    fn cpu_params(&self) -> &'static [&'static str] {
        &["n", "chains", "iters", "intensity"]
    }

    fn about(&self) -> &'static str {
        "compute ceilings: FMA chains per precision, and a mixbench-style intensity sweep"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "fma (the ceiling) and/or mix (the intensity sweep)",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "fma,mix",
            },
            ParamSpec {
                name: "size",
                help: "invocations of fma / elements of mix: default (2^22 / 2^24), small (2^12 / 2^14), or a number",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "chains",
                help: "independent FMA chains per invocation (fma); a list sweeps, the ceiling is the best",
                kind: ParamKind::UInt { min: 1, max: 32 },
                default: "8,16,32",
            },
            ParamSpec {
                name: "iters",
                help: "steps of each chain (fma)",
                kind: ParamKind::UInt {
                    min: 1,
                    max: 1 << 20,
                },
                default: "1024",
            },
            ParamSpec {
                name: "intensity",
                help: "FMAs per element read and written (mix); a list sweeps",
                kind: ParamKind::UInt {
                    min: 1,
                    max: 1 << 16,
                },
                default: "1,2,4,8,16,32,64,128,256",
            },
            wg_param("128,256"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let wgs = r.wgs(caps)?;
        let fma: Vec<Work> = Grid::new((0, 0))
            .axis(&r.uints("chains"), |w, c| w.0 = c)
            .axis(&r.uints("iters"), |w, i| w.1 = i)
            .points()
            .into_iter()
            .map(|(chains, iters)| Work::Fma { chains, iters })
            .collect();
        let mix: Vec<Work> = r
            .uints("intensity")
            .into_iter()
            .map(|intensity| Work::Mix { intensity })
            .collect();
        let mut cases = Vec::new();
        for &p in &r.precisions {
            for kernel in r.choices::<KernelName>() {
                let (presets, works) = match kernel {
                    // Many waves of workgroups, so the last, partly filled one costs
                    // under 1% (2^20 invocations are 3.9 waves on an H200).
                    KernelName::Fma => ([("default", 1 << 22), ("small", 1 << 12)], &fma),
                    KernelName::Mix => ([("default", 1 << 24), ("small", 1 << 14)], &mix),
                };
                let n = parse_size("size", r.text("size"), &presets)?;
                check_binding(n * p.real_bytes(), caps)?;
                let base = Params {
                    precision: p,
                    n,
                    wg: 1,
                    work: works[0],
                };
                let points = Grid::new(base)
                    .axis(&wgs, |c, wg| c.wg = wg)
                    .axis(works, |c, w| c.work = w)
                    .points();
                cases.extend(points.iter().map(Params::case));
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(PeakGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        vec![spec(p, 256, 8, 1024, 16)]
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        Some(Params::try_from(case).map(|params| {
            let shape = params.shape();
            let mut rng = fresh_rng();
            let x0 = random_reals(&mut rng, shape.n as usize, 0.5, 1.0, Precision::F64);
            Box::new(PeakCpu {
                out: vec![f64::NAN; x0.len()],
                x0,
                shape,
            }) as Box<dyn CpuKernel>
        }))
    }
}

/// The recurrence work of one case: chains of `steps` FMAs on `n` inputs.
#[derive(Clone, Copy)]
struct Shape {
    n: u64,
    chains: u64,
    steps: u64,
}

impl Shape {
    /// What an input `x0` becomes. Chain c starts at x0 + c/16; x_k =
    /// a^k (x_0 - 1) + 1 in closed form.
    fn want(&self, x0: f64) -> f64 {
        let ak = A.powi(self.steps as i32);
        (0..self.chains)
            .map(|c| ak * (x0 + c as f64 / 16.0 - 1.0) + 1.0)
            .sum()
    }

    /// Checks `got` of each input against [`Shape::want`] of it.
    fn check(
        &self,
        x0: &[f64],
        got: impl Fn(usize) -> f64 + Sync + Send,
        p: Precision,
    ) -> Validation {
        Validation::compare_by(
            x0.len(),
            got,
            |i| self.want(x0[i]),
            self.tolerance(p),
            0.0,
            "closed-form recurrence",
        )
    }

    /// Rounding of `steps` contracting steps: each adds at most `per_step` u of
    /// a value within [0.5, 1 + chains/16], damped by a < 1.
    fn tolerance(&self, p: Precision) -> f64 {
        let per_step = if p == Precision::Df64 { 8.0 } else { 2.0 };
        let damped = (self.steps as f64).min(1.0 / (1.0 - A));
        4.0 * per_step * p.unit_roundoff() * damped * (1.0 + self.chains as f64 / 16.0)
    }

    /// One input read and one output written per invocation or element.
    fn model(&self, p: Precision) -> Model {
        Model {
            flops: 2.0 * (self.n * self.chains * self.steps) as f64,
            bytes: (2 * self.n * p.real_bytes()) as f64,
        }
    }
}

/// The module holding both peak kernels.
fn spec(p: Precision, wg: u32, chains: u32, iters: u32, intensity: u32) -> ShaderSpec {
    ShaderSpec::new("peak", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("ITERS", iters)
        .with_u32("INTENSITY", intensity)
        .with_include(sources::GRID)
        .with_include(chains_function(chains, iters))
}

/// How many steps of every chain one loop iteration takes: 4 where
/// `iters` allows, since the loop's counter, compare and branch would
/// otherwise cost a tenth of the issue slots at 32 chains.
fn unroll(iters: u32) -> u32 {
    if iters.is_multiple_of(4) { 4 } else { 1 }
}

/// `fma_chains_run(s, a, b)`: `chains` recurrences in named variables (chain c
/// starts at s + c/16), stepped ITERS times ([`unroll`] steps an iteration), summed.
fn chains_function(chains: u32, iters: u32) -> String {
    let mut f = String::from("fn fma_chains_run(s: Real, a: Real, b: Real) -> Real {\n");
    for c in 0..chains {
        f.push_str(&format!(
            "    var x{c} = r_add(s, r_from_f32({:?}));\n",
            c as f32 / 16.0
        ));
    }
    let unroll = unroll(iters);
    f.push_str(&format!(
        "    for (var it = 0u; it < ITERS; it += {unroll}u) {{\n"
    ));
    for _ in 0..unroll {
        for c in 0..chains {
            f.push_str(&format!("        x{c} = r_fma(x{c}, a, b);\n"));
        }
    }
    f.push_str("    }\n    var sum = x0;\n");
    for c in 1..chains {
        f.push_str(&format!("    sum = r_add(sum, x{c});\n"));
    }
    f.push_str("    return sum;\n}\n");
    f
}

struct PeakGpu {
    kernel: KernelName,
    precision: Precision,
    shape: Shape,
    x0: Arc<Vec<f64>>,
    out: wgpu::Buffer,
    pipe: Pipeline,
    bg: wgpu::BindGroup,
    groups: (u32, u32),
}

impl PeakGpu {
    fn new(gpu: &Gpu, params: &Params) -> Result<PeakGpu> {
        let (p, wg) = (params.precision, params.wg);
        let shape = params.shape();
        // Every intensity and workgroup size of a request reads the same
        // inputs, drawn and uploaded once.
        let key = format!("peak/{}/{p}", shape.n);
        let x0 = gpu.memo.get_or_make(&key, || {
            random_reals(&mut fresh_rng(), shape.n as usize, 0.5, 1.0, p)
        });
        let groups = dispatch_shape(shape.n, wg, gpu.caps.max_workgroups_per_dim)?;
        let threads = groups.0 as u64 * groups.1 as u64 * wg as u64;
        let (kernel, entry, chains, iters, intensity) = match params.work {
            Work::Fma { chains, iters } => (KernelName::Fma, "fma_chains", chains, iters, 1),
            Work::Mix { intensity } => (KernelName::Mix, "mix", 1, 1, intensity),
        };
        let pipe = gpu.pipeline(
            &spec(p, wg, chains as u32, iters as u32, intensity as u32),
            entry,
            &[Bind::Read, Bind::ReadWrite, Bind::Read, Bind::Uniform],
        )?;
        let input = gpu.uploads.get_or_upload(&key, "x0", &x0, |x0| {
            Ok(vec![gpu.storage_init("x0", &p.encode(x0))?])
        })?;
        let out = gpu.storage_poisoned("out", shape.n * p.real_bytes(), &p.poison_pattern())?;
        let coef = gpu.storage_init("coef", &p.encode(&[A, B]))?;
        let dims = gpu.uniform(
            "dims",
            bytemuck::cast_slice(&[shape.n as u32, threads as u32, 0, 0]),
        );
        let bg = gpu.bind(&pipe, &[&input[0], &out, &coef, &dims]);
        Ok(PeakGpu {
            kernel,
            precision: p,
            shape,
            x0,
            out,
            pipe,
            bg,
            groups,
        })
    }
}

impl Kernel for PeakGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.kernel.name()),
            timestamp_writes: ts.pass(true, true),
        });
        self.pipe.set(&mut pass, &self.bg);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.out]
    }

    fn validate(&self, outputs: &[&[u8]]) -> Validation {
        let (p, out) = (self.precision, outputs[0]);
        let read = out.len() / p.real_bytes() as usize;
        if read != self.x0.len() {
            return Validation::fail(format!("{read} values read, {} expected", self.x0.len()));
        }
        self.shape.check(&self.x0, |i| p.read(out, i), p)
    }

    fn model(&self) -> Model {
        self.shape.model(self.precision)
    }
}

struct PeakCpu {
    shape: Shape,
    x0: Vec<f64>,
    out: Vec<f64>,
}

impl CpuKernel for PeakCpu {
    fn run(&mut self) {
        let (x0, s) = (&self.x0, self.shape);
        // Separate multiply and add: without a hardware FMA target feature
        // `mul_add` is a library call, and the CPU ceiling is the plain rate.
        crate::parallel::fill(&mut self.out, |i| {
            let mut x = [0.0f64; 32];
            for (c, v) in x.iter_mut().enumerate().take(s.chains as usize) {
                *v = x0[i] + c as f64 / 16.0;
            }
            for _ in 0..s.steps {
                for v in x.iter_mut().take(s.chains as usize) {
                    *v = *v * A + B;
                }
            }
            x.iter().take(s.chains as usize).sum()
        });
    }

    fn validate(&self) -> Validation {
        let out = &self.out;
        self.shape.check(&self.x0, |i| out[i], Precision::F64)
    }

    fn model(&self) -> Model {
        self.shape.model(Precision::F64)
    }
}
