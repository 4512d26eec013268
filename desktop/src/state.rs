//! The window's state behind the widgets: the message log, the adapters, the
//! run in flight (the UI's half of the [`worker`] protocol) and the results,
//! whose rows and roofline are derived once per change rather than per frame.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};

use eframe::egui;
use skylight_core::device::{AdapterEntry, Api, PlatformInfo, Selector};
use skylight_core::record::{ResultFile, ResultRecord};
use skylight_core::roofline::Roofline;
use skylight_core::runner::Outcome;

use crate::reference;
use crate::table::{Efficiencies, Row};
use crate::worker::{self, Job, Msg};

/// Shown when no adapter exists.
const NO_ADAPTER: &str = "no GPU adapter found: install a Vulkan, Metal or DX12 driver (or lavapipe), \
     or in a browser enable WebGPU";

/// The messages panel's log, oldest first.
#[derive(Default)]
pub struct Messages {
    /// (is an error, text).
    entries: Vec<(bool, String)>,
}

impl Messages {
    /// Logs `msg` as an error (also to the console, where a failed demo or
    /// web test can be diagnosed).
    pub fn error(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        log::error!("{msg}");
        self.entries.push((true, msg));
    }

    /// Logs `msg` as information.
    pub fn info(&mut self, msg: impl Into<String>) {
        self.entries.push((false, msg.into()));
    }

    /// Forgets every message.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Every message, oldest first: (is an error, text).
    pub fn entries(&self) -> &[(bool, String)] {
        &self.entries
    }
}

/// The adapters a run can open, and the user's choice.
pub struct Devices {
    /// Every adapter found, empty until the listing arrives.
    pub adapters: Vec<AdapterEntry>,
    /// Index into `adapters`, `None` for the suite's automatic choice.
    pub selected: Option<usize>,
    /// The backend runs go through, `None` for the primary backends (GL
    /// only when named, as on the command line).
    pub backend: Option<Api>,
    /// Holds the listing until it has arrived.
    pending: Option<Receiver<Vec<AdapterEntry>>>,
}

impl Devices {
    /// Starts listing the adapters ([`worker::list`]); `repaint` wakes the
    /// UI when a browser answers.
    pub fn new(repaint: impl Fn() + Send + 'static) -> Self {
        Devices {
            adapters: Vec::new(),
            selected: None,
            backend: None,
            pending: Some(worker::list(repaint)),
        }
    }

    /// Whether the listing has arrived (a run needs it to name an adapter).
    pub fn listed(&self) -> bool {
        self.pending.is_none()
    }

    /// Takes the adapter list once it has arrived.
    pub fn poll(&mut self, log: &mut Messages) {
        let Some(rx) = &self.pending else {
            return;
        };
        match rx.try_recv() {
            Ok(list) => {
                if list.is_empty() {
                    log.error(NO_ADAPTER);
                }
                self.adapters = list;
                self.pending = None;
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                log.error("listing the adapters failed");
                self.pending = None;
            }
        }
    }

    /// The adapter a run would open: the selected one, else the first listed
    /// of the backend (what the automatic choice falls back to in a
    /// browser, which offers one).
    pub fn chosen(&self) -> Option<&AdapterEntry> {
        match self.selected {
            Some(i) => self.adapters.get(i),
            None => self.adapters.iter().find(|a| self.on_backend(a)),
        }
    }

    /// Whether `adapter` is of the chosen backend (any, where none is).
    pub fn on_backend(&self, adapter: &AdapterEntry) -> bool {
        self.backend
            .is_none_or(|api| adapter.info.backend == api.name())
    }

    /// Chooses `backend`, dropping an adapter choice of another one.
    pub fn set_backend(&mut self, backend: Option<Api>) {
        self.backend = backend;
        if self.chosen().is_some_and(|a| !self.on_backend(a)) {
            self.selected = None;
        }
    }

    /// The selection as the worker takes it.
    pub fn selector(&self) -> Selector {
        self.selected.map_or(Selector::Auto, Selector::Index)
    }
}

/// How a run ended, as [`RunState::poll`] reports it.
pub enum Ended {
    /// The worker said it was done.
    Finished {
        /// Whether Stop ended it early.
        stopped: bool,
    },
    /// The job could not start, for this reason (logged by the app).
    Refused(String),
    /// The worker went away without saying so (it panicked or was dropped).
    Lost,
}

