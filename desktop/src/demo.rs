//! The `--demo` driver: run the small preset, let the plot settle, capture
//! the window to a PNG (the README's picture and the screenshot test), close.
//! Without the preset it captures the loaded files as the window shows them
//! (`--screenshot` alone: the README's other pictures).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eframe::egui;
use web_time::Instant;

use crate::io;
use crate::state::{Results, RunState};

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

/// Where egui's screenshot callback leaves the image for a later frame.
type Slot = Arc<Mutex<Option<Arc<egui::ColorImage>>>>;

#[derive(Debug)]
enum Stage {
    Start,
    Running,
    /// Frames left to draw after the last result so the plot has settled.
    Settle(u32),
    Capturing(Slot),
    Done,
}

/// Demo mode in progress.
pub struct Demo {
    opts: DemoOptions,
    stage: Stage,
    started: Instant,
    /// Whether a run's results are what must be drawn (else the loaded files').
    runs: bool,
}

impl Demo {
    /// Demo mode with `opts`, its timeout counted from now: a run's results
    /// are drawn before the capture.
    pub fn new(opts: DemoOptions) -> Self {
        Demo {
            opts,
            stage: Stage::Start,
            started: Instant::now(),
            runs: true,
        }
    }

    /// A capture of the loaded files as the window shows them, with no run.
    pub fn loaded(opts: DemoOptions) -> Self {
        Demo {
            runs: false,
            ..Demo::new(opts)
        }
    }

    /// Advances by one frame: start, wait for the results, settle, capture,
    /// close. `run` is the job in flight, `autostart` whether the preset's
    /// start is still to come.
    pub fn drive(
        &mut self,
        ctx: &egui::Context,
        run: Option<&RunState>,
        autostart: bool,
        results: &Results,
    ) {
        let timed_out = self.started.elapsed() > self.opts.timeout;
        let next = match &self.stage {
            Stage::Start if run.is_some() || !autostart => Some(Stage::Running),
            Stage::Start => None,
            Stage::Running if run.is_none() || timed_out => {
                if timed_out && let Some(run) = run {
                    run.request_stop();
                }
                Some(Stage::Settle(5))
            }
            Stage::Running => None,
            Stage::Settle(0) => Some(Stage::Capturing(request_capture(ctx))),
            Stage::Settle(n) => Some(Stage::Settle(n - 1)),
            Stage::Capturing(slot) => self.collect(ctx, slot, timed_out, results),
            Stage::Done => None,
        };
        if let Some(stage) = next {
            self.stage = stage;
        }
        // Keep frames coming: settling counts frames and the capture is polled.
        ctx.request_repaint_after(Duration::from_millis(50));
    }

    /// Once the screenshot has arrived: saves it, sets the success flag (a
    /// result of the run plotted, or the files loaded) and closes the window.
    /// Gives up 30 s after the timeout if it never comes.
    fn collect(
        &self,
        ctx: &egui::Context,
        slot: &Slot,
        timed_out: bool,
        results: &Results,
    ) -> Option<Stage> {
        let img = slot.lock().ok().and_then(|mut s| s.take());
        match img {
            Some(img) => {
                let saved = self
                    .opts
                    .screenshot
                    .as_deref()
                    .is_none_or(|path| write_screenshot(path, &img));
                let drawn = if self.runs {
                    results.plotted()
                } else {
                    results.files_ok()
                };
                self.opts.success.store(drawn && saved, Ordering::Relaxed);
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                Some(Stage::Done)
            }
            None if timed_out
                && self.started.elapsed() > self.opts.timeout + Duration::from_secs(30) =>
            {
                eprintln!("the screenshot never arrived");
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                Some(Stage::Done)
            }
            None => None,
        }
    }
}

/// Asks egui for a screenshot of the next frame; it lands in the returned slot.
fn request_capture(ctx: &egui::Context) -> Slot {
    let slot = Arc::new(Mutex::new(None));
    let sink = slot.clone();
    let wake = ctx.clone();
    ctx.request_screenshot(move |img| {
        if let Ok(mut s) = sink.lock() {
            *s = Some(img);
        }
        wake.request_repaint();
    });
    slot
}

/// Saves the screenshot, saying on stderr where it went or why it did not.
fn write_screenshot(path: &Path, img: &egui::ColorImage) -> bool {
    match io::save_png(path, img) {
        Ok(()) => {
            eprintln!("screenshot written to {}", path.display());
            true
        }
        Err(e) => {
            eprintln!("cannot write the screenshot: {e}");
            false
        }
    }
}
