//! The runner: prepares a case, validates its first run, warms up, times the
//! samples and turns it all into a [`ResultRecord`].

use std::collections::BTreeMap;

use crate::app::{App, Case, Kernel, Timestamps};
use crate::error::{Error, Result};
use crate::gpu::timer::{self, Timer};
use crate::gpu::{Capabilities, Gpu, PlatformInfo};
use crate::precision::Precision;
use crate::record::ResultRecord;
use crate::timing::TimingMethod;

/// How many runs to make of each case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Untimed runs after validation (at least this many).
    pub warmup: u32,
    /// Keep warming up until this much wall time has passed (seconds). A
    /// GPU's clock governor needs sustained load to raise the clocks: on the
    /// H200 the SM clock idles at 345 MHz, and after 0.2 s of warm-up 4 of 12
    /// cases were still timed at 345-1095 MHz (2-4x slow); after 2 s none
    /// were (BENCHMARKS.md).
    pub warmup_s: f64,
    /// Timed runs.
    pub samples: u32,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            warmup: 2,
            warmup_s: 1.0,
            samples: 20,
        }
    }
}

/// What happened to one case.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Ran and was timed (look at `validation.passed`).
    Done(Box<ResultRecord>),
    /// Cannot run on this platform (for example f64 without `SHADER_F64`); not a failure.
    Unsupported {
        /// The case.
        case: Case,
        /// Why, e.g. `needs SHADER_F64`.
        reason: String,
    },
    /// Errored (over a limit, device error ...).
    Failed {
        /// The case.
        case: Case,
        /// The error.
        error: String,
    },
}

impl Outcome {
    /// The case this outcome belongs to.
    pub fn case(&self) -> &Case {
        match self {
            Outcome::Done(r) => &r.case,
            Outcome::Unsupported { case, .. } | Outcome::Failed { case, .. } => case,
        }
    }

    /// True for a run that failed or did not validate.
    pub fn is_failure(&self) -> bool {
        match self {
            Outcome::Done(r) => !r.validation.passed,
            Outcome::Unsupported { .. } => false,
            Outcome::Failed { .. } => true,
        }
    }
}

/// Progress reported to front ends.
#[derive(Clone, Debug)]
pub enum Progress<'a> {
    /// Case `index` of `total` is starting.
    Start {
        /// The case.
        case: &'a Case,
        /// Zero-based position.
        index: usize,
        /// Number of cases in this request.
        total: usize,
    },
    /// A case finished.
    Finish(&'a Outcome),
}

/// Expands `req` for `app` on a platform with `caps`, splitting off cases
/// whose precision the platform lacks. An explicitly requested unsupported
/// precision is an error; a defaulted one becomes [`Outcome::Unsupported`].
pub fn plan(
    app: &dyn App,
    req: &crate::app::Request,
    caps: &Capabilities,
) -> Result<(Vec<Case>, Vec<Outcome>)> {
    let cases = app.cases(req, caps)?;
    let (mut run, mut skip) = (Vec::new(), Vec::new());
    for c in cases {
        if c.precision == Precision::F64 && !caps.f64 {
            if !req.precisions.is_empty() {
                return Err(Error::MissingFeature("SHADER_F64"));
            }
            skip.push(Outcome::Unsupported {
                case: c,
                reason: "needs SHADER_F64".into(),
            });
        } else {
            run.push(c);
        }
    }
    Ok((run, skip))
}

