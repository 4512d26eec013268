//! The benchmark worker: an async task with its own GPU device.
//!
//! The worker opens its own [`Gpu`] rather than borrowing egui's device so that
//! measured times never include the UI's rendering work, and so a benchmark
//! that loses its device cannot take the window down with it. Everything it
//! learns goes back to the UI as [`Msg`]s over an mpsc channel, each followed
//! by a repaint request so the plot updates the moment a case ends.
//!
//! The job itself is one future ([`run_job`]); only the executor differs.
//! Natively it runs on its own thread under `pollster`. In the browser there
//! are no threads and nothing may block, so it is spawned on the page's event
//! loop with `wasm-bindgen-futures`, and core's readbacks yield to the browser
//! while the GPU works.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};

use skylight_core::app::{Case, Request};
use skylight_core::device::{AdapterEntry, Api, Gpu, PlatformInfo, Selector, list_adapters};
use skylight_core::registry;
use skylight_core::runner::{Outcome, Platform, Progress, RunOptions, Runner};
use skylight_core::tune::apply::Tuned;

use crate::tuning;

/// What to run: one request per app, on one adapter.
#[derive(Clone, Debug)]
pub struct Job {
    /// The adapter to open.
    pub selector: Selector,
    /// The backend to open it through (the primary backends' where `None`).
    pub api: Option<Api>,
    /// App names (as the registry spells them) and their requests, run in order.
    pub runs: Vec<(String, Request)>,
    /// Warm-up and sample counts.
    pub opts: RunOptions,
    /// Tune the apps of `runs` for this many seconds instead of running
    /// them ([`crate::tuning::tune`]).
    pub tune_budget_s: Option<f64>,
}

/// A message from the worker to the UI.
#[derive(Clone, Debug)]
pub enum Msg {
    /// The adapter is open; results will carry this platform.
    Opened(PlatformInfo),
    /// A case is starting.
    Start {
        /// Position of the app in the job (zero-based).
        app_index: usize,
        /// Number of apps in the job.
        app_count: usize,
        /// The case.
        case: Case,
        /// Zero-based position of the case within its app's request.
        index: usize,
        /// Number of cases the app's request expands to.
        total: usize,
    },
    /// A case finished (done, unsupported or failed).
    Outcome(Box<Outcome>),
    /// A tune moved on to unit `index` of `total` (zero-based).
    Tuning {
        /// The unit's label.
        label: String,
        /// Its position.
        index: usize,
        /// How many units there are.
        total: usize,
    },
    /// News for the messages panel (what a tune found, the cache used).
    Info(String),
    /// Something went wrong outside a single case (an unknown app, a
    /// device lost mid-job).
    Error(String),
    /// The job could not start (no adapter, or an app refused its
    /// parameters when its cases were made, before any ran); nothing follows.
    Refused(String),
    /// The job is over.
    Finished {
        /// Whether Stop ended it early.
        stopped: bool,
    },
}

