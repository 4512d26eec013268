//! Shared helpers for the integration tests: open the real adapter once per
//! test binary, and fail (never skip) when CI has none.

use skylight_core::gpu::clock::MIN_QUANTA;
use skylight_core::gpu::{Api, Capabilities, Gpu, Selector};

/// The adapter `SKYLIGHT_ADAPTER` picks (default: auto) on the backend
/// `SKYLIGHT_BACKEND` names (default: the primary ones), as the CLI reads them.
pub fn adapter_choice() -> (Selector, Option<Api>) {
    let sel = Selector::parse(&std::env::var("SKYLIGHT_ADAPTER").unwrap_or_default());
    let api = std::env::var("SKYLIGHT_BACKEND")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            b.parse()
                .unwrap_or_else(|e| panic!("SKYLIGHT_BACKEND: {e}"))
        });
    (sel, api)
}

/// Opens the adapter of [`adapter_choice`]. Panics with a clear message
/// when none exists, so a CI run without lavapipe fails.
pub fn gpu() -> Gpu {
    let (sel, api) = adapter_choice();
    match pollster::block_on(Gpu::open(&sel, api)) {
        Ok(g) => g,
        Err(e) => panic!(
            "no usable GPU adapter ({e}); the integration tests need one: install mesa-vulkan-drivers for lavapipe"
        ),
    }
}

/// The CI preset of each app: small sizes, short sweeps.
pub fn small(app: &str) -> Request {
    let r = Request::default().set("size", "small");
    match app {
        "peak" => r.set("iters", "64").set("intensity", "1,16"),
        "cache" => r.set("ws", "16k,1m"),
        // Every variant is covered by tests/tests/gpp.rs; here one order keeps lavapipe fast.
        "gpp" => r.set("inputs", "random").set("order", "nx"),
        "su3" => r.set("size", "4").set("wg", "32,64"),
        // Every kernel, layout and mapping; the launch shapes are in tests/tests/comd.rs.
        "comd" => r.set("steps", "2"),
        // Every variant, and 2J up to 14, are covered by tests/tests/snap.rs.
        "snap" => r.set("twojmax", "4"),
        _ => r,
    }
}

/// Every outcome passed or is a case that needs a feature the adapter of
/// `caps` lacks, and at least one case ran: a request that runs nothing
/// fails. Each ran with `opts`' samples, each sample spanning 50 quanta of
/// its timer.
pub fn assert_all_passed(outcomes: &[Outcome], opts: RunOptions, caps: &Capabilities) {
    let ran = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Done(_)))
        .count();
    assert!(ran > 0, "no case ran ({} outcomes)", outcomes.len());
    for o in outcomes {
        match o {
            Outcome::Done(r) => {
                assert!(
                    r.validation.passed,
                    "{}: {}",
                    r.case.label(),
                    r.validation.detail
                );
                assert!(r.stats.median > 0.0, "{}: zero time", r.case.label());
                assert_eq!(r.samples_s.len(), opts.samples as usize);
                assert_spans_fifty_quanta(r);
            }
            Outcome::Failed { case, error } => panic!("{}: {error}", case.label()),
            Outcome::Unsupported { case, reason } => {
                let lacks = reason
                    .strip_prefix("needs ")
                    .is_some_and(|f| !caps.feature_names().contains(&f));
                assert!(lacks, "{}: {reason}", case.label());
            }
        }
    }
}

/// `r`'s shortest sample spans [`MIN_QUANTA`] quanta of its timer's
/// resolution, which the record states.
pub fn assert_spans_fifty_quanta(r: &ResultRecord) {
    let resolution = r
        .timer_resolution_s
        .unwrap_or_else(|| panic!("{}: no timer resolution", r.case.label()));
    let span = r.stats.min * f64::from(r.runs_per_sample);
    assert!(
        span >= MIN_QUANTA * resolution,
        "{}: a sample of {} runs spans {span:e} s, under {MIN_QUANTA} quanta of {resolution:e} s",
        r.case.label(),
        r.runs_per_sample
    );
}

/// Borrowed views of owned readbacks, as [`skylight_core::app::Kernel`]'s
/// checks take them.
pub fn parts(out: &[Vec<u8>]) -> Vec<&[u8]> {
    out.iter().map(Vec::as_slice).collect()
}

