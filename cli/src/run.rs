//! `skylight run` and `sweep`: each app's cases in turn, every record
//! written out as its case finishes ([`Output`]). A signal ([`stop`]) or a
//! lost device ends the run with what it finished written and the count of
//! cases left, which `--resume FILE` then runs.

use std::cell::RefCell;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use skylight_core::app::{App, Case, Request};
use skylight_core::record::ResultRecord;
use skylight_core::registry;
use skylight_core::roofline::Roofline;
use skylight_core::runner::{Outcome, Platform as Target, Progress, RunOptions, Runner};
use skylight_core::tune::apply::{Tuned, sets_tunable};
use skylight_core::tune::cache::TuningCache;

use crate::output::Output;
use crate::{Platform, RunArgs, inputs, isolate, report, stop, timing_report};

/// How the cases of a run are run.
pub struct Settings {
    /// Runs per case.
    pub opts: RunOptions,
    /// No progress bar.
    pub quiet: bool,
    /// Each case in a process of its own.
    pub isolate: bool,
    /// The cases a resumed run's file already holds (left out).
    pub done: Vec<Case>,
    /// The tuning cache's best configurations for the adapter, if used.
    pub tuned: Option<Tuned>,
}

/// One app's part of a run.
pub struct AppRun {
    /// The app.
    pub app: &'static str,
    /// Wall time of its request.
    pub wall: Duration,
    /// Its outcomes, unsupported cases included.
    pub outcomes: Vec<Outcome>,
    /// How many of its cases started (and so finished).
    pub started: usize,
}

/// `skylight run` (`sweep`: with each app's characteristic sweep and the
/// sweep table); `Ok(false)` when a case failed.
pub fn run(args: &RunArgs, sweep: bool) -> Result<bool> {
    #[cfg(feature = "mpi")]
    if !sweep && crate::scaleout::launched() {
        let mode = skylight_core::scale::ScaleMode {
            scaling: args.scaling,
            overlap: !args.no_overlap,
            axes: args.axes as usize,
            halos: args.halos,
        };
        return crate::scaleout::run(args, mode);
    } else if args.scaling != skylight_core::scale::Scaling::Strong
        || args.no_overlap
        || args.axes != 1
        || args.halos != skylight_core::scale::Halos::Auto
    {
        bail!(
            "--scaling, --no-overlap, --axes and --halos need an MPI launch (mpirun -np N skylight run ...)"
        );
    }
    let apps: Vec<&dyn App> = if args.app == "all" {
        registry::apps()
    } else {
        vec![registry::find(&args.app)?]
    };
    // A resumed run writes back to its file unless --json says otherwise.
    let json = args.common.json.clone().or_else(|| args.resume.clone());
    // Check every request and output path before touching the device, so
    // typos and unwritable paths fail fast.
    for path in [&json, &args.common.csv].into_iter().flatten() {
        crate::check_writable(path)?;
    }
    let strict = apps.len() == 1;
    let requests: Vec<(&dyn App, Request)> = apps
        .iter()
        .map(|&a| crate::request_for(a, args, strict, sweep).map(|r| (a, r)))
        .collect::<Result<_>>()?;
    let resumed = match &args.resume {
        Some(path) => resumed(path)?,
        None => Vec::new(),
    };
    let platform = crate::open_platform(&args.common)?;
    same_platform(&resumed, &platform)?;
    let settings = Settings {
        opts: crate::run_options(&args.common, &platform),
        quiet: args.common.quiet,
        isolate: args.isolate,
        done: resumed.iter().map(|r| r.case.clone()).collect(),
        tuned: match sweep || args.untuned {
            true => None,
            false => tuned(&platform, args, &requests),
        },
    };
    plan_all(&platform, &requests, &settings)?;
    let mut output = Output::new(json, args.common.csv.clone(), resumed);
    stop::install()?;
    println!("{}", report::header());
    let runs = measure(&platform, &requests, &settings, &mut output)?;
    let ok = finish(runs.iter().flat_map(|a| &a.outcomes), &mut output, sweep)?;
    if args.timing_report {
        let times: Vec<timing_report::AppTime> = runs
            .iter()
            .map(|a| timing_report::AppTime {
                app: a.app,
                wall: a.wall,
                outcomes: &a.outcomes,
            })
            .collect();
        for line in timing_report::lines(&times) {
            println!("{line}");
        }
    }
    if stop::requested() || lost(&platform) {
        return halted(&platform, &requests, &settings, &runs, &output);
    }
    Ok(ok)
}

