//! `--isolate`: each case in a fresh process of this binary.
//!
//! A child process per case gives every case the same fresh device state
//! (no allocations, caches or pipelines left by earlier cases), and a crash
//! or device loss in one case ends only that case. (Slowdowns late in long
//! runs on NVIDIA were first blamed on allocation history; the clock log
//! showed the SM clock governor instead, which the warm-up now handles:
//! docs/notebook/benchmarks.md.)

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};

use anyhow::{Context, Result, bail};
use skylight_core::Error;
use skylight_core::app::Case;
use skylight_core::gpu::PlatformInfo;
use skylight_core::record::ResultRecord;
use skylight_core::registry;
use skylight_core::runner::{self, Outcome, RunOptions};

use crate::CommonArgs;

/// Runs `case` in a child `skylight case` process on the adapter `adapter`
/// describes (its index and backend); a child that fails becomes
/// [`Outcome::Failed`] with its message.
pub fn run_case(case: &Case, adapter: &PlatformInfo, opts: RunOptions) -> Outcome {
    child(case, adapter, opts).unwrap_or_else(|e| Outcome::Failed {
        case: case.clone(),
        error: Error::Isolated(format!("{e:#}")),
    })
}

/// The process of the case in flight, for [`kill_in_flight`].
static IN_FLIGHT: Mutex<Option<Child>> = Mutex::new(None);

fn in_flight() -> MutexGuard<'static, Option<Child>> {
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Ends the process of the case in flight, if any (a second signal: the
/// parent is about to exit, and the case should not run on without it).
pub fn kill_in_flight() {
    if let Some(child) = in_flight().as_mut() {
        let _ = child.kill();
    }
}

fn child(case: &Case, adapter: &PlatformInfo, opts: RunOptions) -> Result<Outcome> {
    let exe = std::env::current_exe().context("locating this binary")?;
    let mut command = Command::new(exe);
    command
        .arg("case")
        .args(["--adapter", &adapter.index.unwrap_or(0).to_string()])
        .args(["--backend", &adapter.backend])
        .args(["--samples", &opts.samples.to_string()])
        .args(["--warmup", &opts.warmup.to_string()])
        .args(["--warmup-s", &opts.warmup_s.to_string()])
        .args(["--budget-s", &opts.budget_s.to_string()])
        .args(["--runs-per-sample", &opts.runs_per_sample.to_string()])
        .args(["--case-json", &serde_json::to_string(case)?])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A process group of its own, so that a terminal's Ctrl-C reaches only
    // this process, which lets the case finish (crate::stop).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = {
        #[cfg(unix)]
        let _blocked = StopSignalsBlocked::new();
        command.spawn().context("starting the child process")?
    };
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    *in_flight() = Some(child);
    // Both pipes drain at once, so that neither fills while the other is read.
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.map(|mut e| e.read_to_string(&mut text));
        text
    });
    let mut record = Vec::new();
    if let Some(mut o) = stdout {
        o.read_to_end(&mut record)
            .context("reading the child's output")?;
    }
    let errors = errors.join().unwrap_or_default();
    let status = in_flight()
        .take()
        .context("the child process is gone")?
        .wait()
        .context("waiting for the child process")?;
    if !status.success() {
        let err = errors.trim().trim_start_matches("error: ");
        bail!(
            "child process ({status}): {}",
            if err.is_empty() { "no message" } else { err }
        );
    }
    let record: ResultRecord =
        serde_json::from_slice(&record).context("reading the child's result record")?;
    Ok(Outcome::Done(Box::new(record)))
}

/// The child's side: runs the one case of `case_json` on a fresh device and
/// prints its result record as JSON (validation failures included: the
/// record says so); an error or an unsupported case is an error.
pub fn serve(case_json: &str, common: &CommonArgs, opts: RunOptions) -> Result<bool> {
    let case: Case = serde_json::from_str(case_json).context("parsing --case-json")?;
    let app = registry::find(&case.app)?;
    let gpu = crate::open_gpu(common).context("opening the adapter")?;
    match pollster::block_on(runner::run_case(&gpu, app, &case, opts)) {
        Outcome::Done(r) => {
            println!("{}", serde_json::to_string(&*r)?);
            Ok(true)
        }
        Outcome::Failed { error, .. } => bail!("{error}"),
        Outcome::Unsupported { reason, .. } => bail!("unsupported: {reason}"),
    }
}

/// SIGINT and SIGTERM blocked on this thread while it lives. A child made
/// meanwhile is born with them blocked and keeps them so: a Ctrl-C to the
/// terminal's group in the instant before the child has left it (between
/// its creation and its `setpgid`) stays pending instead of killing the
/// case; the parent decides, and kills the child on a second signal.
/// Signals to this process wait until the drop (or go to another thread).
#[cfg(unix)]
struct StopSignalsBlocked(Option<nix::sys::signal::SigSet>);

#[cfg(unix)]
impl StopSignalsBlocked {
    fn new() -> StopSignalsBlocked {
        use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
        let mut stop = SigSet::empty();
        stop.add(Signal::SIGINT);
        stop.add(Signal::SIGTERM);
        let mut old = SigSet::empty();
        let ok = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&stop), Some(&mut old)).is_ok();
        StopSignalsBlocked(ok.then_some(old))
    }
}

#[cfg(unix)]
impl Drop for StopSignalsBlocked {
    fn drop(&mut self) {
        use nix::sys::signal::{SigmaskHow, pthread_sigmask};
        if let Some(old) = &self.0 {
            let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(old), None);
        }
    }
}