/// Starts `job` off the UI's path: natively on a thread of its own, in a
/// browser as a future spawned on the page's event loop. `repaint` is called
/// after every message so the UI wakes up; Stop is honoured between cases via
/// `stop`.
pub fn spawn(
    job: Job,
    repaint: impl Fn() + Send + 'static,
    stop: Arc<AtomicBool>,
) -> Receiver<Msg> {
    let (tx, rx) = channel();
    // The future is built where it runs: it holds the device across awaits,
    // which need not be `Send`.
    let task = move || async move {
        let send = |m: Msg| {
            // A closed channel means the window is gone; nothing to report to.
            let _ = tx.send(m);
            repaint();
        };
        run_job(&job, &send, &stop).await;
    };
    #[cfg(not(target_arch = "wasm32"))]
    {
        let (fail_tx, fail_rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("skylight-bench".into())
            .spawn(move || pollster::block_on(task()));
        if let Err(e) = spawned {
            let _ = fail_tx.send(Msg::Error(format!(
                "cannot start the benchmark thread: {e}"
            )));
            let _ = fail_tx.send(Msg::Finished { stopped: false });
            return fail_rx;
        }
    }
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_futures::spawn_local(task());
    rx
}

/// Lists the adapters. Natively this blocks the calling thread (the UI's, at
/// start-up) under `pollster` until wgpu has enumerated them, so the receiver
/// already holds the list when it is returned. A browser only answers
/// asynchronously and nothing may block there, so the listing is spawned on
/// the page's event loop and arrives later, followed by `repaint`.
pub fn list(repaint: impl Fn() + Send + 'static) -> Receiver<Vec<AdapterEntry>> {
    let (tx, rx) = channel();
    let task = async move {
        let _ = tx.send(list_adapters().await);
        repaint();
    };
    #[cfg(not(target_arch = "wasm32"))]
    pollster::block_on(task);
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_futures::spawn_local(task);
    rx
}

/// The runner of `job`'s apps on `gpu`, in `tuned`'s configurations where
/// given. Lenient: an asked-for f64 on a device without it lists its cases
/// as unsupported instead of failing the request.
fn runner<'a>(gpu: &'a Gpu, job: &Job, tuned: Option<&'a Tuned>) -> Runner<'a> {
    let runner = Runner::new(Platform::Gpu(gpu), job.opts).lenient();
    match tuned {
        Some(t) => runner.configured(t),
        None => runner,
    }
}

/// Makes every app's cases before any runs, as the command line does, so
/// that a size too large or a bad parameter refuses the whole job.
fn plan_all(gpu: &Gpu, job: &Job, tuned: Option<&Tuned>) -> Result<(), String> {
    let runner = runner(gpu, job, tuned);
    for (name, req) in &job.runs {
        let app = registry::find(name).map_err(|e| e.to_string())?;
        runner.plan(app, req).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// Runs the job, reporting through `send`.
pub async fn run_job(job: &Job, send: &dyn Fn(Msg), stop: &AtomicBool) {
    let gpu = match Gpu::open(&job.selector, job.api).await {
        Ok(g) => g,
        Err(e) => {
            send(Msg::Refused(format!("cannot open the adapter: {e}")));
            return;
        }
    };
    send(Msg::Opened(gpu.info.clone()));
    let tuned = match job.tune_budget_s {
        Some(_) => None,
        None => tuning::tuned_for(&gpu, send),
    };
    if let Err(why) = plan_all(&gpu, job, tuned.as_ref()) {
        send(Msg::Refused(why));
        return;
    }
    if let Some(budget_s) = job.tune_budget_s {
        tuning::tune(&gpu, &job.runs, budget_s, job.opts, send, stop).await;
        send(Msg::Finished {
            stopped: stop.load(Ordering::Relaxed),
        });
        return;
    }
    let app_count = job.runs.len();
    for (app_index, (name, req)) in job.runs.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let app = match registry::find(name) {
            Ok(a) => a,
            Err(e) => {
                send(Msg::Error(e.to_string()));
                continue;
            }
        };
        let mut progress = |p: Progress<'_>| match p {
            Progress::Start { case, index, total } => send(Msg::Start {
                app_index,
                app_count,
                case: case.clone(),
                index,
                total,
            }),
            Progress::Finish(o) => send(Msg::Outcome(Box::new(o.clone()))),
        };
        let stop_fn = || stop.load(Ordering::Relaxed);
        let mut runner = runner(&gpu, job, tuned.as_ref());
        let ran = runner.run(app, req, &mut progress, &stop_fn).await;
        if let Err(e) = ran {
            send(Msg::Error(format!("{name}: {e}")));
        }
        if let Err(e) = gpu.check_lost() {
            send(Msg::Error(format!("device lost: {e}")));
            break;
        }
    }
    send(Msg::Finished {
        stopped: stop.load(Ordering::Relaxed),
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A job whose second app asks for a size past the adapter's memory
    /// ends refused before its first app runs a case, naming the largest
    /// size that fits.
    #[test]
    fn a_size_too_large_refuses_the_job_before_any_case_runs() {
        let job = Job {
            selector: Selector::Auto,
            api: None,
            runs: vec![
                ("su3".into(), Request::default().set("size", "small")),
                ("lbm".into(), Request::default().set("size", "4096")),
            ],
            opts: RunOptions::default(),
            tune_budget_s: None,
        };
        let msgs = Mutex::new(Vec::new());
        let send = |m: Msg| msgs.lock().expect("messages").push(m);
        pollster::block_on(run_job(&job, &send, &AtomicBool::new(false)));
        // News of a tuning cache the machine may hold aside.
        let msgs: Vec<Msg> = (msgs.into_inner().expect("messages").into_iter())
            .filter(|m| !matches!(m, Msg::Info(_)))
            .collect();
        assert!(matches!(msgs.first(), Some(Msg::Opened(_))), "{msgs:?}");
        match &msgs[1..] {
            [Msg::Refused(why)] => {
                assert!(why.starts_with("lbm: ") && why.contains("largest"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
}