/// The end of a run that a signal or a lost device cut short: says how
/// many cases were left and how to run them, and fails.
fn halted(
    platform: &Platform,
    requests: &[(&dyn App, Request)],
    settings: &Settings,
    runs: &[AppRun],
    output: &Output,
) -> Result<bool> {
    let started: usize = runs.iter().map(|a| a.started).sum();
    let left = pending(platform, requests, settings).saturating_sub(started);
    let why = match stop::requested() {
        true => "stopped by a signal",
        false => "the device was lost",
    };
    eprintln!("{why} after {started} case(s): {left} case(s) left");
    if let Some(path) = output.json() {
        eprintln!(
            "{} holds every finished case; --resume {} runs the {left} left",
            path.display(),
            path.display()
        );
    }
    match stop::requested() {
        true => Err(stop::Stopped.into()),
        false => Ok(false),
    }
}

/// The records of the file a run resumes (cut short: those before the cut).
fn resumed(path: &Path) -> Result<Vec<ResultRecord>> {
    let file = inputs::load(path).context("--resume")?;
    eprintln!(
        "resuming: {} case(s) already in {}",
        file.records.len(),
        path.display()
    );
    Ok(file.records)
}

/// Refuses to resume a file measured on another platform: its cases would
/// be left out here, and the file would mix two devices.
fn same_platform(records: &[ResultRecord], platform: &Platform) -> Result<()> {
    let here = match platform {
        Platform::Gpu(gpu) => gpu.info.clone(),
        Platform::Cpu => skylight_core::runner::cpu_platform(),
    };
    let other = records
        .iter()
        .find(|r| r.platform.name != here.name || r.platform.backend != here.backend);
    if let Some(r) = other {
        bail!(
            "cannot resume: the file's cases ran on {}, this run is on {}",
            r.platform.label(),
            here.label()
        );
    }
    Ok(())
}

/// The tuning cache's best configurations for the adapter, said so;
/// `None` on the CPU platform, or where the cache has none for this
/// adapter. A cache that cannot be read is reported with its path and
/// ignored.
fn tuned(platform: &Platform, args: &RunArgs, requests: &[(&dyn App, Request)]) -> Option<Tuned> {
    let Platform::Gpu(gpu) = platform else {
        return None;
    };
    let path = crate::tune::path(&args.tuning).ok()?;
    let cache = match TuningCache::load(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("warning: tuning cache ignored: {e}");
            return None;
        }
    };
    let (tuned, warning) = Tuned::new(&cache, &gpu.info);
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }
    say_guard(&tuned, &path);
    if tuned.is_empty() {
        if args.tuning.is_some() {
            eprintln!(
                "tuning cache {} has nothing for this adapter: default configurations",
                path.display()
            );
        }
        return None;
    }
    eprintln!(
        "tuned: the best configurations of {} kernel(s) and problem(s) from {} (--untuned runs the defaults)",
        tuned.len(),
        path.display()
    );
    for (app, req) in requests {
        if let Some(p) = sets_tunable(*app, req) {
            eprintln!(
                "{}: `{p}` is set, so it runs as asked, not tuned",
                app.name()
            );
        }
    }
    Some(tuned)
}

/// The units the re-measure guard sends back to their defaults, and those
/// whose best was never re-measured (a cache from before the guard).
fn say_guard(tuned: &Tuned, path: &std::path::Path) {
    let rejected = tuned.rejected();
    if !rejected.is_empty() {
        eprintln!(
            "defaults for {} unit(s) whose tuned best was not faster than the defaults when re-measured:",
            rejected.len()
        );
        for r in rejected {
            eprintln!("  {r}");
        }
    }
    let unconfirmed = tuned.unconfirmed();
    if unconfirmed > 0 {
        eprintln!(
            "note: {unconfirmed} unit(s) run a tuned best never re-measured against the defaults (records say `unconfirmed`): tuning their apps again into {} re-measures them",
            path.display()
        );
    }
}

/// Whether the device of an in-process run was lost.
fn lost(platform: &Platform) -> bool {
    matches!(platform, Platform::Gpu(gpu) if gpu.check_lost().is_err())
}

/// The runner that plans the run's cases as `run_app` will run them.
fn planner<'a>(platform: &'a Platform, settings: &'a Settings) -> Runner<'a> {
    let target = match platform {
        Platform::Gpu(gpu) => Target::Gpu(gpu),
        Platform::Cpu => Target::Cpu,
    };
    configured(
        Runner::new(target, settings.opts).resuming(settings.done.clone()),
        settings,
    )
}

