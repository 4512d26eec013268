//! A tune on one GPU: each app's units searched in turn within a budget of
//! wall time, every configuration run as a run runs a case (validated,
//! warmed up, timed) and recorded in the cache at once. Async, like the
//! runner: front ends choose the executor.

use std::time::Duration;

use web_time::Instant;

use crate::app::{App, Case, Request};
use crate::error::Result;
use crate::gpu::Gpu;
use crate::runner::{self, Outcome, RunOptions};

use super::cache::{DeviceKey, Entry, Trial, TuningCache};
use super::search::{self, Ended, Eval};
use super::space::{self, Axis, Space};
use super::{Config, Unit};

/// How a tune runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuneOptions {
    /// Seconds of wall time for the whole tune: split evenly over the
    /// apps, and each app's share over its units, what a unit leaves
    /// passing to the next. No configuration starts after it; one started
    /// in time finishes.
    pub budget_s: f64,
    /// How each configuration is run.
    pub run: RunOptions,
}

/// One app's part of a tune.
pub struct Job<'a> {
    /// The app.
    pub app: &'a dyn App,
    /// Its request: the problem's size and the precisions; the units are
    /// this request's kernels, precisions and problems.
    pub base: Request,
    /// The parameters searched ([`space::declared`]).
    pub axes: Vec<Axis>,
}

/// What a tune reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A unit's search starts.
    Unit {
        /// The unit.
        unit: &'a Unit,
        /// Zero-based position among the units with something to tune.
        index: usize,
        /// How many units have something to tune.
        total: usize,
        /// How many configurations its space holds.
        space: usize,
        /// Seconds it may take.
        budget_s: f64,
    },
    /// A configuration was measured and recorded in `cache` (which a front
    /// end saves now, so a stopped tune keeps it).
    Trial {
        /// The unit.
        unit: &'a Unit,
        /// What was measured.
        trial: &'a Trial,
        /// The cache with the trial in it.
        cache: &'a TuningCache,
    },
    /// A unit's search ended (or had ended in an earlier tune).
    Done(&'a Entry),
}

