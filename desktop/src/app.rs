//! The Skylight window: device panel, benchmark panel, live roofline and results table.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eframe::egui::{self, Color32, RichText};
use egui_plot::{Legend, Line, LineStyle, Plot, Points, Text};
use skylight_core::Precision;
use skylight_core::app::ParamKind;
use skylight_core::device::{AdapterEntry, PlatformInfo, Selector};
use skylight_core::record::{ResultFile, ResultRecord};
use skylight_core::roofline::Roofline;
use skylight_core::runner::Outcome;
use web_time::Instant;

pub use crate::forms::Preset;
use crate::forms::{Forms, ParamValue};
use crate::io::{self, Drops};
pub use crate::io::{FinishHook, SaveHook};
pub use crate::palette::app_color;
use crate::palette::{self, precision_marker};
use crate::plot;
use crate::reference::REFERENCES;
use crate::sweep::{self, Metric};
use crate::worker::{self, Msg};

/// Shown when no adapter exists.
const NO_ADAPTER: &str = "no GPU adapter found: install a Vulkan, Metal or DX12 driver (or lavapipe), \
     or in a browser enable WebGPU";

/// Which picture the central panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Roofline,
    Sweep,
}

/// What `--demo` does: a small preset, then a screenshot, then exit.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Where to write the PNG of the window once the results are drawn.
    pub screenshot: Option<PathBuf>,
    /// Set when the demo ended well (results plotted, screenshot written);
    /// the binary turns it into its exit status.
    pub success: Arc<AtomicBool>,
    /// Give up and take the screenshot anyway after this long.
    pub timeout: Duration,
}

#[derive(Debug)]
enum DemoStage {
    Start,
    Running,
    /// Frames left to draw after the last result so the plot has settled.
    Settle(u32),
    Capturing(Arc<Mutex<Option<Arc<egui::ColorImage>>>>),
    Done,
}

struct Demo {
    opts: DemoOptions,
    stage: DemoStage,
    started: Instant,
}

/// Points of one (source, app, precision): one legend entry, one colour and shape.
struct Series {
    name: String,
    source: usize,
    app: String,
    precision: Precision,
    points: Vec<[f64; 2]>,
}

/// A running job as the UI sees it.
struct RunState {
    rx: Receiver<Msg>,
    stop: Arc<AtomicBool>,
    current: String,
    fraction: f32,
}

/// Results loaded from a file, usually from another machine.
struct LoadedFile {
    path: String,
    device: String,
    records: Vec<ResultRecord>,
    roofline: Option<Roofline>,
}

/// Columns of the results table, in display order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Where the result came from (this run or a loaded file's device).
    Source,
    /// App name.
    App,
    /// Kernel name.
    Kernel,
    /// Variant label.
    Variant,
    /// Precision.
    Precision,
    /// Achieved GFLOP/s.
    Gflops,
    /// Achieved GB/s.
    Gbps,
    /// Arithmetic intensity.
    Ai,
    /// Percentage of the attainable roof.
    Roof,
    /// Validation or why the case did not run.
    Status,
}

impl Column {
    /// Every column, in display order.
    pub const ALL: [Column; 10] = [
        Column::Source,
        Column::App,
        Column::Kernel,
        Column::Variant,
        Column::Precision,
        Column::Gflops,
        Column::Gbps,
        Column::Ai,
        Column::Roof,
        Column::Status,
    ];

    fn title(self) -> &'static str {
        match self {
            Column::Source => "device",
            Column::App => "app",
            Column::Kernel => "kernel",
            Column::Variant => "variant",
            Column::Precision => "precision",
            Column::Gflops => "GFLOP/s",
            Column::Gbps => "GB/s",
            Column::Ai => "AI",
            Column::Roof => "% roof",
            Column::Status => "validation",
        }
    }
}

/// One row of the results table (and, when it has a positive AI and
/// GFLOP/s, one point of the roofline).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// 0 for this session's results, 1.. for loaded files.
    pub source: usize,
    /// Device the result was measured on.
    pub device: String,
    /// App name.
    pub app: String,
    /// Kernel name.
    pub kernel: String,
    /// Variant label.
    pub variant: String,
    /// Precision.
    pub precision: Precision,
    /// Achieved GFLOP/s (`None` when the case did not run).
    pub gflops: Option<f64>,
    /// Achieved GB/s.
    pub gbps: Option<f64>,
    /// FLOPs per byte.
    pub ai: Option<f64>,
    /// Achieved over attainable, 0..1.
    pub roof: Option<f64>,
    /// `ok`, a validation failure, `unsupported: needs ...` or an error.
    pub status: String,
    /// Whether the status is a failure (drawn in red).
    pub failed: bool,
    /// How the kernel was timed (GPU timestamps, wall clock, ...).
    pub timing: String,
}

