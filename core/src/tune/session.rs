//! A tune on one GPU: each app's units searched in turn within a budget of
//! wall time, every configuration run as a run runs a case (validated,
//! warmed up, timed) and recorded in the cache at once. Async, like the
//! runner: front ends choose the executor.

use std::time::Duration;

use web_time::Instant;

use crate::app::{App, Case, Request};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::runner::{self, Outcome, Ready, RunOptions};

use super::cache::{DeviceKey, Entry, Trial, TuningCache};
use super::confirm::{self, Confirmation};
use super::search::{self, Ended, Eval};
use super::space::{self, Axis, Space};
use super::{Config, Unit};

/// How a tune runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TuneOptions {
    /// Seconds of wall time for the whole tune: split evenly over the
    /// apps, and within an app, after each unit's defaults, over its units
    /// in proportion to what their defaults took; what an app or unit
    /// leaves passes to the next. No configuration starts after it; one
    /// started in time finishes.
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
    /// A unit's best was re-measured against its defaults, and the
    /// verdict recorded in `cache` (which a front end saves now).
    Confirmed {
        /// The unit's entry, with its [`Entry::confirm`].
        entry: &'a Entry,
        /// The cache with it.
        cache: &'a TuningCache,
    },
    /// A unit's search (and re-measure) ended, or had in an earlier tune.
    Done(&'a Entry),
    /// The budget ended before a unit's first configuration.
    Unreached(&'a Unit),
}

/// Tunes every unit of `jobs` on `gpu`, recording into `cache`; stops
/// between configurations when `stop` says so or the device is lost.
/// The budget is split evenly over the apps (what one leaves passing to
/// the next); within an app, each unit's defaults are measured first, and
/// what they took sets each unit's share of the app's time left, so that
/// every unit gets about as many configurations as the others.
pub async fn tune(
    gpu: &Gpu,
    jobs: &[Job<'_>],
    cache: &mut TuningCache,
    opts: &TuneOptions,
    progress: &mut dyn FnMut(Event<'_>),
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    let end = Instant::now() + Duration::from_secs_f64(opts.budget_s.max(0.0));
    let mut apps: Vec<Vec<(Target<'_>, Space)>> = Vec::new();
    for job in jobs {
        let plan = runner::plan(job.app, &job.base, &gpu.caps, false)?;
        let mut targets: Vec<(Target<'_>, Space)> = Vec::new();
        for case in &plan.cases {
            let unit = Unit::of(job.app, case);
            if targets.iter().any(|(t, _)| t.unit == unit) {
                continue;
            }
            let space = Space::new(job.app, &job.base, &unit, job.axes.clone(), &gpu.caps);
            // A unit with one configuration has nothing to tune.
            if space.size() > 1 {
                let target = Target {
                    gpu,
                    app: job.app,
                    base: &job.base,
                    unit,
                    opts: opts.run,
                };
                targets.push((target, space));
            }
        }
        apps.push(targets);
    }
    let total = apps.iter().map(Vec::len).sum();
    let mut index = 0;
    for (a, targets) in apps.iter().enumerate() {
        let app_end = Instant::now()
            + end.saturating_duration_since(Instant::now()) / (apps.len() - a) as u32;
        let run = Run {
            gpu,
            total,
            end: app_end,
            stop,
        };
        if !run.app(targets, cache, &mut index, progress).await {
            break;
        }
    }
    Ok(())
}

/// One app's part of a tune.
struct Run<'a> {
    gpu: &'a Gpu,
    /// Units in the whole tune.
    total: usize,
    /// When the app's share of the budget ends.
    end: Instant,
    stop: &'a dyn Fn() -> bool,
}

impl Run<'_> {
    fn halted(&self) -> bool {
        (self.stop)() || self.gpu.check_lost().is_err()
    }

    /// Tunes `targets` (one app's units), counting them from `index`;
    /// false once stopped.
    async fn app(
        &self,
        targets: &[(Target<'_>, Space)],
        cache: &mut TuningCache,
        index: &mut usize,
        progress: &mut dyn FnMut(Event<'_>),
    ) -> bool {
        // Each unit's defaults (the search's first point), where no
        // earlier tune measured them.
        let device = DeviceKey::of(&self.gpu.info);
        for (t, space) in targets {
            if self.halted() {
                return false;
            }
            if cache.entry(&device, &t.unit).is_none() {
                t.search(space, cache, self.end, Some(1), progress, self.stop)
                    .await;
                self.gpu.end_request();
            }
        }
        // An earlier tune's best that was never re-measured is re-measured
        // first, within the app's share: runs would otherwise take it
        // unconfirmed, and a search's share ending first must not leave it so.
        for (t, _) in targets {
            let waiting = cache
                .entry(&device, &t.unit)
                .is_some_and(Entry::needs_confirm);
            if waiting && !self.halted() && Instant::now() < self.end {
                self.confirm_unit(t, cache, &device, progress).await;
            }
        }
        for (k, (t, space)) in targets.iter().enumerate() {
            if self.halted() {
                return false;
            }
            let costs: Vec<f64> = targets[k..].iter().map(|(t, _)| t.cost(cache)).collect();
            let left = self.end.saturating_duration_since(Instant::now());
            let budget = left.mul_f64(costs[0] / costs.iter().sum::<f64>());
            progress(Event::Unit {
                unit: &t.unit,
                index: *index,
                total: self.total,
                space: space.size(),
                budget_s: budget.as_secs_f64(),
            });
            *index += 1;
            // The re-measure's time comes out of the unit's share (at most
            // half of it): about two runs of the defaults' trial.
            let reserve = Duration::from_secs_f64(2.0 * costs[0]).min(budget / 2);
            let tried = cache.entry(&device, &t.unit).map_or(0, |e| e.trials.len());
            let ended = t
                .search(
                    space,
                    cache,
                    Instant::now() + budget - reserve,
                    None,
                    progress,
                    self.stop,
                )
                .await;
            self.gpu.end_request();
            let Some(entry) = cache.entry_mut(&device, &t.unit) else {
                progress(Event::Unreached(&t.unit));
                continue;
            };
            entry.complete = ended == Ended::Complete;
            // A search that measured something is always followed by its
            // re-measure (a configuration started in time finishes, and
            // so does the unit: else a run would take an unconfirmed
            // best); an earlier tune's best is re-measured only within
            // the app's share.
            let searched = entry.trials.len() > tried;
            let in_time = searched || Instant::now() < self.end;
            if entry.needs_confirm() && !self.halted() && in_time {
                self.confirm_unit(t, cache, &device, progress).await;
            }
            if let Some(entry) = cache.entry(&device, &t.unit) {
                progress(Event::Done(entry));
            }
        }
        true
    }

    /// Re-measures the unit's best against its defaults and records it.
    async fn confirm_unit(
        &self,
        t: &Target<'_>,
        cache: &mut TuningCache,
        device: &DeviceKey,
        progress: &mut dyn FnMut(Event<'_>),
    ) {
        let Some(entry) = cache.entry(device, &t.unit) else {
            return;
        };
        let defaults = entry.defaults.clone();
        let best = entry.best.as_ref().map(|b| b.config.clone());
        let confirmation = t.confirm(&defaults, &best.unwrap_or_default()).await;
        self.gpu.end_request();
        if let Some(entry) = cache.entry_mut(device, &t.unit) {
            entry.confirm = Some(confirmation);
        }
        if let Some(entry) = cache.entry(device, &t.unit) {
            progress(Event::Confirmed { entry, cache });
        }
    }
}

/// One unit being tuned.
struct Target<'a> {
    gpu: &'a Gpu,
    app: &'a dyn App,
    base: &'a Request,
    unit: Unit,
    opts: RunOptions,
}

impl Target<'_> {
    /// Seconds its first configuration took (1 where none was measured).
    fn cost(&self, cache: &TuningCache) -> f64 {
        cache
            .entry(&DeviceKey::of(&self.gpu.info), &self.unit)
            .and_then(|e| e.trials.first())
            .map_or(1.0, |t| t.wall_s.max(1e-3))
    }

    /// Searches `space` until the search ends, `deadline`, or `most` new
    /// configurations, replaying those `cache` already holds; a unit whose
    /// search ended in an earlier tune is not searched again.
    async fn search(
        &self,
        space: &Space,
        cache: &mut TuningCache,
        deadline: Instant,
        most: Option<usize>,
        progress: &mut dyn FnMut(Event<'_>),
        stop: &dyn Fn() -> bool,
    ) -> Ended {
        let device = DeviceKey::of(&self.gpu.info);
        let defaults = space.config(&vec![0; space.axes.len()]);
        if let Some(e) = cache.entry_mut(&device, &self.unit) {
            if e.complete && e.space == space.size() {
                return Ended::Complete;
            }
            (e.defaults, e.space) = (defaults.clone(), space.size());
        }
        // Configurations that make a case already run here reuse its time.
        let mut ran: Vec<(Case, Trial)> = Vec::new();
        let mut measured = 0;
        search::run(
            &space.dims(),
            search::seed(&self.unit.label()),
            async |point: &[usize]| {
                let config = space.config(point);
                if let Some(t) = cache
                    .entry(&device, &self.unit)
                    .and_then(|e| e.trial(&config))
                {
                    return eval(t);
                }
                if most.is_some_and(|m| measured >= m)
                    || stop()
                    || Instant::now() >= deadline
                    || self.gpu.check_lost().is_err()
                {
                    return Eval::Stop;
                }
                measured += 1;
                let trial = self.measure(config, &mut ran).await;
                let entry = cache.entry_or_insert(&device, &self.unit, || Entry {
                    device: device.clone(),
                    unit: self.unit.clone(),
                    defaults: defaults.clone(),
                    space: space.size(),
                    complete: false,
                    trials: Vec::new(),
                    best: None,
                    confirm: None,
                });
                entry.add(trial.clone());
                progress(Event::Trial {
                    unit: &self.unit,
                    trial: &trial,
                    cache,
                });
                eval(&trial)
            },
        )
        .await
    }

    /// Runs the case `config` makes (or reuses the trial of a configuration
    /// that made the same case).
    async fn measure(&self, config: Config, ran: &mut Vec<(Case, Trial)>) -> Trial {
        let start = Instant::now();
        let failed = |detail: String| Trial {
            config: config.clone(),
            variant: String::new(),
            median_s: None,
            passed: false,
            detail,
            wall_s: start.elapsed().as_secs_f64(),
        };
        let case = match space::cases(self.app, self.base, &self.unit, &config, &self.gpu.caps) {
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
        let mut trial = match runner::run_case(self.gpu, self.app, &case, self.opts).await {
            Outcome::Done(r) => Trial {
                config,
                variant: case.variant.clone(),
                median_s: Some(r.stats.median),
                passed: r.validation.usable(),
                detail: r.validation.detail,
                wall_s: 0.0,
            },
            Outcome::Unsupported { reason, .. } => failed(reason),
            Outcome::Failed { error, .. } => failed(error.to_string()),
        };
        trial.wall_s = start.elapsed().as_secs_f64();
        ran.push((case, trial.clone()));
        trial
    }
}

impl Target<'_> {
    /// Re-measures `best` against `defaults` ([`confirm`]).
    async fn confirm(&self, defaults: &Config, best: &Config) -> Confirmation {
        match self.rounds(defaults, best).await {
            Ok(rounds) => Confirmation::of(best.clone(), &rounds),
            Err(e) => Confirmation::failed(best.clone(), e.to_string()),
        }
    }

    /// [`confirm::ROUNDS`] rounds, each timing the defaults and `best`
    /// (each prepared once and kept), which goes first alternating so that
    /// a drift within a round favours neither: each round's pair of median
    /// times, seconds.
    async fn rounds(&self, defaults: &Config, best: &Config) -> Result<Vec<(f64, f64)>> {
        let case = |config: &Config| -> Result<Case> {
            space::cases(self.app, self.base, &self.unit, config, &self.gpu.caps)?
                .into_iter()
                .next()
                .ok_or_else(|| Error::Validation("makes no case of this kernel".into()))
        };
        let mut a = Ready::new(self.gpu, self.app, &case(defaults)?).await?;
        let mut b = Ready::new(self.gpu, self.app, &case(best)?).await?;
        // Half a trial's timing budget a side: ten timings a unit.
        let opts = RunOptions {
            warmup: 1,
            budget_s: self.opts.budget_s / 2.0,
            ..self.opts
        };
        let mut rounds = Vec::with_capacity(confirm::ROUNDS);
        for r in 0..confirm::ROUNDS {
            let (d, t) = match r % 2 {
                0 => {
                    let d = a.median(self.gpu, opts).await?;
                    (d, b.median(self.gpu, opts).await?)
                }
                _ => {
                    let t = b.median(self.gpu, opts).await?;
                    (a.median(self.gpu, opts).await?, t)
                }
            };
            rounds.push((d, t));
        }
        Ok(rounds)
    }
}

/// What a recorded trial tells the search.
fn eval(t: &Trial) -> Eval {
    match (t.passed, t.median_s) {
        (true, Some(s)) => Eval::Time(s),
        _ => Eval::Failed,
    }
}