use skylight_core::Precision;
use skylight_core::app::{App, Request};
use skylight_core::record::ResultRecord;
use skylight_core::runner::{Outcome, Platform, RunOptions, Runner};

/// Few runs per case: the integration tests check plumbing and validation, not speed.
pub const QUICK: RunOptions = RunOptions {
    warmup: 1,
    warmup_s: 0.0,
    samples: 2,
    budget_s: 0.0,
    runs_per_sample: 1,
};

/// One run per case and no warm-up: for tests that check what runs and how
/// it is labelled, not its timing.
pub const ONCE: RunOptions = RunOptions {
    warmup: 0,
    samples: 1,
    ..QUICK
};

/// Every precision the adapter runs.
pub fn precisions(gpu: &Gpu) -> Vec<Precision> {
    Precision::ALL
        .into_iter()
        .filter(|&p| gpu.require(p).is_ok())
        .collect()
}

/// Native f64 where the adapter has it, else df64.
pub fn double(gpu: &Gpu) -> Precision {
    if gpu.caps.f64 {
        Precision::F64
    } else {
        Precision::Df64
    }
}

/// Runs `req` of `app` with the [`QUICK`] options; an error when the
/// request cannot be planned.
pub fn try_run(gpu: &Gpu, app: &dyn App, req: &Request) -> skylight_core::Result<Vec<Outcome>> {
    try_run_with(gpu, app, req, QUICK)
}

/// Runs `req` of `app` with `opts` through the runner every front end uses;
/// an error when the request cannot be planned.
pub fn try_run_with(
    gpu: &Gpu,
    app: &dyn App,
    req: &Request,
    opts: RunOptions,
) -> skylight_core::Result<Vec<Outcome>> {
    let mut runner = Runner::new(Platform::Gpu(gpu), opts);
    pollster::block_on(runner.run(app, req, &mut |_| {}, &|| false))
}

/// Runs `req` of `app` with `opts`; panics when the request cannot be planned.
pub fn run(gpu: &Gpu, app: &dyn App, req: &Request, opts: RunOptions) -> Vec<Outcome> {
    try_run_with(gpu, app, req, opts).expect("run")
}

/// Runs `req` of `app` and asserts that exactly `expected_cases` cases ran
/// and every one validated; returns their records.
pub fn run_validated(
    gpu: &Gpu,
    app: &dyn App,
    req: &Request,
    expected_cases: usize,
) -> Vec<ResultRecord> {
    let out = run(gpu, app, req, QUICK);
    assert_eq!(out.len(), expected_cases);
    out.into_iter()
        .map(|o| match o {
            Outcome::Done(r) => {
                assert!(
                    r.validation.passed,
                    "{}: {}",
                    r.case.label(),
                    r.validation.detail
                );
                *r
            }
            other => panic!("{}: {other:?}", other.case().label()),
        })
        .collect()
}

/// A word of a README command as the shell expands it: `dir/*.json` (a
/// folder under `repo`) becomes its JSON files, sorted, as paths under
/// `repo`; any other word stays as it is. The README tests of the CLI and
/// the desktop run those commands, and the desktop's tests load committed
/// result folders through it.
pub fn json_glob(repo: &std::path::Path, word: &str) -> Vec<String> {
    let Some(dir) = word.strip_suffix("/*.json") else {
        return vec![word.to_string()];
    };
    let mut files: Vec<String> = std::fs::read_dir(repo.join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files
}

/// Runs lbm's `case` once on one rank, its own neighbour (no MPI), the
/// interior overlapping the halo swap or not; panics unless it validated
/// (the halos are NaN-poisoned, so every swap must land).
pub fn one_rank_lbm(gpu: &Gpu, case: &skylight_core::app::Case, overlap: bool) -> ResultRecord {
    use skylight_core::apps::lbm::dist;
    use skylight_core::scale::{Distributed, ScaleMode, SelfComm};
    let mode = ScaleMode {
        overlap,
        ..ScaleMode::default()
    };
    let d = dist::Split.decomposition(case, mode, 1).expect("split");
    let r = pollster::block_on(dist::Split.run(gpu, &SelfComm, case, &d, mode, ONCE))
        .expect("run")
        .expect("rank 0's record");
    assert!(
        r.validation.passed,
        "{} (overlap {overlap}): {}",
        case.label(),
        r.validation.detail
    );
    r
}