impl Row {
    fn from_record(source: usize, r: &ResultRecord, roof: Option<&Roofline>) -> Row {
        let status = if r.validation.passed {
            format!("ok (max err {:.1e})", r.validation.max_error)
        } else {
            format!("FAILED: {}", r.validation.detail)
        };
        Row {
            source,
            device: r.platform.name.clone(),
            app: r.case.app.clone(),
            kernel: r.case.kernel.clone(),
            variant: r.case.variant.clone(),
            precision: r.case.precision,
            gflops: Some(r.gflops),
            gbps: Some(r.gbps),
            ai: Some(r.arithmetic_intensity),
            roof: roof.and_then(|roof| {
                plot::fraction_of_roof(roof, r.arithmetic_intensity, r.gflops, r.case.precision)
            }),
            status,
            failed: !r.validation.passed,
            timing: r.timing.name().to_string(),
        }
    }

    fn from_outcome(device: &str, o: &Outcome, roof: Option<&Roofline>) -> Row {
        let case = o.case();
        let blank = |status: String, failed| Row {
            source: 0,
            device: device.to_string(),
            app: case.app.clone(),
            kernel: case.kernel.clone(),
            variant: case.variant.clone(),
            precision: case.precision,
            gflops: None,
            gbps: None,
            ai: None,
            roof: None,
            status,
            failed,
            timing: String::new(),
        };
        match o {
            Outcome::Done(r) => Row::from_record(0, r, roof),
            Outcome::Unsupported { reason, .. } => blank(format!("unsupported: {reason}"), false),
            Outcome::Failed { error, .. } => blank(format!("error: {error}"), true),
        }
    }
}

/// Sorts `rows` by `col`; numbers compare numerically with missing values last.
pub fn sort_rows(rows: &mut [Row], col: Column, ascending: bool) {
    fn num(v: Option<f64>) -> f64 {
        v.unwrap_or(f64::NEG_INFINITY)
    }
    rows.sort_by(|a, b| {
        let ord = match col {
            Column::Source => a.device.cmp(&b.device),
            Column::App => a.app.cmp(&b.app),
            Column::Kernel => a.kernel.cmp(&b.kernel),
            Column::Variant => a.variant.cmp(&b.variant),
            Column::Precision => a.precision.name().cmp(b.precision.name()),
            Column::Gflops => num(a.gflops).total_cmp(&num(b.gflops)),
            Column::Gbps => num(a.gbps).total_cmp(&num(b.gbps)),
            Column::Ai => num(a.ai).total_cmp(&num(b.ai)),
            Column::Roof => num(a.roof).total_cmp(&num(b.roof)),
            Column::Status => a.status.cmp(&b.status),
        };
        if ascending { ord } else { ord.reverse() }
    });
}

/// The Skylight desktop application state; reusable by any eframe front end.
pub struct SkylightApp {
    adapters: Vec<AdapterEntry>,
    /// Arrives once the (asynchronous) adapter listing is done.
    adapters_rx: Option<Receiver<Vec<AdapterEntry>>>,
    /// Index into `adapters`, `None` for the suite's automatic choice.
    selected: Option<usize>,
    forms: Forms,
    run: Option<RunState>,
    platform: Option<PlatformInfo>,
    outcomes: Vec<Outcome>,
    loaded: Vec<LoadedFile>,
    path: String,
    messages: Vec<(bool, String)>,
    sort: (Column, bool),
    demo: Option<Demo>,
    view: View,
    /// Sweep view choices: app, x axis, y axis, metric.
    sweep: (String, String, String, Metric),
    autostart: bool,
    on_finish: Option<FinishHook>,
    saver: Option<SaveHook>,
    dropped: Drops,
}

impl SkylightApp {
    /// Builds the app from the registry's apps and lists the adapters
    /// ([`worker::list`]: done on return natively, later in a browser, where
    /// `repaint` wakes the UI when they arrive).
    pub fn new(repaint: impl Fn() + Send + 'static) -> Self {
        SkylightApp {
            adapters: Vec::new(),
            adapters_rx: Some(worker::list(repaint)),
            selected: None,
            forms: Forms::default(),
            run: None,
            platform: None,
            outcomes: Vec::new(),
            loaded: Vec::new(),
            path: "skylight-results.json".to_string(),
            messages: Vec::new(),
            sort: (Column::App, true),
            demo: None,
            view: View::Roofline,
            sweep: (String::new(), String::new(), String::new(), Metric::Gflops),
            autostart: false,
            on_finish: None,
            saver: None,
            dropped: Drops::default(),
        }
    }

    /// Loads `preset` into the panel; unknown app or parameter names are
    /// reported in the messages rather than ignored.
    pub fn with_preset(mut self, preset: &Preset) -> Self {
        for problem in self.forms.apply(preset) {
            self.error(problem);
        }
        self.autostart |= preset.autostart;
        self
    }

    /// Loads result files to overlay (the binary's positional arguments).
    pub fn with_files(mut self, paths: &[PathBuf]) -> Self {
        for p in paths {
            self.path = p.display().to_string();
            self.load();
        }
        self.path = "skylight-results.json".to_string();
        self
    }

    /// Opens on the sweep heat map instead of the roofline.
    pub fn with_sweep_view(mut self) -> Self {
        self.view = View::Sweep;
        self
    }