/// Tunes every unit of `jobs` on `gpu`, recording into `cache`; stops
/// between configurations when `stop` says so or the device is lost.
pub async fn tune(
    gpu: &Gpu,
    jobs: &[Job<'_>],
    cache: &mut TuningCache,
    opts: &TuneOptions,
    progress: &mut dyn FnMut(Event<'_>),
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    let end = Instant::now() + Duration::from_secs_f64(opts.budget_s.max(0.0));
    let mut planned = Vec::new();
    for job in jobs {
        let plan = runner::plan(job.app, &job.base, &gpu.caps, false)?;
        let mut units: Vec<(Unit, Space)> = Vec::new();
        for case in &plan.cases {
            let unit = Unit::of(job.app, case);
            if units.iter().all(|(u, _)| *u != unit) {
                let space = Space::new(job.app, &job.base, &unit, job.axes.clone(), &gpu.caps);
                units.push((unit, space));
            }
        }
        // A unit with one configuration has nothing to tune.
        units.retain(|(_, s)| s.size() > 1);
        planned.push((job, units));
    }
    let total: usize = planned.iter().map(|(_, u)| u.len()).sum();
    let mut index = 0;
    for (a, (job, units)) in planned.iter().enumerate() {
        let app_end = share(end, planned.len() - a);
        for (u, (unit, space)) in units.iter().enumerate() {
            if stop() || gpu.check_lost().is_err() {
                return Ok(());
            }
            let deadline = share(app_end, units.len() - u);
            progress(Event::Unit {
                unit,
                index,
                total,
                space: space.size(),
                budget_s: deadline
                    .saturating_duration_since(Instant::now())
                    .as_secs_f64(),
            });
            index += 1;
            let target = Target {
                gpu,
                app: job.app,
                base: &job.base,
                unit,
                opts: opts.run,
            };
            target.search(space, cache, deadline, progress, stop).await;
            gpu.end_request();
        }
    }
    Ok(())
}

/// The instant an even share of the time to `end` ends, split `parts` ways.
fn share(end: Instant, parts: usize) -> Instant {
    let left = end.saturating_duration_since(Instant::now());
    Instant::now() + left / parts.max(1) as u32
}

/// One unit being tuned.
struct Target<'a> {
    gpu: &'a Gpu,
    app: &'a dyn App,
    base: &'a Request,
    unit: &'a Unit,
    opts: RunOptions,
}

impl Target<'_> {
    /// Searches `space` until the search ends or `deadline`, replaying the
    /// configurations `cache` already holds; records whether it ended.
    async fn search(
        &self,
        space: &Space,
        cache: &mut TuningCache,
        deadline: Instant,
        progress: &mut dyn FnMut(Event<'_>),
        stop: &dyn Fn() -> bool,
    ) {
        let device = DeviceKey::of(&self.gpu.info);
        let defaults = space.config(&vec![0; space.axes.len()]);
        let i = cache.index_of(&device, self.unit, || Entry {
            device: device.clone(),
            unit: self.unit.clone(),
            defaults: defaults.clone(),
            space: space.size(),
            complete: false,
            trials: Vec::new(),
            best: None,
        });
        let entry = &mut cache.entries[i];
        if entry.complete && entry.space == space.size() {
            progress(Event::Done(entry));
            return;
        }
        (entry.defaults, entry.space) = (defaults, space.size());
        // Configurations that make a case already run here reuse its time.
        let mut ran: Vec<(Case, Trial)> = Vec::new();
        let ended = search::run(
            &space.dims(),
            search::seed(&self.unit.label()),
            async |point: &[usize]| {
                let config = space.config(point);
                if let Some(t) = cache.entries[i].trial(&config) {
                    return eval(t);
                }
                if stop() || Instant::now() >= deadline || self.gpu.check_lost().is_err() {
                    return Eval::Stop;
                }
                let trial = self.measure(config, &mut ran).await;
                cache.entries[i].add(trial.clone());
                progress(Event::Trial {
                    unit: self.unit,
                    trial: &trial,
                    cache,
                });
                eval(&trial)
            },
        )
        .await;
        let entry = &mut cache.entries[i];
        entry.complete = ended == Ended::Complete;
        progress(Event::Done(entry));
    }

    /// Runs the case `config` makes (or reuses the trial of a configuration
    /// that made the same case).
    async fn measure(&self, config: Config, ran: &mut Vec<(Case, Trial)>) -> Trial {
        let failed = |detail: String| Trial {
            config: config.clone(),
            variant: String::new(),
            median_s: None,
            passed: false,
            detail,
        };
        let case = match space::cases(self.app, self.base, self.unit, &config, &self.gpu.caps) {
            Err(e) => return failed(e.to_string()),
            Ok(cases) => match cases.into_iter().next() {
                Some(c) => c,
                None => return failed("makes no case of this kernel".into()),
            },
        };
        if let Some((_, t)) = ran.iter().find(|(c, _)| *c == case) {
            return Trial {
                config,
                detail: format!("the same case as {:?}", t.config),
                ..t.clone()
            };
        }
        let trial = match runner::run_case(self.gpu, self.app, &case, self.opts).await {
            Outcome::Done(r) => Trial {
                config,
                variant: case.variant.clone(),
                median_s: Some(r.stats.median),
                passed: r.validation.usable(),
                detail: r.validation.detail,
            },
            Outcome::Unsupported { reason, .. } => failed(reason),
            Outcome::Failed { error, .. } => failed(error.to_string()),
        };
        ran.push((case, trial.clone()));
        trial
    }
}

/// What a recorded trial tells the search.
fn eval(t: &Trial) -> Eval {
    match (t.passed, t.median_s) {
        (true, Some(s)) => Eval::Time(s),
        _ => Eval::Failed,
    }
}
