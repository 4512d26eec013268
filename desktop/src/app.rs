//! The Skylight window: construction (the builder methods the front ends
//! call) and the per-frame dispatch to the state, panels and views.

use std::path::PathBuf;
use std::time::Duration;

use eframe::egui::{self, RichText};

pub use crate::demo::DemoOptions;
pub use crate::forms::Preset;
pub use crate::io::{FailHook, FinishHook, SaveHook};
/// Re-exported where the screenshot tests (`desktop/tests/`) find them:
/// they look for the demo's markers and the scaling curves by colour.
pub use crate::palette::{CASCADE_EFFICIENCY, CASCADE_PP, app_color, series_color};

use crate::demo::Demo;
use crate::forms::Forms;
use crate::io::{self, Drops};
use crate::panels::{self, files::FileAction};
use crate::state::{Devices, Ended, Messages, Results, RunState};
use crate::table::Table;
use crate::views::{
    portability::PortabilityView, roofline::RooflineView, scaling::ScalingView, sweep::SweepView,
};

/// What the path field holds until the user types another.
const DEFAULT_PATH: &str = "skylight-results.json";

/// Which picture the central panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Roofline,
    Sweep,
    Portability,
    Scaling,
}

/// The Skylight desktop application state; reusable by any eframe front end.
pub struct SkylightApp {
    devices: Devices,
    forms: Forms,
    run: Option<RunState>,
    results: Results,
    log: Messages,
    /// The path field: where exports go and what Load reads.
    path: String,
    drops: Drops,
    table: Table,
    view: View,
    roofline: RooflineView,
    sweep: SweepView,
    portability: PortabilityView,
    scaling: ScalingView,
    demo: Option<Demo>,
    /// Start the preset's run once the adapters are listed.
    autostart: bool,
    /// What starts is the Tune action (a preset's `tune_budget_s`).
    autotune: bool,
    on_finish: Option<FinishHook>,
    on_fail: Option<FailHook>,
    saver: Option<SaveHook>,
}

impl SkylightApp {
    /// Builds the app from the registry's apps and lists the adapters
    /// ([`crate::worker::list`]: done on return natively, later in a
    /// browser, where `repaint` wakes the UI when they arrive).
    pub fn new(repaint: impl Fn() + Send + 'static) -> Self {
        SkylightApp {
            devices: Devices::new(repaint),
            forms: Forms::default(),
            run: None,
            results: Results::default(),
            log: Messages::default(),
            path: DEFAULT_PATH.to_string(),
            drops: Drops::default(),
            table: Table::default(),
            view: View::Roofline,
            roofline: RooflineView::default(),
            sweep: SweepView::default(),
            portability: PortabilityView::default(),
            scaling: ScalingView::default(),
            demo: None,
            autostart: false,
            autotune: false,
            on_finish: None,
            on_fail: None,
            saver: None,
        }
    }

    /// Loads `preset` into the panel; unknown app or parameter names are
    /// reported in the messages rather than ignored.
    pub fn with_preset(mut self, preset: &Preset) -> Self {
        for problem in self.forms.apply(preset) {
            self.log.error(problem);
        }
        self.autostart |= preset.autostart;
        self.autotune |= preset.tune_budget_s.is_some();
        self
    }

    /// Loads result files to overlay (the binary's positional arguments).
    pub fn with_files(mut self, paths: &[PathBuf]) -> Self {
        for p in paths {
            self.load(&p.display().to_string());
        }
        self
    }

    /// Opens on the sweep heat map instead of the roofline.
    pub fn with_sweep_view(mut self) -> Self {
        self.view = View::Sweep;
        self
    }

    /// Opens on the portability study (PP and its cascade) of the loaded
    /// platforms.
    pub fn with_portability_view(mut self) -> Self {
        self.view = View::Portability;
        self
    }

    /// Opens on the scaling curves of the loaded scale-out results.
    pub fn with_scaling_view(mut self) -> Self {
        self.view = View::Scaling;
        self
    }

    /// Calls `hook` with the run's JSON result file each time a run ends.
    pub fn on_finish(mut self, hook: FinishHook) -> Self {
        self.on_finish = Some(hook);
        self
    }

    /// Calls `hook` with the reason when a job cannot start (the panel's
    /// values are refused) or its worker is lost.
    pub fn on_fail(mut self, hook: FailHook) -> Self {
        self.on_fail = Some(hook);
        self
    }

    /// Saves exports through `hook` (given the file name and text, it returns
    /// a message for the user) instead of the file system: the web page
    /// turns them into downloads.
    pub fn on_export(mut self, hook: SaveHook) -> Self {
        self.saver = Some(hook);
        self
    }

    /// Turns on demo mode: the small stream + peak preset runs at the first
    /// frame, the window is captured to `opts.screenshot` once the results
    /// are drawn, and the window closes.
    pub fn with_demo(self, opts: DemoOptions) -> Self {
        let mut app = self.with_preset(&Preset::demo());
        app.demo = Some(Demo::new(opts));
        app
    }

    /// Captures the window to `opts.screenshot` once the loaded files are
    /// drawn (no run), then closes it.
    pub fn with_screenshot(mut self, opts: DemoOptions) -> Self {
        self.demo = Some(Demo::loaded(opts));
        self
    }

