//! `skylight stats APP ...`: what the driver compiled each of the app's
//! kernels to (registers, instructions, spills: the driver's own figures,
//! through `VK_KHR_pipeline_executable_properties`), for the cases the same
//! flags would run. Issue 22's tool for counting what a kernel change
//! saves before timing it.

use anyhow::{Context, Result, bail};
use skylight_core::gpu::stats::{PipelineStats, pipeline_stats};
use skylight_core::{Error, registry, runner};

use super::RunArgs;

/// Compiles every case `args` asks of one app and prints each distinct
/// kernel's statistics (or writes them as JSON with --json).
pub fn run(args: &RunArgs) -> Result<bool> {
    if args.app == "all" {
        bail!("stats takes one app");
    }
    if args.resume.is_some() {
        bail!("--resume applies to run and sweep, not stats");
    }
    let app = registry::find(&args.app)?;
    let req = super::request_for(app, args, true, false)?;
    if let Some(path) = &args.common.json {
        super::check_writable(path)?;
    }
    let gpu = super::open_gpu(&args.common).context("opening the adapter")?;
    let plan = runner::plan(app, &req, &gpu.caps, true)?;
    for case in &plan.cases {
        // Preparing a case compiles its kernels; cases the adapter cannot
        // run (a missing feature) have none to report.
        match app.prepare(&gpu, case) {
            Ok(_) | Err(Error::MissingFeature(_)) => {}
            Err(e) => return Err(e).with_context(|| case.label()),
        }
    }
    let stats = pipeline_stats(&gpu)
        .with_context(|| format!("reading the pipeline statistics of {}", gpu.info.label()))?;
    if let Some(path) = &args.common.json {
        std::fs::write(path, serde_json::to_string_pretty(&stats)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if !args.common.quiet {
        eprintln!("{} on {}", app.name(), gpu.info.label());
    }
    for line in stats.iter().flat_map(lines) {
        println!("{line}");
    }
    Ok(true)
}

/// One kernel's statistics as text: a heading, then one line per
/// executable with its figures.
fn lines(p: &PipelineStats) -> Vec<String> {
    let mut head = format!("{} [{}] {}", p.label, p.entry, p.precision);
    if !p.distinct.is_empty() {
        let consts: Vec<String> = p.distinct.iter().map(|(n, v)| format!("{n}={v}")).collect();
        head.push_str(&format!(" ({})", consts.join(", ")));
    }
    let mut out = vec![head];
    for e in &p.executables {
        let figures: Vec<String> = e
            .statistics
            .iter()
            .map(|s| format!("{}={}", s.name, s.value))
            .collect();
        out.push(format!("    {}: {}", e.name, figures.join(", ")));
    }
    out
}