/// Makes every app's cases before any runs, so that a size or parameter
/// a later app refuses stops the run before the first app's work.
fn plan_all(
    platform: &Platform,
    requests: &[(&dyn App, Request)],
    settings: &Settings,
) -> Result<()> {
    let runner = planner(platform, settings);
    for (app, req) in requests {
        runner
            .plan(*app, req)
            .with_context(|| format!("app `{}`", app.name()))?;
    }
    Ok(())
}

/// How many cases the whole run has to run (less those resumed).
fn pending(platform: &Platform, requests: &[(&dyn App, Request)], settings: &Settings) -> usize {
    let runner = planner(platform, settings);
    requests
        .iter()
        .map(|(app, req)| runner.plan(*app, req).map_or(0, |p| p.cases.len()))
        .sum()
}

/// Runs the requests in turn, writing each record as its case finishes,
/// until they are done, a signal stops the run or the device is lost.
pub fn measure(
    platform: &Platform,
    requests: &[(&dyn App, Request)],
    settings: &Settings,
    output: &mut Output,
) -> Result<Vec<AppRun>> {
    let mut runs = Vec::new();
    for (app, req) in requests {
        if stop::requested() || lost(platform) {
            break;
        }
        let t0 = Instant::now();
        let (outcomes, started) = run_app(platform, *app, req, settings, output)?;
        runs.push(AppRun {
            app: app.name(),
            wall: t0.elapsed(),
            outcomes,
            started,
        });
    }
    Ok(runs)
}

/// `runner` in the tuning cache's configurations, where the run uses them.
fn configured<'a>(runner: Runner<'a>, settings: &'a Settings) -> Runner<'a> {
    match &settings.tuned {
        Some(t) => runner.configured(t),
        None => runner,
    }
}

fn progress_bar(quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(0);
    b.set_style(
        ProgressStyle::with_template("{spinner} [{pos}/{len}] {wide_msg} {elapsed} (ETA {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b
}

/// One app's request: its outcomes, and how many of its cases started.
fn run_app(
    platform: &Platform,
    app: &dyn App,
    req: &Request,
    settings: &Settings,
    output: &mut Output,
) -> Result<(Vec<Outcome>, usize)> {
    let bar = progress_bar(settings.quiet);
    let mut started = 0;
    // A record that cannot be written stops the run: later ones could not
    // be either.
    let unwritten: RefCell<Option<anyhow::Error>> = RefCell::new(None);
    let mut progress = |p: Progress<'_>| match p {
        Progress::Start { case, index, total } => {
            started += 1;
            bar.set_length(total as u64);
            bar.set_position(index as u64);
            bar.set_message(case.label());
        }
        // Rows print as cases finish, so long runs show results as they come.
        Progress::Finish(o) => {
            bar.suspend(|| {
                println!("{}", report::row(o));
                for line in report::metric_lines(o)
                    .into_iter()
                    .chain(report::split_line(o))
                {
                    println!("{line}");
                }
            });
            if let Outcome::Done(r) = o
                && let Err(e) = output.add((**r).clone())
            {
                unwritten.borrow_mut().get_or_insert(e);
            }
        }
    };
    // With --isolate every case runs in a child process on the same adapter.
    let opts = settings.opts;
    let target = match platform {
        Platform::Gpu(gpu) if settings.isolate => Target::External {
            caps: &gpu.caps,
            run: &mut |case: &Case| isolate::run_case(case, &gpu.info, opts),
        },
        Platform::Gpu(gpu) => Target::Gpu(gpu),
        Platform::Cpu => Target::Cpu,
    };
    let stop = || stop::requested() || unwritten.borrow().is_some();
    let mut runner = configured(
        Runner::new(target, opts).resuming(settings.done.clone()),
        settings,
    );
    let out = pollster::block_on(runner.run(app, req, &mut progress, &stop));
    bar.finish_and_clear();
    if let Some(e) = unwritten.into_inner() {
        return Err(e);
    }
    let out = out.with_context(|| format!("app `{}`", app.name()))?;
    Ok((out, started))
}

/// Prints the sweep table and roofline of every record, writes the files
/// a last time (a run with no finished case still leaves a valid file) and
/// counts the failures; `Ok(false)` when a case failed.
pub fn finish<'a>(
    outcomes: impl IntoIterator<Item = &'a Outcome>,
    output: &mut Output,
    sweep: bool,
) -> Result<bool> {
    if sweep {
        report::print_sweep(output.records());
    }
    if let Some(r) = Roofline::from_records(output.records()) {
        report::print_roofline(&r);
    }
    output.write()?;
    let failures = outcomes.into_iter().filter(|o| o.is_failure()).count();
    if failures > 0 {
        eprintln!("{failures} kernel(s) failed validation or errored");
    }
    Ok(failures == 0)
}