    /// Calls `hook` with the run's JSON result file each time a run ends.
    pub fn on_finish(mut self, hook: FinishHook) -> Self {
        self.on_finish = Some(hook);
        self
    }

    /// Turns on demo mode: the small stream + peak preset runs at the first
    /// frame, the window is captured to `opts.screenshot` once the results
    /// are drawn, and the window closes.
    pub fn with_demo(self, opts: DemoOptions) -> Self {
        let mut app = self.with_preset(&Preset::demo());
        app.demo = Some(Demo {
            opts,
            stage: DemoStage::Start,
            started: Instant::now(),
        });
        app
    }

    /// Shows `msg` as an error in the messages panel.
    pub fn report_error(&mut self, msg: impl Into<String>) {
        self.error(msg);
    }

    fn error(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        log::error!("{msg}");
        self.messages.push((true, msg));
    }

    fn info(&mut self, msg: impl Into<String>) {
        self.messages.push((false, msg.into()));
    }

    fn start(&mut self, ctx: &egui::Context) {
        if self.run.is_some() {
            return;
        }
        match self
            .forms
            .job(self.selected.map_or(Selector::Auto, Selector::Index))
        {
            Ok(job) => {
                self.outcomes.clear();
                self.platform = None;
                let stop = Arc::new(AtomicBool::new(false));
                let repaint_ctx = ctx.clone();
                let rx = worker::spawn(job, move || repaint_ctx.request_repaint(), stop.clone());
                self.run = Some(RunState {
                    rx,
                    stop,
                    current: "opening the adapter".into(),
                    fraction: 0.0,
                });
            }
            Err(e) => self.error(e),
        }
    }

    /// Takes the adapter list once it has arrived.
    fn poll_adapters(&mut self) {
        let Some(rx) = &self.adapters_rx else {
            return;
        };
        match rx.try_recv() {
            Ok(list) => {
                if list.is_empty() {
                    self.error(NO_ADAPTER);
                }
                self.adapters = list;
                self.adapters_rx = None;
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                self.error("listing the adapters failed");
                self.adapters_rx = None;
            }
        }
    }

