//! The worker's side of tuning ([`skylight_core::tune`]): the Tune action's
//! job, and the cache's best configurations for a run. The cache is the
//! CLI's file natively (`SKYLIGHT_TUNING`, else the user's cache folder)
//! and the browser's local storage in a page.

use std::sync::atomic::{AtomicBool, Ordering};

use skylight_core::app::Request;
use skylight_core::device::Gpu;
use skylight_core::registry;
use skylight_core::runner::RunOptions;
use skylight_core::tune::apply::Tuned;
use skylight_core::tune::cache::{Entry, TuningCache};
use skylight_core::tune::session::{self, Event, Job, TuneOptions};
use skylight_core::tune::space;

use crate::worker::Msg;

/// Where the cache is kept, for messages.
#[cfg(not(target_arch = "wasm32"))]
fn place() -> Result<std::path::PathBuf, String> {
    std::env::var_os("SKYLIGHT_TUNING")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(skylight_core::tune::cache::default_path)
        .ok_or_else(|| "no cache folder (HOME is not set)".to_string())
}

/// The tuning cache: empty where there is none yet, an error (naming
/// where it is) where what is there is not a cache.
#[cfg(not(target_arch = "wasm32"))]
pub fn load() -> Result<TuningCache, String> {
    TuningCache::load(&place()?).map_err(|e| e.to_string())
}

/// Writes the tuning cache.
#[cfg(not(target_arch = "wasm32"))]
pub fn save(cache: &TuningCache) -> Result<(), String> {
    let path = place()?;
    cache
        .save(&path)
        .map_err(|e| format!("cannot write the tuning cache {}: {e}", path.display()))
}

/// The key of the cache in the page's local storage.
#[cfg(target_arch = "wasm32")]
const KEY: &str = "skylight-tuning";

#[cfg(target_arch = "wasm32")]
fn storage() -> Result<web_sys::Storage, String> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .ok_or_else(|| "the browser offers no local storage".to_string())
}

/// The tuning cache in the page's local storage (empty where there is none).
#[cfg(target_arch = "wasm32")]
pub fn load() -> Result<TuningCache, String> {
    match storage()?.get_item(KEY) {
        Ok(Some(text)) => TuningCache::from_json(&text, "local storage `skylight-tuning`")
            .map_err(|e| e.to_string()),
        _ => Ok(TuningCache::new()),
    }
}

/// Writes the tuning cache to the page's local storage.
#[cfg(target_arch = "wasm32")]
pub fn save(cache: &TuningCache) -> Result<(), String> {
    storage()?
        .set_item(KEY, &cache.to_json())
        .map_err(|e| format!("cannot keep the tuning cache in local storage: {e:?}"))
}

/// The cache's best configurations for `gpu`'s adapter, said through
/// `send`; `None` where it has none (or cannot be read: said too).
pub fn tuned_for(gpu: &Gpu, send: &dyn Fn(Msg)) -> Option<Tuned> {
    let cache = match load() {
        Ok(c) => c,
        Err(e) => {
            send(Msg::Error(format!("tuning cache ignored: {e}")));
            return None;
        }
    };
    let (tuned, warning) = Tuned::new(&cache, &gpu.info);
    if let Some(w) = warning {
        send(Msg::Info(w));
    }
    let rejected = tuned.rejected();
    if !rejected.is_empty() {
        send(Msg::Info(format!(
            "defaults for {} unit(s) whose tuned best was not faster than the defaults when re-measured: {}",
            rejected.len(),
            rejected.join("; ")
        )));
    }
    if tuned.unconfirmed() > 0 {
        send(Msg::Info(format!(
            "{} unit(s) run a tuned best never re-measured against the defaults (rows say `unconfirmed`): Tune again re-measures them",
            tuned.unconfirmed()
        )));
    }
    if tuned.is_empty() {
        return None;
    }
    send(Msg::Info(format!(
        "tuned: the best configurations of {} kernel(s) and problem(s) from the tuning cache (a tunable parameter left at its default is taken from it)",
        tuned.len()
    )));
    Some(tuned)
}

/// Tunes the apps of `runs` (their problems and precisions; the forms'
/// values of tunable parameters are what is searched, so they are left
/// out) for `budget_s` seconds, saving the cache after every trial.
pub async fn tune(
    gpu: &Gpu,
    runs: &[(String, Request)],
    budget_s: f64,
    opts: RunOptions,
    send: &dyn Fn(Msg),
    stop: &AtomicBool,
) {
    let mut jobs = Vec::new();
    for (name, req) in runs {
        let Ok(app) = registry::find(name) else {
            continue;
        };
        if app.tunable().is_empty() {
            send(Msg::Info(format!("{name}: nothing to tune")));
            continue;
        }
        let mut base = req.clone();
        base.params.retain(|k, _| !space::is_tunable(app, k));
        match space::declared(app, &[]) {
            Ok(axes) => jobs.push(Job { app, base, axes }),
            Err(e) => send(Msg::Error(format!("{name}: {e}"))),
        }
    }
    let mut cache = load().unwrap_or_else(|e| {
        send(Msg::Error(format!(
            "tuning cache ignored ({e}): a new one replaces it"
        )));
        TuningCache::new()
    });
    let mut progress = |e: Event<'_>| match e {
        Event::Unreached(unit) => send(Msg::Info(format!(
            "{}: not reached, the budget was spent",
            unit.label()
        ))),
        Event::Unit {
            unit, index, total, ..
        } => send(Msg::Tuning {
            label: unit.label(),
            index,
            total,
        }),
        Event::Trial { cache, .. } | Event::Confirmed { cache, .. } => {
            if let Err(e) = save(cache) {
                send(Msg::Error(e));
            }
        }
        Event::Done(entry) => send(Msg::Info(done(entry))),
    };
    let halt = || stop.load(Ordering::Relaxed);
    let opts = TuneOptions {
        budget_s,
        run: opts,
    };
    if let Err(e) = session::tune(gpu, &jobs, &mut cache, &opts, &mut progress, &halt).await {
        send(Msg::Error(format!("tune: {e}")));
    }
}

/// A unit's outcome: what runs will use, and the re-measure's verdict.
fn done(entry: &Entry) -> String {
    format!(
        "tuned {}: {} ({} of {} configurations)",
        entry.unit.label(),
        entry.outcome(),
        entry.trials.len(),
        entry.space
    )
}
