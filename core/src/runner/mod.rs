//! The runner: the one path from a request to outcomes that every front end
//! takes. [`Runner::run`] plans a request into cases on a platform and runs
//! each one, reporting progress; [`run_case`] prepares a case on a GPU,
//! validates its first run, warms up, times the samples and turns it all
//! into a [`ResultRecord`]. The CPU reference platform's planning and runs
//! live in `cpu.rs`.

use crate::app::{App, Case, Kernel, Validation};
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::precision::Precision;
use crate::record::{ResultRecord, Tuning};
use crate::timing::Phases;
use web_time::Instant;

mod cpu;
mod sample;

use sample::{submit_runs, time_kernel, warm_up};

pub use sample::timing_now;

pub use cpu::{
    CPU_REFERENCE, cpu_capabilities, cpu_honoured, cpu_plan, cpu_platform, run_case_cpu,
};

/// How many runs to make of each case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Untimed runs after validation (at least this many).
    pub warmup: u32,
    /// Keep warming up until the GPU has been busy without a break for
    /// this long (seconds). A GPU's clock governor needs sustained load to
    /// raise the clocks: on the H200 the SM clock idles at 345 MHz, and
    /// after 0.2 s of warm-up 4 of 12 cases were still timed at 345-1095 MHz
    /// (2-4x slow); after 2 s none were (docs/notebook/benchmarks.md). The GPU is kept
    /// busy between cases ([`Gpu::keep_warm`]), so this is paid once per
    /// process rather than once per case.
    pub warmup_s: f64,
    /// Timed runs (at most this many when `budget_s` is set).
    pub samples: u32,
    /// Seconds of timed runs a case aims for: when `samples` runs would
    /// take longer (as the warm-up's runs estimate), fewer are taken, at
    /// least [`MIN_SAMPLES`]. 0 takes `samples` runs whatever they cost.
    pub budget_s: f64,
    /// Back-to-back runs a sample spans; the sample is their mean. 1 times
    /// each run alone, so a sample also holds the GPU's start and drain
    /// around one run (2-6 us more on an H100 than a run among others);
    /// more matches codes that time a loop of launches (su3_bench).
    pub runs_per_sample: u32,
}

/// The fewest timed runs a budget leaves (a median of three still shows
/// an outlier as one).
pub const MIN_SAMPLES: u32 = 3;

impl RunOptions {
    /// Timed samples for a kernel whose runs take `run_s` seconds each.
    pub fn samples_for(&self, run_s: f64) -> u32 {
        let most = self.samples.max(1);
        let sample_s = run_s * f64::from(self.runs());
        if self.budget_s <= 0.0 || sample_s <= 0.0 {
            return most;
        }
        let fit = (self.budget_s / sample_s).ceil().min(f64::from(most)) as u32;
        fit.max(MIN_SAMPLES.min(most))
    }

    /// Runs per sample, at least one.
    pub fn runs(&self) -> u32 {
        self.runs_per_sample.max(1)
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            warmup: 2,
            warmup_s: 1.0,
            samples: 20,
            budget_s: 1.0,
            runs_per_sample: 1,
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
        error: Error,
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
            Outcome::Done(r) => !r.validation.usable(),
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

/// Where the cases of a request run.
pub enum Platform<'a> {
    /// An open GPU: each case is prepared, validated and timed on it.
    Gpu(&'a Gpu),
    /// The CPU reference platform (f64, rayon); the request runs in f64.
    Cpu,
    /// Somewhere else, one case at a time (for example a fresh process per
    /// case): the request is planned against `caps` and `run` gives each
    /// case's outcome.
    External {
        /// Capabilities of the adapter the cases run on.
        caps: &'a Capabilities,
        /// Runs one case.
        run: &'a mut dyn FnMut(&Case) -> Outcome,
    },
}

/// A request's cases: those to run, and the outcomes of those that cannot
/// run on the platform.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Cases to run, in order.
    pub cases: Vec<Case>,
    /// Cases the platform cannot run ([`Outcome::Unsupported`]).
    pub skipped: Vec<Outcome>,
}

/// Expands `req` for `app` on a platform with `caps`, splitting off cases
/// whose precision the platform lacks. With `strict`, an explicitly
/// requested precision the platform lacks is an error; otherwise (and for a
/// defaulted one) its cases become [`Outcome::Unsupported`].
pub fn plan(
    app: &dyn App,
    req: &crate::app::Request,
    caps: &Capabilities,
    strict: bool,
) -> Result<Plan> {
    let (mut cases, mut skipped) = (Vec::new(), Vec::new());
    for c in app.cases(req, caps)? {
        if c.precision == Precision::F64 && !caps.f64 {
            if strict && !req.precisions.is_empty() {
                return Err(Error::MissingFeature("SHADER_F64"));
            }
            skipped.push(Outcome::Unsupported {
                case: c,
                reason: "needs SHADER_F64".into(),
            });
        } else {
            cases.push(c);
        }
    }
    Ok(Plan { cases, skipped })
}

/// Chooses the configuration each planned case runs in: a tuning cache's
/// best for the adapter and problem ([`crate::tune::apply::Tuned`]), or
/// the request's own.
pub trait Configure {
    /// `cases` (the plan of `req` for `app` on an adapter with `caps`) as
    /// they are to run, each with where its configuration came from.
    fn configure(
        &self,
        app: &dyn App,
        req: &crate::app::Request,
        caps: &Capabilities,
        cases: Vec<Case>,
    ) -> Result<Vec<(Case, Tuning)>>;
}

/// Runs requests on one platform with one set of options.
pub struct Runner<'a> {
    platform: Platform<'a>,
    opts: RunOptions,
    strict: bool,
    done: Vec<Case>,
    configure: Option<&'a dyn Configure>,
}

