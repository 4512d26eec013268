//! `skylight tune`: each app's fastest configuration on this adapter,
//! searched within a time budget, re-measured against the defaults, and
//! kept in the tuning cache, which `run` then uses where the re-measure
//! confirmed it ([`skylight_core::tune`]). The cache is rewritten after
//! every configuration measured, so a stopped tune keeps what it measured
//! and the next one resumes from it.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::ProgressBar;
use skylight_core::app::{App, Request};
use skylight_core::gpu::{Gpu, Selector};
use skylight_core::runner::RunOptions;
use skylight_core::tune::cache::{Entry, TuningCache};
use skylight_core::tune::session::{self, Event, Job, TuneOptions};
use skylight_core::tune::space;
use skylight_core::{Error, Precision, registry};

use crate::{report, stop};

/// Arguments of `skylight tune`.
#[derive(Args)]
pub struct TuneArgs {
    /// App name, or `all` (every app with tunable parameters).
    app: String,
    /// Adapter index or name substring (see `skylight list`).
    #[arg(long, env = "SKYLIGHT_ADAPTER", default_value = "auto")]
    adapter: String,
    #[command(flatten)]
    backend: crate::BackendArg,
    /// Precisions, comma separated: f32, f64, df64 (default: the app's, as
    /// the adapter supports them).
    #[arg(long, value_delimiter = ',')]
    precision: Vec<Precision>,
    /// Problem size, as `run` takes it; each problem is tuned on its own.
    #[arg(long)]
    size: Option<String>,
    /// Kernel(s) to tune (default: every kernel of the app).
    #[arg(long)]
    kernel: Option<String>,
    /// The values to try of a tunable parameter, as name=v1,v2 (repeatable;
    /// `skylight apps` marks the tunable parameters).
    #[arg(long = "set", value_parser = crate::parse_kv)]
    set: Vec<(String, String)>,
    /// Seconds of wall time for the whole tune, split evenly over the apps
    /// and each app's share over its kernels, precisions and problems;
    /// a unit's share includes re-measuring its best against the defaults
    /// (5 interleaved rounds: the best is kept only when faster beyond
    /// the noise, docs/tuning.md).
    #[arg(long, default_value_t = 240.0)]
    budget_s: f64,
    /// The tuning cache [default: skylight/tuning.json in the user's cache
    /// folder].
    #[arg(long, env = "SKYLIGHT_TUNING", value_name = "FILE")]
    tuning: Option<PathBuf>,
    /// Timed runs per configuration (fewer, at least 3, where they would
    /// take over 0.25 s).
    #[arg(long, default_value_t = 10)]
    samples: u32,
    /// Warm up until the GPU has been busy this long (seconds) [default: 1
    /// on a GPU, 0 on a CPU adapter].
    #[arg(long)]
    warmup_s: Option<f64>,
    /// No progress bar (each unit's line still prints as it ends).
    #[arg(long, short)]
    quiet: bool,
}

/// The cache file `given` names, else the default one.
pub fn path(given: &Option<PathBuf>) -> Result<PathBuf> {
    given
        .clone()
        .or_else(skylight_core::tune::cache::default_path)
        .context("no cache folder (HOME is not set): name a tuning cache with --tuning FILE")
}

/// `skylight tune`.
pub fn run(args: &TuneArgs) -> Result<bool> {
    let jobs = jobs(args)?;
    let path = path(&args.tuning)?;
    let mut cache = open_for_tune(&path)?;
    let gpu = pollster::block_on(Gpu::open(
        &Selector::parse(&args.adapter),
        args.backend.api()?,
    ))
    .context("opening the adapter (tuning needs a GPU adapter)")?;
    let cpu_adapter = gpu.info.device_type == "cpu";
    eprintln!("adapter: {} [{}]", gpu.info.label(), gpu.info.device_type);
    eprintln!("tuning for {:.0} s into {}", args.budget_s, path.display());
    let opts = TuneOptions {
        budget_s: args.budget_s,
        run: RunOptions {
            warmup: if cpu_adapter { 1 } else { 2 },
            warmup_s: args.warmup_s.unwrap_or(if cpu_adapter { 0.0 } else { 1.0 }),
            samples: args.samples,
            budget_s: 0.25,
            runs_per_sample: 1,
        },
    };
    stop::install()?;
    let bar = match args.quiet {
        true => ProgressBar::hidden(),
        false => ProgressBar::new_spinner(),
    };
    let unsaved: RefCell<Option<anyhow::Error>> = RefCell::new(None);
    println!("{}", header());
    let mut progress = |e: Event<'_>| match e {
        Event::Unit {
            unit,
            index,
            total,
            space,
            budget_s,
        } => bar.set_message(format!(
            "[{}/{total}] {}: {space} configurations, {budget_s:.0} s",
            index + 1,
            unit.label()
        )),
        Event::Trial { trial, cache, .. } => {
            bar.tick();
            if let Err(e) = save(cache, &path) {
                unsaved.borrow_mut().get_or_insert(e);
            }
            log::info!("{:?}: {:?} {}", trial.config, trial.median_s, trial.detail);
        }
        Event::Confirmed { cache, .. } => {
            if let Err(e) = save(cache, &path) {
                unsaved.borrow_mut().get_or_insert(e);
            }
        }
        Event::Done(entry) => bar.suspend(|| println!("{}", line(entry))),
        Event::Unreached(unit) => {
            bar.suspend(|| println!("{:<34} not reached: the budget was spent", unit.label()))
        }
    };
    let halt = || stop::requested() || unsaved.borrow().is_some();
    let tuned = pollster::block_on(session::tune(
        &gpu,
        &jobs,
        &mut cache,
        &opts,
        &mut progress,
        &halt,
    ));
    bar.finish_and_clear();
    if let Some(e) = unsaved.into_inner() {
        return Err(e);
    }
    tuned?;
    save(&cache, &path)?;
    eprintln!("tuning cache: {}", path.display());
    if stop::requested() {
        eprintln!("stopped by a signal: `skylight tune` again resumes");
        return Err(stop::Stopped.into());
    }
    Ok(true)
}

