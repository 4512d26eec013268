//! Stopping a run cleanly on SIGINT or SIGTERM (Ctrl-C, a batch system's
//! time limit): the first signal lets the case in flight finish, after which
//! the run writes its result file and says how many cases were left; a
//! second exits at once, leaving the file as the last finished case wrote
//! it (it is replaced whole after each case, so it is always readable).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

/// The exit status of a stopped run (128 + SIGINT, as shells report Ctrl-C).
pub const STOPPED_STATUS: u8 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Held while a result file is replaced, so that a second signal exits
/// between writes, never leaving a temporary file behind.
pub static WRITING: Mutex<()> = Mutex::new(());

/// Handles SIGINT and SIGTERM (Ctrl-C and Ctrl-Break on Windows) from now
/// on: the first asks the run to stop after its case in flight, the second
/// ends any isolated case's process and exits.
pub fn install() -> Result<()> {
    ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            let _writing = WRITING.lock();
            crate::isolate::kill_in_flight();
            eprintln!("second signal: exiting now; the result file holds every case finished");
            std::process::exit(i32::from(STOPPED_STATUS));
        }
        eprintln!("signal: stopping after the case in flight (signal again to exit now)");
    })
    .context("installing the SIGINT/SIGTERM handler")
}

/// Whether a signal has asked the run to stop.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The error a stopped run ends with, once it has written what it
/// finished and said how many cases were left: `main` exits with
/// [`STOPPED_STATUS`].
#[derive(Debug)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped by a signal")
    }
}

impl std::error::Error for Stopped {}