impl<'a> Runner<'a> {
    /// A runner on `platform`; an explicitly requested precision the
    /// platform lacks is an error (see [`Runner::lenient`]).
    pub fn new(platform: Platform<'a>, opts: RunOptions) -> Runner<'a> {
        Runner {
            platform,
            opts,
            strict: true,
            done: Vec::new(),
            configure: None,
        }
    }

    /// Runs each case of a GPU in the configuration `configure` chooses
    /// (the CPU reference platform has none to choose).
    pub fn configured(mut self, configure: &'a dyn Configure) -> Runner<'a> {
        self.configure = Some(configure);
        self
    }

    /// Leaves out the cases whose records an earlier, stopped run already
    /// holds (`done`: their records' cases), so a run resumes where it
    /// stopped.
    pub fn resuming(mut self, done: Vec<Case>) -> Runner<'a> {
        self.done = done;
        self
    }

    /// Lists the cases of a precision the platform lacks as unsupported
    /// instead of failing the request (a UI shows them as such).
    pub fn lenient(mut self) -> Runner<'a> {
        self.strict = false;
        self
    }

    /// Runs every case of `req` for `app`, reporting progress: the skipped
    /// cases first, then each case as it starts and finishes. A request
    /// that cannot be planned is an error; a case that fails is an
    /// [`Outcome::Failed`]. `stop` is polled between cases so a front end
    /// can cancel, and a lost device ends the run.
    pub async fn run(
        &mut self,
        app: &dyn App,
        req: &crate::app::Request,
        progress: &mut dyn FnMut(Progress<'_>),
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<Outcome>> {
        let (Plan { cases, mut skipped }, tunings) = self.plan_configured(app, req)?;
        for o in &skipped {
            progress(Progress::Finish(o));
        }
        let total = cases.len();
        for (index, (case, tuning)) in cases.iter().zip(tunings).enumerate() {
            if stop() {
                break;
            }
            progress(Progress::Start { case, index, total });
            let mut outcome = match &mut self.platform {
                Platform::Gpu(gpu) => run_case(gpu, app, case, self.opts).await,
                Platform::Cpu => run_case_cpu(app, case, self.opts),
                Platform::External { run, .. } => run(case),
            };
            if let Outcome::Done(r) = &mut outcome {
                r.tuning = tuning;
            }
            progress(Progress::Finish(&outcome));
            skipped.push(outcome);
            if let Platform::Gpu(gpu) = &self.platform
                && gpu.check_lost().is_err()
            {
                break;
            }
        }
        if let Platform::Gpu(gpu) = &self.platform {
            gpu.end_request();
        }
        Ok(skipped)
    }

    /// The cases [`Runner::run`] would run of `req` for `app`, less those
    /// of a resumed run, and those the platform cannot run.
    pub fn plan(&self, app: &dyn App, req: &crate::app::Request) -> Result<Plan> {
        self.plan_configured(app, req).map(|(plan, _)| plan)
    }

    /// [`Runner::plan`], each case in the configuration it runs in, with
    /// where that came from.
    fn plan_configured(
        &self,
        app: &dyn App,
        req: &crate::app::Request,
    ) -> Result<(Plan, Vec<Tuning>)> {
        let cpu_caps = cpu_capabilities();
        let (caps, req) = match &self.platform {
            Platform::Gpu(gpu) => (&gpu.caps, req.clone()),
            Platform::Cpu => (&cpu_caps, req.clone().precisions(&[Precision::F64])),
            Platform::External { caps, .. } => (*caps, req.clone()),
        };
        let planned = plan(app, &req, caps, self.strict)?;
        let Plan { cases, skipped } = match self.platform {
            Platform::Cpu => cpu_plan(app, planned),
            _ => planned,
        };
        let configured = match (self.configure, &self.platform) {
            (Some(c), Platform::Gpu(_) | Platform::External { .. }) => {
                c.configure(app, &req, caps, cases)?
            }
            _ => cases.into_iter().map(|c| (c, Tuning::Defaults)).collect(),
        };
        let recorded = |c: &Case| match self.platform {
            Platform::Cpu => cpu::recorded_case(app, c),
            _ => c.clone(),
        };
        let (cases, tunings) = configured
            .into_iter()
            .filter(|(c, _)| !self.done.contains(&recorded(c)))
            .unzip();
        Ok((Plan { cases, skipped }, tunings))
    }
}

/// Runs one case on `gpu` and never panics: errors become [`Outcome::Failed`].
pub async fn run_case(gpu: &Gpu, app: &dyn App, case: &Case, opts: RunOptions) -> Outcome {
    match try_run_case(gpu, app, case, opts).await {
        Ok(r) => Outcome::Done(Box::new(r)),
        Err(Error::MissingFeature(f)) => Outcome::Unsupported {
            case: case.clone(),
            reason: format!("needs {f}"),
        },
        Err(error) => Outcome::Failed {
            case: case.clone(),
            error,
        },
    }
}

/// A kernel prepared on the GPU, its first run checked, and what that took.
struct Checked {
    kernel: Box<dyn Kernel>,
    validation: Validation,
    metrics: std::collections::BTreeMap<String, f64>,
    prepare_s: f64,
    validate_s: f64,
}

/// Prepares `case` on `gpu` and checks its first run.
async fn prepare_checked(gpu: &Gpu, app: &dyn App, case: &Case) -> Result<Checked> {
    gpu.require(case.precision)?;
    let start = Instant::now();
    // The host's share (inputs, reference, pipelines, the comparison) runs
    // while the GPU is kept busy, so the clocks stay where the last case
    // left them and the warm-up below is short.
    gpu.keep_warm(async {
        let kernel = match gpu.scoped(|| app.prepare(gpu, case)).await {
            // Inputs kept on the device for other variants may be what
            // filled it: drop them, let wgpu free them, and try again.
            Err(e) if e.is_out_of_memory() && gpu.uploads.clear() => {
                gpu.finish().await?;
                gpu.scoped(|| app.prepare(gpu, case)).await?
            }
            prepared => prepared?,
        };
        let prepared = Instant::now();
        // Validation run: exactly one run over poisoned outputs.
        gpu.scoped(|| {
            submit_runs(gpu, kernel.as_ref(), 1);
            Ok(())
        })
        .await?;
        let (validation, metrics) = gpu
            .read_with(&kernel.outputs(), |bytes| kernel.check(bytes))
            .await?;
        Ok(Checked {
            kernel,
            validation,
            metrics,
            prepare_s: prepared.duration_since(start).as_secs_f64(),
            validate_s: prepared.elapsed().as_secs_f64(),
        })
    })
    .await
}

/// A case prepared and validated once, kept to be timed again and again:
/// the tuner times two of them in turn (defaults, candidate, defaults,
/// ...) so that both see the same state of a shared machine.
pub struct Ready {
    kernel: Box<dyn Kernel>,
    run_s: f64,
}

impl Ready {
    /// Prepares `case` on `gpu` and checks its first run; a run that does
    /// not validate is an error.
    pub async fn new(gpu: &Gpu, app: &dyn App, case: &Case) -> Result<Ready> {
        let c = prepare_checked(gpu, app, case).await?;
        if !c.validation.usable() {
            return Err(Error::Validation(format!(
                "{}: {}",
                case.variant, c.validation.detail
            )));
        }
        Ok(Ready {
            kernel: c.kernel,
            run_s: c.validate_s,
        })
    }

    /// Warms up as `opts` asks (short where the GPU is already busy) and
    /// times `opts.samples` samples (fewer within `opts.budget_s`): their
    /// median, seconds.
    pub async fn median(&mut self, gpu: &Gpu, opts: RunOptions) -> Result<f64> {
        if let Some(run_s) = warm_up(gpu, self.kernel.as_ref(), opts).await? {
            self.run_s = run_s;
        }
        let timed = Instant::now();
        let t = time_kernel(gpu, self.kernel.as_ref(), opts, self.run_s).await?;
        gpu.busy.record(timed, Instant::now());
        Ok(crate::timing::Stats::of(&t.samples).median)
    }
}

async fn try_run_case(
    gpu: &Gpu,
    app: &dyn App,
    case: &Case,
    opts: RunOptions,
) -> Result<ResultRecord> {
    let start = Instant::now();
    let compiled = gpu.compile_seconds();
    let Checked {
        kernel,
        validation,
        metrics,
        prepare_s,
        validate_s,
    } = prepare_checked(gpu, app, case).await?;
    let compile_s = gpu.compile_seconds() - compiled;
    let warm = Instant::now();
    let run_s = warm_up(gpu, kernel.as_ref(), opts)
        .await?
        .unwrap_or(validate_s);
    let timed = Instant::now();
    let t = time_kernel(gpu, kernel.as_ref(), opts, run_s).await?;
    gpu.busy.record(timed, Instant::now());
    let phases = Phases {
        prepare_s,
        compile_s,
        validate_s,
        warmup_s: timed.duration_since(warm).as_secs_f64(),
        timed_s: timed.elapsed().as_secs_f64(),
        wall_s: start.elapsed().as_secs_f64(),
    };
    let mut record = ResultRecord::new(
        case.clone(),
        gpu.info.clone(),
        t.method,
        t.samples,
        kernel.model(),
        validation,
        metrics,
    );
    record.phases = Some(phases);
    record.runs_per_sample = t.runs;
    record.timer_resolution_s = Some(t.resolution_s);
    record.working_set_bytes = kernel.working_set();
    record.issued_bytes = kernel.issued_bytes();
    Ok(record)
}

#[cfg(test)]
mod tests;