/// The apps to tune, each with its request and the values to try.
fn jobs(args: &TuneArgs) -> Result<Vec<Job<'static>>> {
    let all = args.app == "all";
    let apps: Vec<&'static dyn App> = match all {
        true => registry::apps()
            .into_iter()
            .filter(|a| !a.tunable().is_empty())
            .collect(),
        false => vec![registry::find(&args.app)?],
    };
    // With `all`, each override goes to the apps that tune it, and must
    // reach one.
    for (name, _) in &args.set {
        if all && !apps.iter().any(|a| space::is_tunable(*a, name)) {
            bail!(Error::bad_param(
                name.clone(),
                "no app tunes this parameter"
            ));
        }
    }
    let mut jobs = Vec::new();
    for app in apps {
        let overrides: Vec<(String, String)> = args
            .set
            .iter()
            .filter(|(k, _)| !all || space::is_tunable(app, k))
            .cloned()
            .collect();
        let axes = space::declared(app, &overrides)?;
        if axes.is_empty() {
            bail!(Error::bad_param(
                "app",
                format!("app `{}` has nothing to tune", app.name())
            ));
        }
        let mut base = Request::default().precisions(&args.precision);
        for (name, value) in [("size", &args.size), ("kernel", &args.kernel)] {
            match value {
                Some(v) if app.param_name(name).is_some() => base = base.set(name, v.clone()),
                Some(_) if !all => bail!(Error::bad_param(
                    name,
                    format!("app `{}` has no such parameter", app.name())
                )),
                _ => {}
            }
        }
        jobs.push(Job { app, base, axes });
    }
    Ok(jobs)
}

/// The cache at `path` for a tune to add to; a file that is not a cache is
/// moved aside (said so) and an empty cache starts, since the tune
/// rewrites the file.
fn open_for_tune(path: &Path) -> Result<TuningCache> {
    match TuningCache::load(path) {
        Ok(c) => Ok(c),
        Err(e) => {
            let mut aside = path.as_os_str().to_owned();
            aside.push(".corrupt");
            let aside = PathBuf::from(aside);
            std::fs::rename(path, &aside)
                .with_context(|| format!("{e}; moving it aside to {}", aside.display()))?;
            eprintln!(
                "warning: {e}: moved aside to {}; starting an empty cache",
                aside.display()
            );
            Ok(TuningCache::new())
        }
    }
}

fn save(cache: &TuningCache, path: &Path) -> Result<()> {
    let _writing = stop::WRITING.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .save(path)
        .with_context(|| format!("writing the tuning cache {}", path.display()))
}

/// One unit's outcome: its best against the defaults, as the search
/// timed them and as the re-measure did.
fn line(e: &Entry) -> String {
    let ms = |t: Option<f64>| t.map_or("-".to_string(), report::time);
    let default = e
        .trial(&e.defaults)
        .and_then(|t| t.median_s.filter(|_| t.passed));
    let best = e.best.as_ref();
    format!(
        "{:<34} {:>5}/{:<6} {:<8} {:>11} {:>11} {:>6}  {}",
        e.unit.label(),
        e.trials.len(),
        e.space,
        if e.complete { "searched" } else { "budget" },
        ms(default),
        ms(best.and_then(|b| b.median_s)),
        e.gain().map_or("-".to_string(), |g| format!("{g:.2}x")),
        e.outcome()
    )
}

/// The column header of [`line`].
fn header() -> String {
    format!(
        "{:<34} {:>12} {:<8} {:>11} {:>11} {:>6}  kept (re-measured against the defaults)",
        "unit", "tried/space", "ended", "defaults", "best", "gain"
    )
}