    /// Shows `msg` as an error in the messages panel.
    pub fn report_error(&mut self, msg: impl Into<String>) {
        self.log.error(msg);
    }

    /// Starts the job the benchmark panel describes (a tune with `tune`),
    /// unless one is running.
    fn start(&mut self, ctx: &egui::Context, tune: bool) {
        if self.run.is_some() {
            return;
        }
        match self
            .forms
            .job(self.devices.selector(), self.devices.backend)
        {
            Ok(mut job) => {
                if tune {
                    job.tune_budget_s = Some(self.forms.tune_budget_s);
                }
                self.results.clear_run();
                self.run = Some(RunState::start(job, ctx));
            }
            Err(e) => self.fail(e),
        }
    }

    /// Logs `why` and tells the fail hook.
    fn fail(&mut self, why: String) {
        if let Some(hook) = &mut self.on_fail {
            hook(&why);
        }
        self.log.error(why);
    }

    /// Takes the worker's news; when the run is over, says so and hands its
    /// result file to the finish hook.
    fn poll_run(&mut self) {
        let Some(run) = &mut self.run else {
            return;
        };
        let Some(ended) = run.poll(&mut self.results, &mut self.log) else {
            return;
        };
        self.run = None;
        if let Ended::Refused(why) = &ended {
            self.fail(why.clone());
        }
        if let Ended::Lost = ended
            && let Some(hook) = &mut self.on_fail
        {
            hook("the benchmark thread ended unexpectedly");
        }
        if let Ended::Finished { stopped } = ended {
            let n = self.results.current().records.len();
            self.log.info(if stopped {
                format!("stopped after {n} results")
            } else {
                format!("finished: {n} results")
            });
            if let Some(hook) = &mut self.on_finish {
                hook(&self.results.result_file().to_json());
            }
        }
    }

    /// Loads the result file at `path` into the overlay.
    fn load(&mut self, path: &str) {
        let path = path.trim().to_string();
        let parsed = io::read_result_file(&path);
        self.results.add_file(path, parsed, &mut self.log);
    }

    fn file_action(&mut self, action: FileAction) {
        match action {
            FileAction::Export { csv } => {
                let file = self.results.result_file();
                match io::export(&file, &self.path, csv, self.saver.as_mut()) {
                    Ok(msg) => self.log.info(msg),
                    Err(e) => self.log.error(e),
                }
            }
            FileAction::Report => {
                let records = self.results.current().all.to_vec();
                match io::export_report(&records, &self.path, self.saver.as_mut()) {
                    Ok(msg) => self.log.info(msg),
                    Err(e) => self.log.error(e),
                }
            }
            FileAction::Load => self.load(&self.path.clone()),
            FileAction::Reference(r) => {
                self.results
                    .add_file(r.name.to_string(), r.load(), &mut self.log);
            }
            FileAction::Remove(i) => self.results.remove_file(i),
        }
    }

    /// The left column's panels.
    fn controls(&mut self, ui: &mut egui::Ui) {
        panels::devices::show(ui, &mut self.devices, self.run.is_some());
        ui.separator();
        if let Some(action) = panels::bench::show(
            ui,
            &mut self.forms,
            self.run.as_ref(),
            self.devices.listed(),
        ) {
            self.start(ui.ctx(), action == panels::bench::Action::Tune);
        }
        ui.separator();
        let loaded = self.results.current().loaded;
        if let Some(action) = panels::files::show(ui, &mut self.path, loaded) {
            self.file_action(action);
        }
        ui.separator();
        panels::messages::show(ui, &mut self.log);
    }
}

impl eframe::App for SkylightApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        self.devices.poll(&mut self.log);
        self.poll_run();
        for (name, parsed) in self.drops.take(&ctx) {
            self.results.add_file(name, parsed, &mut self.log);
        }
        if self.autostart && self.devices.listed() {
            self.autostart = false;
            self.start(&ctx, self.autotune);
        }
        if let Some(demo) = &mut self.demo {
            demo.drive(&ctx, self.run.as_ref(), self.autostart, &self.results);
        }
        if self.run.is_some() && !skylight_core::runner::timing_now() {
            // Progress arrives with repaint requests; this is only a
            // heartbeat, held while a kernel is timed so that the frames do
            // not share the GPU with the samples (the case's end wakes the
            // UI again).
            ctx.request_repaint_after(Duration::from_millis(250));
        }

        egui::Panel::left("controls")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("controls-scroll")
                    .show(ui, |ui| self.controls(ui));
            });
        // After the controls, so a file they loaded or removed shows at once.
        let now = self.results.current();
        egui::Panel::bottom("table")
            .resizable(true)
            .default_size(220.0)
            .show(ui, |ui| {
                ui.heading("Results");
                self.table.show(ui, now.rows, now.generation);
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
                ui.selectable_value(
                    &mut self.view,
                    View::Portability,
                    RichText::new("Portability").heading(),
                );
                ui.selectable_value(
                    &mut self.view,
                    View::Scaling,
                    RichText::new("Scaling").heading(),
                );
            });
            match self.view {
                View::Roofline => self.roofline.show(ui, &now),
                View::Sweep => self.sweep.show(ui, &now),
                View::Portability => self.portability.show(ui, &now),
                View::Scaling => self.scaling.show(ui, &now),
            }
        });
    }
}