/// Runs every case of `req` on `gpu`, reporting progress; a request that
/// cannot be planned is an error, a case that fails is an [`Outcome::Failed`].
/// `stop` is polled between cases so a front end can cancel.
pub async fn run_request(
    gpu: &Gpu,
    app: &dyn App,
    req: &crate::app::Request,
    opts: RunOptions,
    progress: &mut dyn FnMut(Progress<'_>),
    stop: &dyn Fn() -> bool,
) -> Result<Vec<Outcome>> {
    let (cases, mut outcomes) = plan(app, req, &gpu.caps)?;
    for o in &outcomes {
        progress(Progress::Finish(o));
    }
    let total = cases.len();
    for (index, case) in cases.iter().enumerate() {
        if stop() {
            break;
        }
        progress(Progress::Start { case, index, total });
        let outcome = run_case(gpu, app, case, opts).await;
        progress(Progress::Finish(&outcome));
        let lost = gpu.check_lost().is_err();
        outcomes.push(outcome);
        if lost {
            break;
        }
    }
    Ok(outcomes)
}

/// Runs one case on `gpu` and never panics: errors become [`Outcome::Failed`].
pub async fn run_case(gpu: &Gpu, app: &dyn App, case: &Case, opts: RunOptions) -> Outcome {
    match try_run_case(gpu, app, case, opts).await {
        Ok(r) => Outcome::Done(Box::new(r)),
        Err(Error::MissingFeature(f)) => Outcome::Unsupported {
            case: case.clone(),
            reason: format!("needs {f}"),
        },
        Err(e) => Outcome::Failed {
            case: case.clone(),
            error: e.to_string(),
        },
    }
}

async fn try_run_case(
    gpu: &Gpu,
    app: &dyn App,
    case: &Case,
    opts: RunOptions,
) -> Result<ResultRecord> {
    gpu.require(case.precision)?;
    let kernel = gpu.scoped(|| app.prepare(gpu, case)).await?;
    // Validation run: exactly one run over poisoned outputs.
    let outputs = gpu
        .scoped(|| {
            submit_runs(gpu, kernel.as_ref(), 1);
            Ok(())
        })
        .await;
    outputs?;
    let bytes = gpu.read_buffers(&kernel.outputs()).await?;
    let validation = kernel.validate(&bytes);
    let metrics = kernel.metrics(&bytes);
    drop(bytes);
    warm_up(gpu, kernel.as_ref(), opts).await?;
    let (timing, samples) = time_samples(gpu, kernel.as_ref(), opts.samples.max(1)).await?;
    Ok(ResultRecord::new(
        case.clone(),
        gpu.info.clone(),
        timing,
        samples,
        kernel.model(),
        validation,
        metrics,
    ))
}

/// At least `opts.warmup` runs, continued until `opts.warmup_s` of wall time
/// has passed: a GPU idling at low clocks needs up to seconds of load before
/// its clocks settle, far longer than two runs of a short kernel.
async fn warm_up(gpu: &Gpu, kernel: &dyn Kernel, opts: RunOptions) -> Result<()> {
    let t0 = web_time::Instant::now();
    let mut runs = 0u32;
    let mut batch = opts.warmup.max(1);
    while runs < opts.warmup || t0.elapsed().as_secs_f64() < opts.warmup_s {
        submit_runs(gpu, kernel, batch);
        gpu.finish().await?;
        runs += batch;
        batch = (batch * 2).min(64);
    }
    Ok(())
}

fn submit_runs(gpu: &Gpu, kernel: &dyn Kernel, runs: u32) {
    for _ in 0..runs {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        kernel.encode(&mut enc, Timestamps::None);
        gpu.queue.submit([enc.finish()]);
    }
}

/// `n` timed runs of `kernel`: GPU timestamps where the device and kernel
/// allow them (see [`timer::method`]), else the host clock around each run.
async fn time_samples(gpu: &Gpu, kernel: &dyn Kernel, n: u32) -> Result<(TimingMethod, Vec<f64>)> {
    let method = timer::method(gpu, kernel.pass_timed());
    if method == TimingMethod::WallClock {
        let mut samples = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let t0 = web_time::Instant::now();
            submit_runs(gpu, kernel, 1);
            gpu.finish().await?;
            samples.push(t0.elapsed().as_secs_f64());
        }
        return Ok((method, samples));
    }
    let timer = Timer::new(gpu, method, n);
    gpu.scoped(|| {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        timer.record(&mut enc, &|enc, ts| kernel.encode(enc, ts));
        gpu.queue.submit([enc.finish()]);
        Ok(())
    })
    .await?;
    Ok((method, timer.read(gpu).await?))
}

/// The CPU reference platform's identity.
pub fn cpu_platform() -> PlatformInfo {
    #[cfg(not(target_arch = "wasm32"))]
    let threads = rayon::current_num_threads();
    #[cfg(target_arch = "wasm32")]
    let threads = 1;
    PlatformInfo {
        index: None,
        name: format!(
            "CPU reference ({threads} threads, {})",
            std::env::consts::ARCH
        ),
        backend: "cpu".into(),
        device_type: "cpu".into(),
        driver: "skylight-core (rayon, f64)".into(),
        driver_info: String::new(),
        df64: None,
    }
}

/// Capabilities of the CPU reference platform: f64 only, no GPU limits.
pub fn cpu_capabilities() -> Capabilities {
    Capabilities {
        f64: true,
        max_storage_binding: u64::MAX / 4,
        max_buffer: u64::MAX / 4,
        max_workgroup_storage: u32::MAX,
        max_workgroup_invocations: 1024,
        max_workgroups_per_dim: u32::MAX,
        max_storage_buffers: u32::MAX,
        ..Capabilities::default()
    }
}

/// Runs every f64 case of `req` on the CPU reference platform.
pub fn run_request_cpu(
    app: &dyn App,
    req: &crate::app::Request,
    opts: RunOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Vec<Outcome>> {
    let caps = cpu_capabilities();
    let req = crate::app::Request {
        precisions: vec![Precision::F64],
        params: req.params.clone(),
    };
    let cases = app.cases(&req, &caps)?;
    let total = cases.len();
    let mut out = Vec::with_capacity(total);
    for (index, case) in cases.iter().enumerate() {
        progress(Progress::Start { case, index, total });
        let o = match app.prepare_cpu(case) {
            None => Outcome::Unsupported {
                case: case.clone(),
                reason: "no CPU implementation".into(),
            },
            Some(Err(e)) => Outcome::Failed {
                case: case.clone(),
                error: e.to_string(),
            },
            Some(Ok(mut k)) => {
                k.run();
                let validation = k.validate();
                for _ in 0..opts.warmup {
                    k.run();
                }
                let samples: Vec<f64> = (0..opts.samples.max(1))
                    .map(|_| {
                        let t0 = web_time::Instant::now();
                        k.run();
                        t0.elapsed().as_secs_f64()
                    })
                    .collect();
                Outcome::Done(Box::new(ResultRecord::new(
                    case.clone(),
                    cpu_platform(),
                    TimingMethod::CpuClock,
                    samples,
                    k.model(),
                    validation,
                    BTreeMap::new(),
                )))
            }
        };
        progress(Progress::Finish(&o));
        out.push(o);
    }
    Ok(out)
}
