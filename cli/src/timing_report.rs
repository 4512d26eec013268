//! `--timing-report`: where a run's wall time went, per app, so the time
//! to a result can be measured and kept small (issue: time to result).

use std::time::Duration;

use skylight_core::runner::Outcome;
use skylight_core::timing::{Phases, Stats};

/// One app's share of a run.
pub struct AppTime<'a> {
    /// The app.
    pub app: &'a str,
    /// Wall time of the app's request, from planning to its last record.
    pub wall: Duration,
    /// Its outcomes.
    pub outcomes: &'a [Outcome],
}

/// Median of `v` (0 for none).
fn median(v: Vec<f64>) -> f64 {
    Stats::of(&v).median
}

/// The report's lines: per app its cases, wall time, the time in timed
/// samples, and the median per-case overhead split by phase.
pub fn lines(apps: &[AppTime<'_>]) -> Vec<String> {
    let mut out = vec![format!(
        "{:<8} {:>5} {:>9} {:>9} | median per case, s: {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "app",
        "cases",
        "wall s",
        "timed s",
        "overhead",
        "prepare",
        "compile",
        "validate",
        "warm-up",
        "timing"
    )];
    let mut total = Duration::ZERO;
    for a in apps {
        total += a.wall;
        let done: Vec<(&Phases, &[f64])> = a
            .outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Done(r) => r.phases.as_ref().map(|p| (p, r.samples_s.as_slice())),
                _ => None,
            })
            .collect();
        let pick = |f: fn(&Phases) -> f64| median(done.iter().map(|(p, _)| f(p)).collect());
        let timed: f64 = done.iter().map(|(_, s)| s.iter().sum::<f64>()).sum();
        out.push(format!(
            "{:<8} {:>5} {:>9.2} {:>9.3} | {:>27.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            a.app,
            done.len(),
            a.wall.as_secs_f64(),
            timed,
            median(done.iter().map(|(p, s)| p.overhead_s(s)).collect()),
            pick(|p| p.prepare_s),
            pick(|p| p.compile_s),
            pick(|p| p.validate_s),
            pick(|p| p.warmup_s),
            pick(|p| p.timed_s),
        ));
    }
    out.push(format!("total wall {:.2} s", total.as_secs_f64()));
    out
}
