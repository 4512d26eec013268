//! `--isolate`: each case in a fresh process of this binary.
//!
//! A child process per case gives every case the same fresh device state
//! (no allocations, caches or pipelines left by earlier cases), and a crash
//! or device loss in one case ends only that case. (Slowdowns late in long
//! runs on NVIDIA were first blamed on allocation history; the clock log
//! showed the SM clock governor instead, which the warm-up now handles:
//! BENCHMARKS.md.)

use std::process::Command;

use anyhow::{Context, Result, bail};
use skylight_core::Error;
use skylight_core::app::Case;
use skylight_core::gpu::{Gpu, Selector};
use skylight_core::record::ResultRecord;
use skylight_core::registry;
use skylight_core::runner::{self, Outcome, RunOptions};

/// Runs `case` in a child `skylight case` process on the adapter with index
/// `adapter`; a child that fails becomes [`Outcome::Failed`] with its message.
pub fn run_case(case: &Case, adapter: usize, opts: RunOptions) -> Outcome {
    child(case, adapter, opts).unwrap_or_else(|e| Outcome::Failed {
        case: case.clone(),
        error: Error::Isolated(format!("{e:#}")),
    })
}

fn child(case: &Case, adapter: usize, opts: RunOptions) -> Result<Outcome> {
    let exe = std::env::current_exe().context("locating this binary")?;
    let out = Command::new(exe)
        .arg("case")
        .args(["--adapter", &adapter.to_string()])
        .args(["--samples", &opts.samples.to_string()])
        .args(["--warmup", &opts.warmup.to_string()])
        .args(["--warmup-s", &opts.warmup_s.to_string()])
        .args(["--budget-s", &opts.budget_s.to_string()])
        .args(["--runs-per-sample", &opts.runs_per_sample.to_string()])
        .args(["--case-json", &serde_json::to_string(case)?])
        .output()
        .context("starting the child process")?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.trim().trim_start_matches("error: ");
        bail!(
            "child process ({}): {}",
            out.status,
            if err.is_empty() { "no message" } else { err }
        );
    }
    let record: ResultRecord =
        serde_json::from_slice(&out.stdout).context("reading the child's result record")?;
    Ok(Outcome::Done(Box::new(record)))
}

/// The child's side: runs the one case of `case_json` on a fresh device and
/// prints its result record as JSON (validation failures included: the
/// record says so); an error or an unsupported case is an error.
pub fn serve(case_json: &str, adapter: &str, opts: RunOptions) -> Result<bool> {
    let case: Case = serde_json::from_str(case_json).context("parsing --case-json")?;
    let app = registry::find(&case.app)?;
    let gpu =
        pollster::block_on(Gpu::open(&Selector::parse(adapter))).context("opening the adapter")?;
    match pollster::block_on(runner::run_case(&gpu, app, &case, opts)) {
        Outcome::Done(r) => {
            println!("{}", serde_json::to_string(&*r)?);
            Ok(true)
        }
        Outcome::Failed { error, .. } => bail!("{error}"),
        Outcome::Unsupported { reason, .. } => bail!("unsupported: {reason}"),
    }
}
