//! `skylight-desktop`: the Skylight GUI.
//!
//! `--demo` runs a small stream + peak preset at start-up and closes the
//! window once the results are drawn; with `--screenshot PATH` the window is
//! saved as a PNG first (the README's picture and the screenshot test).
//! `--screenshot PATH` alone saves the window once the result files given
//! are drawn (the README's other pictures, and their test).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eframe::egui;
use skylight_desktop::{DemoOptions, SkylightApp};

const USAGE: &str =
    "usage: skylight-desktop [--demo] [--screenshot PATH] [--sweep | --portability | --scaling] [RESULTS.json ...]

  RESULTS.json       result files (skylight run --json) to overlay from the start
  --sweep            open on the sweep heat map instead of the roofline
  --portability      open on the portability study (PP and its cascade) of the files' platforms
  --scaling          open on the scaling curves of scale-out results (mpirun -np N skylight run)
  --demo             run stream + peak (size=small, iters=64, 3 samples), then exit
  --screenshot PATH  save the window as a PNG once results are drawn (with --demo: the
                     demo's; without: the files'), then exit";

/// The view to open on.
#[derive(Clone, Copy, PartialEq)]
enum View {
    Roofline,
    Sweep,
    Portability,
    Scaling,
}

/// The command line.
struct Args {
    demo: bool,
    screenshot: Option<PathBuf>,
    view: View,
    files: Vec<PathBuf>,
}

/// Parses the command line; `Err` is the exit status after usage or an error.
fn parse() -> Result<Args, ExitCode> {
    let mut a = Args {
        demo: false,
        screenshot: None,
        view: View::Roofline,
        files: Vec::new(),
    };
    let fail = |msg: String| {
        eprintln!("{msg}\n{USAGE}");
        Err(ExitCode::from(2))
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let view = match arg.as_str() {
            "--demo" => {
                a.demo = true;
                continue;
            }
            "--screenshot" => match args.next() {
                Some(p) => {
                    a.screenshot = Some(PathBuf::from(p));
                    continue;
                }
                None => return fail("--screenshot needs a path".into()),
            },
            "--sweep" => View::Sweep,
            "--portability" => View::Portability,
            "--scaling" => View::Scaling,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Err(ExitCode::SUCCESS);
            }
            other if other.starts_with('-') => return fail(format!("unknown argument `{other}`")),
            file => {
                a.files.push(PathBuf::from(file));
                continue;
            }
        };
        if a.view != View::Roofline && a.view != view {
            return fail(
                "--sweep, --portability and --scaling open different views: give one".into(),
            );
        }
        a.view = view;
    }
    Ok(a)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args = match parse() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let success = Arc::new(AtomicBool::new(false));
    // Either mode ends by itself: the demo after its run, a bare
    // screenshot once the files are drawn.
    let capture = args.demo || args.screenshot.is_some();
    let capture_opts = capture.then(|| DemoOptions {
        screenshot: args.screenshot.clone(),
        success: success.clone(),
        timeout: Duration::from_secs(240),
    });
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Skylight")
            .with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    let (demo, view, files) = (args.demo, args.view, args.files);
    let result = eframe::run_native(
        "Skylight",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let mut app = SkylightApp::new(move || ctx.request_repaint()).with_files(&files);
            app = match view {
                View::Roofline => app,
                View::Sweep => app.with_sweep_view(),
                View::Portability => app.with_portability_view(),
                View::Scaling => app.with_scaling_view(),
            };
            Ok(Box::new(match capture_opts {
                Some(d) if demo => app.with_demo(d),
                Some(d) => app.with_screenshot(d),
                None => app,
            }))
        }),
    );
    if let Err(e) = result {
        eprintln!("skylight-desktop: {e}");
        return ExitCode::FAILURE;
    }
    if capture && !success.load(Ordering::Relaxed) {
        eprintln!(
            "skylight-desktop: {}",
            if demo {
                "the demo did not plot any result"
            } else {
                "a result file could not be loaded (or none was given), or the screenshot was not written"
            }
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