/// A job in flight, as the UI sees it.
pub struct RunState {
    rx: Receiver<Msg>,
    stop: Arc<AtomicBool>,
    /// The case running now, for the progress label.
    pub current: String,
    /// Progress over the whole job, 0..1.
    pub fraction: f32,
    /// When the job started, for the estimate of the time left.
    started: web_time::Instant,
}

impl RunState {
    /// Starts `job` ([`worker::spawn`]); every message the worker sends
    /// repaints `ctx`, so progress shows without polling.
    pub fn start(job: Job, ctx: &egui::Context) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let repaint_ctx = ctx.clone();
        let rx = worker::spawn(job, move || repaint_ctx.request_repaint(), stop.clone());
        RunState {
            rx,
            stop,
            current: "opening the adapter".into(),
            fraction: 0.0,
            started: web_time::Instant::now(),
        }
    }

    /// Time since the job started, and the estimated time left (by the
    /// share of cases done so far; `None` before the first case ends).
    pub fn times(&self) -> (f64, Option<f64>) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let f = f64::from(self.fraction);
        (elapsed, (f > 0.0).then(|| elapsed * (1.0 - f) / f))
    }

    /// Asks the worker to stop after the current case.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether Stop has been asked for.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Applies the messages that arrived since the last frame to `results`
    /// and `log`; returns how the run ended once it has.
    pub fn poll(&mut self, results: &mut Results, log: &mut Messages) -> Option<Ended> {
        loop {
            let msg = match self.rx.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    log.error("the benchmark thread ended unexpectedly");
                    return Some(Ended::Lost);
                }
            };
            match msg {
                Msg::Opened(info) => {
                    log.info(format!("running on {}", info.label()));
                    results.opened(info);
                }
                Msg::Start {
                    app_index,
                    app_count,
                    case,
                    index,
                    total,
                } => {
                    self.current = format!(
                        "app {}/{app_count}, case {}/{total}: {}",
                        app_index + 1,
                        index + 1,
                        case.label()
                    );
                    let per_app = 1.0 / app_count.max(1) as f32;
                    self.fraction =
                        per_app * (app_index as f32 + index as f32 / total.max(1) as f32);
                }
                Msg::Outcome(o) => {
                    if let Outcome::Failed { case, error } = o.as_ref() {
                        log.error(format!("{}: {error}", case.label()));
                    }
                    results.push(*o);
                }
                Msg::Tuning {
                    label,
                    index,
                    total,
                } => {
                    self.current = format!("tuning {}/{total}: {label}", index + 1);
                    self.fraction = index as f32 / total.max(1) as f32;
                }
                Msg::Info(i) => log.info(i),
                Msg::Error(e) => log.error(e),
                // Nothing follows Finished: the worker is about to end, which
                // is not an error, so the channel is not read again.
                Msg::Finished { stopped } => return Some(Ended::Finished { stopped }),
                Msg::Refused(why) => return Some(Ended::Refused(why)),
            }
        }
    }
}

/// Results loaded from a file, usually from another machine.
pub struct LoadedFile {
    /// Where it came from: a path, a dropped file's name or a reference run.
    pub path: String,
    /// The device of its first record.
    pub device: String,
    /// Its records.
    pub records: Vec<ResultRecord>,
    /// Its roofline: the file's own, else one measured from its records.
    pub roofline: Option<Roofline>,
}

/// This session's outcomes and the loaded files, with what the views draw
/// from them. Changes only mark the derived data stale; [`Results::current`]
/// rebuilds it once, so a frame without news clones and rebuilds nothing.
#[derive(Default)]
pub struct Results {
    platform: Option<PlatformInfo>,
    outcomes: Vec<Outcome>,
    loaded: Vec<LoadedFile>,
    /// How many files could not be loaded.
    refused: usize,
    /// Set by every change, cleared by the rebuild.
    stale: bool,
    generation: u64,
    records: Vec<ResultRecord>,
    /// `records` and every loaded file's records, in that order.
    all: Vec<ResultRecord>,
    roofline: Option<Roofline>,
    rows: Vec<Row>,
}