    /// Drains the worker's messages; called every frame.
    fn poll(&mut self) {
        let mut finished = false;
        let mut msgs = Vec::new();
        if let Some(run) = &self.run {
            loop {
                match run.rx.try_recv() {
                    Ok(m) => {
                        // Nothing follows Finished; the thread is about to
                        // exit, which is not an error.
                        let last = matches!(m, Msg::Finished { .. });
                        msgs.push(m);
                        if last {
                            break;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        msgs.push(Msg::Error("the benchmark thread ended unexpectedly".into()));
                        finished = true;
                        break;
                    }
                }
            }
        }
        for m in msgs {
            match m {
                Msg::Opened(info) => {
                    self.info(format!("running on {}", info.label()));
                    self.platform = Some(info);
                }
                Msg::Start {
                    app_index,
                    app_count,
                    case,
                    index,
                    total,
                } => {
                    if let Some(run) = &mut self.run {
                        run.current = format!(
                            "app {}/{app_count}, case {}/{total}: {}",
                            app_index + 1,
                            index + 1,
                            case.label()
                        );
                        let per_app = 1.0 / app_count.max(1) as f32;
                        run.fraction =
                            per_app * (app_index as f32 + index as f32 / total.max(1) as f32);
                    }
                }
                Msg::Outcome(o) => {
                    if let Outcome::Failed { case, error } = o.as_ref() {
                        self.error(format!("{}: {error}", case.label()));
                    }
                    self.outcomes.push(*o);
                }
                Msg::Error(e) => self.error(e),
                Msg::Finished { stopped } => {
                    let records = self.records();
                    let n = records.len();
                    self.info(if stopped {
                        format!("stopped after {n} results")
                    } else {
                        format!("finished: {n} results")
                    });
                    if let Some(hook) = &mut self.on_finish {
                        let roof = Roofline::from_records(&records);
                        hook(&ResultFile::new(records, roof).to_json());
                    }
                    finished = true;
                }
            }
        }
        if finished {
            self.run = None;
        }
    }

    /// This session's completed records.
    fn records(&self) -> Vec<ResultRecord> {
        self.outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Done(r) => Some(r.as_ref().clone()),
                _ => None,
            })
            .collect()
    }

    fn export(&mut self, csv: bool) {
        let records = self.records();
        let roof = Roofline::from_records(&records);
        let file = ResultFile::new(records, roof);
        match io::export(&file, &self.path, csv, self.saver.as_mut()) {
            Ok(msg) => self.info(msg),
            Err(e) => self.error(e),
        }
    }

    /// Loads the result file named in the path field.
    fn load(&mut self) {
        let path = self.path.trim().to_string();
        let parsed = io::read_result_file(&path);
        self.add_loaded(path, parsed);
    }

    /// Overlays the result files dropped on the window.
    fn load_dropped(&mut self, ctx: &egui::Context) {
        for (name, parsed) in self.dropped.take(ctx) {
            self.add_loaded(name, parsed);
        }
    }

    /// Adds a parsed result file to the overlay, or reports why it was refused.
    fn add_loaded(&mut self, path: String, parsed: Result<ResultFile, String>) {
        match parsed {
            Ok(file) => {
                let device = file
                    .records
                    .first()
                    .map(|r| r.platform.name.clone())
                    .unwrap_or_else(|| "empty file".into());
                let roofline = file
                    .roofline
                    .clone()
                    .or_else(|| Roofline::from_records(&file.records));
                self.info(format!(
                    "loaded {} results of {device} from {path}",
                    file.records.len()
                ));
                self.loaded.push(LoadedFile {
                    path,
                    device,
                    records: file.records,
                    roofline,
                });
            }
            Err(e) => self.error(format!("cannot load {path}: {e}")),
        }
    }

    /// Saves exports through `hook` (given the file name and text, it returns
    /// a message for the user) instead of the file system: the web page
    /// turns them into downloads.
    pub fn on_export(mut self, hook: SaveHook) -> Self {
        self.saver = Some(hook);
        self
    }

    /// Rows of every source, unsorted.
    fn rows(&self, local_roof: Option<&Roofline>) -> Vec<Row> {
        let device = self
            .platform
            .as_ref()
            .map(|p| p.name.clone())
            .unwrap_or_else(|| "this machine".into());
        let mut rows: Vec<Row> = self
            .outcomes
            .iter()
            .map(|o| Row::from_outcome(&device, o, local_roof))
            .collect();
        for (i, f) in self.loaded.iter().enumerate() {
            rows.extend(
                f.records
                    .iter()
                    .map(|r| Row::from_record(i + 1, r, f.roofline.as_ref())),
            );
        }
        rows
    }

    fn device_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Devices");
        let running = self.run.is_some();
        ui.add_enabled_ui(!running, |ui| {
            ui.radio_value(&mut self.selected, None, "automatic choice");
            for (i, a) in self.adapters.iter().enumerate() {
                ui.radio_value(
                    &mut self.selected,
                    Some(i),
                    RichText::new(format!("#{i} {}", a.info.name)).strong(),
                );
                ui.indent(("adapter", i), |ui| {
                    ui.label(format!(
                        "{} · {} · {}",
                        a.info.backend, a.info.device_type, a.info.driver
                    ));
                    let feats = a.caps.feature_names();
                    ui.label(if feats.is_empty() {
                        "features: none".to_string()
                    } else {
                        format!("features: {}", feats.join(", "))
                    });
                    ui.label(format!(
                        "max storage binding {} MiB, buffer {} MiB",
                        a.caps.max_storage_binding >> 20,
                        a.caps.max_buffer >> 20
                    ));
                    ui.label(format!(
                        "workgroup: {} invocations, {} KiB shared; subgroup {}..{}",
                        a.caps.max_workgroup_invocations,
                        a.caps.max_workgroup_storage / 1024,
                        a.caps.subgroup_size.0,
                        a.caps.subgroup_size.1
                    ));
                });
            }
        });
        if self.adapters_rx.is_some() {
            ui.label("looking for adapters…");
        } else if self.adapters.is_empty() {
            ui.colored_label(Color32::RED, "no adapter found");
        }
        if let Some(a) = self.chosen_adapter() {
            if !a.caps.f64 {
                ui.label(
                    "f64: not available on this adapter (WebGPU has no f64 at all); \
                     df64, double emulated by f32 pairs, is the double-precision path here",
                );
            }
            if a.info.backend == "webgpu" {
                ui.label(
                    "timing: browsers quantize GPU timestamps (Chromium to 100 µs unless \
                     its WebGPU developer features are on); short kernels read coarse",
                );
            }
        }
    }

    /// The adapter a run would open: the selected one, else the first listed
    /// (what the automatic choice falls back to in a browser, which offers one).
    fn chosen_adapter(&self) -> Option<&AdapterEntry> {
        match self.selected {
            Some(i) => self.adapters.get(i),
            None => self.adapters.first(),
        }
    }

    fn bench_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Benchmarks");
        let running = self.run.is_some();
        ui.add_enabled_ui(!running, |ui| {
            ui.horizontal(|ui| {
                ui.label("precisions:");
                for (p, on) in Precision::ALL.iter().zip(self.forms.precisions.iter_mut()) {
                    ui.checkbox(on, p.name());
                }
            });
            ui.horizontal(|ui| {
                ui.label("samples:");
                ui.add(egui::DragValue::new(&mut self.forms.samples).range(1..=10_000));
            });
            for f in &mut self.forms.apps {
                ui.checkbox(&mut f.enabled, RichText::new(f.name).strong())
                    .on_hover_text(f.about);
                if !f.enabled {
                    continue;
                }
                ui.indent(("params", f.name), |ui| {
                    for p in &mut f.params {
                        ui.horizontal_wrapped(|ui| {
                            ui.label(p.spec.name).on_hover_text(p.spec.help);
                            match (&mut p.value, &p.spec.kind) {
                                (ParamValue::Choice(on), ParamKind::Choice(opts)) => {
                                    for (flag, o) in on.iter_mut().zip(opts.iter()) {
                                        ui.checkbox(flag, *o);
                                    }
                                }
                                (ParamValue::Text(t), _) => {
                                    ui.add(egui::TextEdit::singleline(t).desired_width(110.0))
                                        .on_hover_text(p.spec.help);
                                }
                                _ => {}
                            }
                        });
                    }
                });
            }
        });
        ui.separator();
        ui.horizontal(|ui| {
            let listed = self.adapters_rx.is_none();
            if ui
                .add_enabled(!running && listed, egui::Button::new("Run"))
                .clicked()
            {
                self.start(ui.ctx());
            }
            if ui.add_enabled(running, egui::Button::new("Stop")).clicked()
                && let Some(run) = &self.run
            {
                run.stop.store(true, Ordering::Relaxed);
            }
        });
        if let Some(run) = &self.run {
            ui.add(egui::ProgressBar::new(run.fraction).show_percentage());
            ui.label(&run.current);
            if run.stop.load(Ordering::Relaxed) {
                ui.label("stopping after the current case…");
            }
        }
    }

    fn files_panel(&mut self, ui: &mut egui::Ui) {
        ui.heading("Result files");
        ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(f32::INFINITY));
        ui.horizontal(|ui| {
            if ui.button("Export JSON").clicked() {
                self.export(false);
            }
            if ui.button("Export CSV").clicked() {
                self.export(true);
            }
            if ui.button("Load & overlay").clicked() {
                self.load();
            }
        });
        ui.label("or drop result files on the window to overlay them");
        ui.horizontal_wrapped(|ui| {
            ui.label("Reference runs:");
            for r in REFERENCES {
                if ui.small_button(r.name).clicked() {
                    self.add_loaded(r.name.to_string(), r.load());
                }
            }
        });
        let mut remove = None;
        for (i, f) in self.loaded.iter().enumerate() {
            ui.horizontal(|ui| {
                let (swatch, _) =
                    ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
                ui.painter()
                    .rect_filled(swatch, 2.0, app_color("stream", i + 1));
                ui.label(format!("{} ({})", f.device, f.path));
                if ui.small_button("remove").clicked() {
                    remove = Some(i);
                }
            });
        }
        if let Some(i) = remove {
            self.loaded.remove(i);
        }
    }

    fn messages_panel(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.heading("Messages");
            if ui.small_button("clear").clicked() {
                self.messages.clear();
            }
        });
        egui::ScrollArea::vertical()
            .id_salt("messages")
            .max_height(120.0)
            .stick_to_bottom(true)
            .show(ui, |ui| {
                for (err, m) in &self.messages {
                    if *err {
                        ui.colored_label(palette::FAILURE, m);
                    } else {
                        ui.label(m);
                    }
                }
            });
    }

    fn roofline_plot(&self, ui: &mut egui::Ui, rows: &[Row], local_roof: Option<&Roofline>) {
        let mut roofs: Vec<(usize, &Roofline)> = Vec::new();
        if let Some(r) = local_roof {
            roofs.push((0, r));
        }
        for (i, f) in self.loaded.iter().enumerate() {
            if let Some(r) = &f.roofline {
                roofs.push((i + 1, r));
            }
        }
        let only_roofs: Vec<&Roofline> = roofs.iter().map(|(_, r)| *r).collect();
        let (ai_min, ai_max) = plot::ai_range(rows.iter().filter_map(|r| r.ai), &only_roofs);

        // Group points into one series per (source, app, precision): colour by
        // app, shape by precision, and a name the hover text can look up.
        let mut series: Vec<Series> = Vec::new();
        let mut hover: HashMap<String, Vec<String>> = HashMap::new();
        for r in rows {
            let (Some(ai), Some(g)) = (r.ai, r.gflops) else {
                continue;
            };
            let Some(pt) = plot::log_point(ai, g) else {
                continue;
            };
            let name = if r.source == 0 {
                format!("{} {}", r.app, r.precision)
            } else {
                format!("{} {} @ {}", r.app, r.precision, r.device)
            };
            let text = format!(
                "{} / {} [{}] {}\n{:.2} GFLOP/s, {:.2} GB/s\nAI {:.3} FLOP/B, {}\n{} (timed by {})",
                r.app,
                r.kernel,
                r.variant,
                r.precision,
                g,
                r.gbps.unwrap_or(0.0),
                ai,
                r.roof
                    .map_or("no roof for this precision".to_string(), |f| format!(
                        "{:.1}% of roof",
                        f * 100.0
                    )),
                r.device,
                r.timing
            );
            hover.entry(name.clone()).or_default().push(text);
            match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push(pt),
                None => series.push(Series {
                    name,
                    source: r.source,
                    app: r.app.clone(),
                    precision: r.precision,
                    points: vec![pt],
                }),
            }
        }

        let x_range = (
            plot::to_log(ai_min).unwrap_or(-1.0),
            plot::to_log(ai_max).unwrap_or(2.0),
        );
        Plot::new("roofline")
            .legend(Legend::default())
            .x_axis_label("arithmetic intensity (FLOP/byte)")
            .y_axis_label("GFLOP/s")
            .x_grid_spacer(|input| plot::decade_marks(input.bounds))
            .y_grid_spacer(|input| plot::decade_marks(input.bounds))
            .x_axis_formatter(|mark, _| plot::tick_label(mark.value))
            .y_axis_formatter(|mark, _| plot::tick_label(mark.value))
            .include_x(x_range.0)
            .include_x(x_range.1)
            .label_formatter(move |pos| match pos {
                egui_plot::HoverPosition::NearDataPoint {
                    plot_name, index, ..
                } => hover
                    .get(*plot_name)
                    .and_then(|v| v.get(*index))
                    .cloned()
                    .or_else(|| Some(plot_name.to_string())),
                egui_plot::HoverPosition::Elsewhere { position } => Some(format!(
                    "AI {:.3}, {:.3} GFLOP/s",
                    plot::from_log(position.x),
                    plot::from_log(position.y)
                )),
            })
            .show(ui, |pui| {
                for (source, roof) in &roofs {
                    let style = if *source == 0 {
                        LineStyle::Solid
                    } else {
                        LineStyle::dashed_dense()
                    };
                    let suffix = if *source == 0 {
                        String::new()
                    } else {
                        format!(" @ {}", roof.platform.name)
                    };
                    for c in plot::ceiling_lines(roof, ai_min, ai_max) {
                        let color = palette::ceiling_color(c.precision);
                        pui.line(
                            Line::new(format!("{}{suffix}", c.label), c.points)
                                .color(color)
                                .style(style)
                                .width(1.5),
                        );
                        if let Some(p) = c.precision
                            && let Some(pt) = plot::ridge_point(roof, p)
                        {
                            pui.text(
                                // No name: ridge labels need no legend entry.
                                Text::new(
                                    "",
                                    egui_plot::PlotPoint::new(pt[0], pt[1]),
                                    format!("ridge {p}: AI {:.2}", plot::from_log(pt[0])),
                                )
                                .anchor(egui::Align2::LEFT_BOTTOM)
                                .color(color),
                            );
                        }
                    }
                }
                for s in series {
                    pui.points(
                        Points::new(s.name, s.points)
                            .color(app_color(&s.app, s.source))
                            .shape(precision_marker(s.precision))
                            .filled(true)
                            .radius(5.0),
                    );
                }
            });
    }

    /// The heat map of one app's results over two parameters that vary.
    /// Loaded files' records are offered too, as "app @ device".
    fn sweep_view(&mut self, ui: &mut egui::Ui, records: &[ResultRecord]) {
        let mut groups: Vec<(String, Vec<&ResultRecord>)> = Vec::new();
        let loaded = self
            .loaded
            .iter()
            .flat_map(|f| f.records.iter().map(move |r| (Some(&f.device), r)));
        for (device, r) in records.iter().map(|r| (None, r)).chain(loaded) {
            let label = match device {
                None => r.case.app.clone(),
                Some(d) => format!("{} @ {d}", r.case.app),
            };
            match groups.iter_mut().find(|(l, _)| *l == label) {
                Some((_, v)) => v.push(r),
                None => groups.push((label, vec![r])),
            }
        }
        let apps: Vec<&str> = groups.iter().map(|(l, _)| l.as_str()).collect();
        if apps.is_empty() {
            ui.label("run an app with comma lists (e.g. wg = 32,64,128,256 and several variants) to see its sweep");
            return;
        }
        let (app, x, y, metric) = &mut self.sweep;
        if !apps.contains(&app.as_str()) {
            *app = apps[0].to_string();
        }
        let mine: Vec<&ResultRecord> = groups
            .iter()
            .find(|(l, _)| l == app)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let axes = sweep::varying(&mine);
        ui.horizontal(|ui| {
            ui.label("app");
            egui::ComboBox::from_id_salt("sweep-app")
                .selected_text(app.as_str())
                .show_ui(ui, |ui| {
                    for a in &apps {
                        ui.selectable_value(app, a.to_string(), *a);
                    }
                });
            for (label, axis) in [("x", &mut *x), ("y", &mut *y)] {
                ui.label(label);
                egui::ComboBox::from_id_salt(("sweep-axis", label))
                    .selected_text(axis.as_str())
                    .show_ui(ui, |ui| {
                        for a in &axes {
                            ui.selectable_value(axis, a.clone(), a);
                        }
                    });
            }
            ui.label("value");
            egui::ComboBox::from_id_salt("sweep-value")
                .selected_text(metric.name())
                .show_ui(ui, |ui| {
                    for m in Metric::ALL {
                        ui.selectable_value(metric, m, m.name());
                    }
                });
        });
        if axes.len() < 2 {
            ui.label(format!(
                "{app}: only {} of its parameters vary ({}); sweep two to get a heat map",
                axes.len(),
                axes.join(", ")
            ));
            return;
        }
        if !axes.contains(x) {
            *x = axes.iter().find(|a| *a == "wg").unwrap_or(&axes[0]).clone();
        }
        if !axes.contains(y) || y == x {
            *y = axes.iter().find(|a| *a != x).cloned().unwrap_or_default();
        }
        let map = sweep::heat_map(&mine, x, y, *metric);
        draw_heat_map(ui, &map, x, y, metric.name());
    }

    fn table(&mut self, ui: &mut egui::Ui, mut rows: Vec<Row>) {
        sort_rows(&mut rows, self.sort.0, self.sort.1);
        egui::ScrollArea::both()
            .id_salt("results")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("results-grid")
                    .striped(true)
                    .min_col_width(40.0)
                    .show(ui, |ui| {
                        for c in Column::ALL {
                            let arrow = match self.sort {
                                (s, true) if s == c => " ^",
                                (s, false) if s == c => " v",
                                _ => "",
                            };
                            if ui.button(format!("{}{arrow}", c.title())).clicked() {
                                self.sort = if self.sort.0 == c {
                                    (c, !self.sort.1)
                                } else {
                                    (c, true)
                                };
                            }
                        }
                        ui.end_row();
                        let num =
                            |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
                        for r in &rows {
                            ui.colored_label(app_color(&r.app, r.source), &r.device);
                            ui.label(&r.app);
                            ui.label(&r.kernel);
                            ui.label(&r.variant);
                            ui.label(r.precision.name());
                            ui.label(num(r.gflops));
                            ui.label(num(r.gbps));
                            ui.label(num(r.ai));
                            ui.label(
                                r.roof
                                    .map_or("—".to_string(), |f| format!("{:.1}", f * 100.0)),
                            );
                            if r.failed {
                                ui.colored_label(palette::FAILURE, &r.status);
                            } else {
                                ui.label(&r.status);
                            }
                            ui.end_row();
                        }
                    });
            });
    }

    /// Advances demo mode: start, wait for the results, settle, capture, close.
    fn drive_demo(&mut self, ctx: &egui::Context) {
        let Some(demo) = &mut self.demo else {
            return;
        };
        let timed_out = demo.started.elapsed() > demo.opts.timeout;
        let next = match &demo.stage {
            DemoStage::Start if self.run.is_some() || !self.autostart => Some(DemoStage::Running),
            DemoStage::Start => None,
            DemoStage::Running if self.run.is_none() || timed_out => {
                if timed_out && let Some(run) = &self.run {
                    run.stop.store(true, Ordering::Relaxed);
                }
                Some(DemoStage::Settle(5))
            }
            DemoStage::Running => None,
            DemoStage::Settle(0) => {
                let slot = Arc::new(Mutex::new(None));
                let sink = slot.clone();
                let wake = ctx.clone();
                ctx.request_screenshot(move |img| {
                    if let Ok(mut s) = sink.lock() {
                        *s = Some(img);
                    }
                    wake.request_repaint();
                });
                Some(DemoStage::Capturing(slot))
            }
            DemoStage::Settle(n) => Some(DemoStage::Settle(n - 1)),
            DemoStage::Capturing(slot) => {
                let img = slot.lock().ok().and_then(|mut s| s.take());
                match img {
                    Some(img) => {
                        let plotted = self
                            .outcomes
                            .iter()
                            .any(|o| matches!(o, Outcome::Done(r) if r.gflops > 0.0));
                        let saved = match &demo.opts.screenshot {
                            Some(path) => match io::save_png(path, &img) {
                                Ok(()) => {
                                    eprintln!("screenshot written to {}", path.display());
                                    true
                                }
                                Err(e) => {
                                    eprintln!("cannot write the screenshot: {e}");
                                    false
                                }
                            },
                            None => true,
                        };
                        demo.opts.success.store(plotted && saved, Ordering::Relaxed);
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                        Some(DemoStage::Done)
                    }
                    None if timed_out
                        && demo.started.elapsed() > demo.opts.timeout + Duration::from_secs(30) =>
                    {
                        eprintln!("the screenshot never arrived");
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                        Some(DemoStage::Done)
                    }
                    None => None,
                }
            }
            DemoStage::Done => None,
        };
        if let Some(stage) = next {
            demo.stage = stage;
        }
        // Keep frames coming: settling counts frames and the capture is polled.
        ctx.request_repaint_after(Duration::from_millis(50));
    }
}

