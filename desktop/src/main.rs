//! `skylight-desktop`: the Skylight GUI.
//!
//! `--demo` runs a small stream + peak preset at start-up and closes the
//! window once the results are drawn; with `--screenshot PATH` the window is
//! saved as a PNG first (the README's picture and the screenshot test).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use eframe::egui;
use skylight_desktop::{DemoOptions, SkylightApp};

const USAGE: &str =
    "usage: skylight-desktop [--demo] [--screenshot PATH] [--sweep] [RESULTS.json ...]

  RESULTS.json       result files (skylight run --json) to overlay from the start
  --sweep            open on the sweep heat map instead of the roofline
  --demo             run stream + peak (size=small, iters=64, 3 samples), then exit
  --screenshot PATH  with --demo: save the window as a PNG once results are drawn";

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let mut demo = false;
    let mut screenshot = None;
    let mut sweep = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--demo" => demo = true,
            "--screenshot" => match args.next() {
                Some(p) => screenshot = Some(PathBuf::from(p)),
                None => {
                    eprintln!("--screenshot needs a path\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--sweep" => sweep = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other if other.starts_with('-') => {
                eprintln!("unknown argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
            file => files.push(PathBuf::from(file)),
        }
    }
    if screenshot.is_some() && !demo {
        eprintln!("--screenshot only works with --demo\n{USAGE}");
        return ExitCode::from(2);
    }
    let success = Arc::new(AtomicBool::new(false));
    let demo_opts = demo.then(|| DemoOptions {
        screenshot,
        success: success.clone(),
        timeout: Duration::from_secs(240),
    });
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Skylight")
            .with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    let result = eframe::run_native(
        "Skylight",
        options,
        Box::new(move |cc| {
            let ctx = cc.egui_ctx.clone();
            let mut app = SkylightApp::new(move || ctx.request_repaint()).with_files(&files);
            if sweep {
                app = app.with_sweep_view();
            }
            Ok(Box::new(match demo_opts {
                Some(d) => app.with_demo(d),
                None => app,
            }))
        }),
    );
    if let Err(e) = result {
        eprintln!("skylight-desktop: {e}");
        return ExitCode::FAILURE;
    }
    if demo && !success.load(Ordering::Relaxed) {
        eprintln!("skylight-desktop: the demo did not plot any result");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