/// What the views draw, as of the latest change (see [`Results::current`]).
pub struct Snapshot<'a> {
    /// Grows with every change; views key their own caches on it.
    pub generation: u64,
    /// This session's completed records.
    pub records: &'a [ResultRecord],
    /// This session's records, then every loaded file's (what core's
    /// efficiency and portability tables are built from).
    pub all: &'a [ResultRecord],
    /// The roofline of this session's records (its stream and peak runs).
    pub roofline: Option<&'a Roofline>,
    /// One row per outcome, then per loaded record, in that order.
    pub rows: &'a [Row],
    /// The loaded files.
    pub loaded: &'a [LoadedFile],
}

impl Results {
    /// Forgets this session's outcomes: a new run is starting.
    pub fn clear_run(&mut self) {
        self.outcomes.clear();
        self.platform = None;
        self.stale = true;
    }

    /// Records the platform the run opened (it names the device in the rows).
    pub fn opened(&mut self, info: PlatformInfo) {
        self.platform = Some(info);
        self.stale = true;
    }

    /// Adds a case's outcome.
    pub fn push(&mut self, o: Outcome) {
        self.outcomes.push(o);
        self.stale = true;
    }

    /// Adds a parsed result file to the overlay, or reports why it was refused.
    pub fn add_file(
        &mut self,
        path: String,
        parsed: Result<ResultFile, String>,
        log: &mut Messages,
    ) {
        let file = match parsed {
            Ok(f) => f,
            Err(e) => {
                log.error(format!("cannot load {path}: {e}"));
                self.refused += 1;
                return;
            }
        };
        let device = file
            .records
            .first()
            .map(|r| r.platform.name.clone())
            .unwrap_or_else(|| "empty file".into());
        let roofline = file
            .roofline
            .clone()
            .or_else(|| reference::skylight_roofline(&file.records));
        log.info(format!(
            "loaded {} results of {device} from {path}",
            file.records.len()
        ));
        self.loaded.push(LoadedFile {
            path,
            device,
            records: file.records,
            roofline,
        });
        self.stale = true;
    }

    /// Removes the `i`th loaded file from the overlay.
    pub fn remove_file(&mut self, i: usize) {
        if i < self.loaded.len() {
            self.loaded.remove(i);
            self.stale = true;
        }
    }

    /// Whether any result of this session can be plotted (positive GFLOP/s).
    pub fn plotted(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Done(r) if r.gflops > 0.0))
    }

    /// Whether a result file is loaded and none was refused (what a
    /// screenshot of the given files needs to be the picture they make).
    pub fn files_ok(&self) -> bool {
        !self.loaded.is_empty() && self.refused == 0
    }

    /// The derived data, rebuilt first if anything changed since the last call.
    pub fn current(&mut self) -> Snapshot<'_> {
        if self.stale {
            self.rebuild();
        }
        Snapshot {
            generation: self.generation,
            records: &self.records,
            all: &self.all,
            roofline: self.roofline.as_ref(),
            rows: &self.rows,
            loaded: &self.loaded,
        }
    }

    /// This session's results as the CLI writes them: records and roofline.
    pub fn result_file(&mut self) -> ResultFile {
        let now = self.current();
        ResultFile::new(now.records.to_vec(), now.roofline.cloned())
    }

    fn rebuild(&mut self) {
        self.records = self
            .outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Done(r) => Some(r.as_ref().clone()),
                _ => None,
            })
            .collect();
        self.roofline = Roofline::from_records(&self.records);
        let device = self
            .platform
            .as_ref()
            .map_or_else(|| "this machine".to_string(), |p| p.name.clone());
        self.all = self
            .records
            .iter()
            .chain(self.loaded.iter().flat_map(|f| &f.records))
            .cloned()
            .collect();
        let eff = Efficiencies::new(&self.all);
        let local = self
            .outcomes
            .iter()
            .map(|o| Row::from_outcome(&device, o, self.roofline.as_ref(), &eff));
        let loaded = self.loaded.iter().enumerate().flat_map(|(i, f)| {
            let eff = &eff;
            f.records
                .iter()
                .map(move |r| Row::from_record(i + 1, r, f.roofline.as_ref(), eff))
        });
        self.rows = local.chain(loaded).collect();
        self.generation += 1;
        self.stale = false;
    }
}