/// Paints `map` as labelled coloured cells filling the available space.
fn draw_heat_map(ui: &mut egui::Ui, map: &sweep::HeatMap, x: &str, y: &str, unit: &str) {
    let font = egui::FontId::proportional(13.0);
    let text_color = ui.visuals().text_color();
    let avail = ui.available_size();
    let (rect, _) = ui.allocate_exact_size(avail, egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let label_w = map
        .ys
        .iter()
        .map(|l| l.len())
        .max()
        .unwrap_or(1)
        .max(y.len()) as f32
        * 7.5
        + 16.0;
    let (label_h, legend_h) = (22.0, 24.0);
    let grid = egui::Rect::from_min_max(
        rect.min + egui::vec2(label_w, label_h),
        rect.max - egui::vec2(8.0, legend_h),
    );
    let (nx, ny) = (map.xs.len().max(1) as f32, map.ys.len().max(1) as f32);
    let cell = egui::vec2(grid.width() / nx, (grid.height() / ny).min(60.0));
    painter.text(
        rect.min,
        egui::Align2::LEFT_TOP,
        format!("{y} \\ {x}"),
        font.clone(),
        text_color,
    );
    for (i, xl) in map.xs.iter().enumerate() {
        let c = egui::pos2(
            grid.min.x + (i as f32 + 0.5) * cell.x,
            rect.min.y + label_h / 2.0,
        );
        painter.text(c, egui::Align2::CENTER_CENTER, xl, font.clone(), text_color);
    }
    for (j, (yl, row)) in map.ys.iter().zip(&map.cells).enumerate() {
        let top = grid.min.y + j as f32 * cell.y;
        painter.text(
            egui::pos2(rect.min.x, top + cell.y / 2.0),
            egui::Align2::LEFT_CENTER,
            yl,
            font.clone(),
            text_color,
        );
        for (i, v) in row.iter().enumerate() {
            let r =
                egui::Rect::from_min_size(egui::pos2(grid.min.x + i as f32 * cell.x, top), cell)
                    .shrink(1.0);
            match v {
                Some(v) => {
                    let fill = sweep::ramp(if map.max > 0.0 { v / map.max } else { 0.0 });
                    painter.rect_filled(r, 2.0, fill);
                    // Dark text on the bright end of the ramp, light on the dark end.
                    let ink = if fill.g() > 150 {
                        Color32::BLACK
                    } else {
                        Color32::WHITE
                    };
                    painter.text(
                        r.center(),
                        egui::Align2::CENTER_CENTER,
                        format!("{v:.1}"),
                        font.clone(),
                        ink,
                    );
                }
                None => {
                    painter.rect_stroke(
                        r,
                        2.0,
                        egui::Stroke::new(1.0, Color32::from_gray(90)),
                        egui::StrokeKind::Inside,
                    );
                }
            }
        }
    }
    painter.text(
        egui::pos2(grid.min.x, grid.min.y + ny * cell.y + 6.0),
        egui::Align2::LEFT_TOP,
        format!("{unit}, best over the other parameters; max {:.1}", map.max),
        font,
        text_color,
    );
}

impl eframe::App for SkylightApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.poll_adapters();
        self.poll();
        self.load_dropped(&ctx);
        if self.autostart && self.adapters_rx.is_none() {
            self.autostart = false;
            self.start(&ctx);
        }
        self.drive_demo(&ctx);
        if self.run.is_some() {
            // Progress arrives with repaint requests; this is only a heartbeat.
            ctx.request_repaint_after(Duration::from_millis(250));
        }
        let records = self.records();
        let local_roof = Roofline::from_records(&records);
        let rows = self.rows(local_roof.as_ref());

        egui::Panel::left("controls")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("controls-scroll")
                    .show(ui, |ui| {
                        self.device_panel(ui);
                        ui.separator();
                        self.bench_panel(ui);
                        ui.separator();
                        self.files_panel(ui);
                        ui.separator();
                        self.messages_panel(ui);
                    });
            });
        egui::Panel::bottom("table")
            .resizable(true)
            .default_size(220.0)
            .show(ui, |ui| {
                ui.heading("Results");
                self.table(ui, rows.clone());
            });
        egui::CentralPanel::default().show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(
                    &mut self.view,
                    View::Roofline,
                    RichText::new("Roofline").heading(),
                );
                ui.selectable_value(
                    &mut self.view,
                    View::Sweep,
                    RichText::new("Sweep").heading(),
                );
            });
            match self.view {
                View::Roofline => {
                    if local_roof.is_none() && !records.is_empty() {
                        ui.label("run stream (and peak) to measure the ceilings");
                    }
                    self.roofline_plot(ui, &rows, local_roof.as_ref());
                }
                View::Sweep => self.sweep_view(ui, &records),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(app: &str, gflops: Option<f64>) -> Row {
        Row {
            source: 0,
            device: "dev".into(),
            app: app.into(),
            kernel: "k".into(),
            variant: "v".into(),
            precision: Precision::F32,
            gflops,
            gbps: None,
            ai: None,
            roof: None,
            status: "ok".into(),
            failed: false,
            timing: "gpu-ts".into(),
        }
    }

    #[test]
    fn sorting_puts_missing_numbers_last_when_descending() {
        let mut rows = vec![row("b", Some(2.0)), row("a", None), row("c", Some(5.0))];
        sort_rows(&mut rows, Column::Gflops, false);
        let apps: Vec<&str> = rows.iter().map(|r| r.app.as_str()).collect();
        assert_eq!(apps, ["c", "b", "a"]);
        sort_rows(&mut rows, Column::App, true);
        let apps: Vec<&str> = rows.iter().map(|r| r.app.as_str()).collect();
        assert_eq!(apps, ["a", "b", "c"]);
    }
}
