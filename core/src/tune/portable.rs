//! Performance portability from tuning caches: for each app, kernel and
//! precision tuned on several platforms, Pennycook's PP of one portable
//! configuration (the one measured on every one of them whose PP is
//! highest; configurations match on the parameters both platforms' spaces
//! name) and of the defaults, against each platform's tuned best.
//!
//! The efficiency of a configuration on a platform is the platform's best
//! time for the unit over the configuration's (application efficiency
//! whose yardstick is the tuned best), so each platform's tuned best is
//! 100% by construction and PP of the tuned configurations is 100%: the
//! portable PP says how much of that one configuration everywhere keeps.
//! Times are the search's (one measurement each, as the cache holds
//! them), on each platform's own problem (the largest it tuned), except
//! where the guard re-measured a unit ([`super::confirm`]): the two
//! configurations it compared take its medians over interleaved rounds,
//! the tuned best is the one runs use (the candidate where it was faster,
//! else the defaults), and a search's single time below that best (its
//! luckiest measurement, which the re-measure did not bear out) counts as
//! 100%, never more.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Config;
use super::cache::{Choice, Entry, TuningCache};
use crate::portability::pp;
use crate::precision::Precision;
use crate::timing::Stats;

/// One app, kernel and precision over the platforms that tuned it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// App.
    pub app: String,
    /// Kernel.
    pub kernel: String,
    /// Arithmetic.
    pub precision: Precision,
    /// Index into [`Table::platforms`] of each platform that tuned it.
    pub platforms: Vec<usize>,
    /// The portable configuration, `name=value,...`.
    pub portable: String,
    /// Efficiency of the portable configuration on each of `platforms`.
    pub portable_eff: Vec<f64>,
    /// Efficiency of the app's defaults on each of `platforms`.
    pub defaults_eff: Vec<f64>,
    /// PP of the portable configuration over `platforms`.
    pub pp_portable: f64,
    /// PP of the defaults over `platforms`.
    pub pp_defaults: f64,
}

/// PP rows of tuning caches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Each platform: its adapter and backend.
    pub platforms: Vec<String>,
    /// Each app, kernel and precision tuned on two platforms or more.
    pub rows: Vec<Row>,
}

/// One platform's times of one unit: each validated configuration's
/// fastest time, the best and the defaults.
struct Times {
    by_config: Vec<(Config, f64)>,
    best: f64,
    defaults: Config,
}

impl Times {
    fn of(e: &Entry) -> Option<Times> {
        let mut by_config: Vec<(Config, f64)> = Vec::new();
        for t in e.trials.iter().filter(|t| t.passed) {
            let Some(s) = t.median_s.filter(|s| *s > 0.0) else {
                continue;
            };
            match by_config.iter_mut().find(|(c, _)| *c == t.config) {
                Some((_, v)) => *v = v.min(s),
                None => by_config.push((t.config.clone(), s)),
            }
        }
        let best = by_config.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
        let defaults = e.defaults.clone();
        let measured = by_config.iter().any(|(c, _)| *c == defaults);
        let mut times = Times {
            by_config,
            best,
            defaults,
        };
        match e.choice() {
            Choice::Best(b) if b.config != e.defaults => times.remeasured(e, true),
            Choice::Rejected(_) => times.remeasured(e, false),
            _ => {}
        }
        (times.best.is_finite() && measured).then_some(times)
    }

    /// Takes the re-measure of `e` (current, made of its best): its two
    /// medians replace the search's times of the candidate and the
    /// defaults, and the best becomes the candidate's (where `faster`) or
    /// the defaults' time.
    fn remeasured(&mut self, e: &Entry, faster: bool) {
        let Some(c) = e
            .confirm
            .as_ref()
            .filter(|c| c.tuned_s > 0.0 && c.defaults_s > 0.0)
        else {
            return;
        };
        for (config, s) in [(&c.config, c.tuned_s), (&e.defaults, c.defaults_s)] {
            match self.by_config.iter_mut().find(|(k, _)| k == config) {
                Some((_, v)) => *v = s,
                None => self.by_config.push((config.clone(), s)),
            }
        }
        self.best = if faster { c.tuned_s } else { c.defaults_s };
    }

    /// The platform's best over the time of `config`, matched on the
    /// parameters both name: a parameter one platform's space leaves out
    /// makes no difference to its unit there, so it may take any value
    /// (the fastest measured here counts).
    fn efficiency(&self, config: &Config) -> Option<f64> {
        let agrees = |c: &Config| c.iter().all(|(k, v)| config.get(k).is_none_or(|w| w == v));
        self.by_config
            .iter()
            .filter(|(c, _)| agrees(c))
            .map(|(_, t)| (self.best / t).min(1.0))
            .max_by(f64::total_cmp)
    }
}

/// `config` as a label: `name=value`, comma-separated, in name order.
fn label(config: &Config) -> String {
    let pairs: Vec<String> = config.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.join(",")
}

type Key = (String, String, Precision);

/// The PP rows of `caches` (entries grouped by adapter and backend, across
/// files and driver versions; per platform and app, kernel and precision,
/// the entry whose defaults took longest: its largest problem).
pub fn table(caches: &[TuningCache]) -> Table {
    let mut platforms: Vec<String> = Vec::new();
    // Key -> platform -> (defaults' time, times).
    let mut units: BTreeMap<Key, BTreeMap<usize, (f64, Times)>> = BTreeMap::new();
    for e in caches.iter().flat_map(|c| &c.entries) {
        let label = format!("{} ({})", e.device.adapter, e.device.backend);
        let p = match platforms.iter().position(|x| *x == label) {
            Some(p) => p,
            None => {
                platforms.push(label);
                platforms.len() - 1
            }
        };
        let Some(times) = Times::of(e) else {
            continue;
        };
        // The defaults' time: the problem's size as this platform runs it.
        let size = times.best / times.efficiency(&times.defaults).unwrap_or(1.0);
        let key = (e.unit.app.clone(), e.unit.kernel.clone(), e.unit.precision);
        let slot = units.entry(key).or_default();
        if slot.get(&p).is_none_or(|(s, _)| *s < size) {
            slot.insert(p, (size, times));
        }
    }
    let rows = units
        .into_iter()
        .filter(|(_, on)| on.len() >= 2)
        .filter_map(|((app, kernel, precision), on)| {
            let (idx, times): (Vec<usize>, Vec<Times>) =
                on.into_iter().map(|(p, (_, t))| (p, t)).unzip();
            let effs = |c: &Config| -> Vec<Option<f64>> {
                times.iter().map(|t| t.efficiency(c)).collect()
            };
            // Candidates: the configurations every platform measured.
            let (portable, pp_portable) = times[0]
                .by_config
                .iter()
                .map(|(c, _)| c)
                .filter(|c| effs(c).iter().all(Option::is_some))
                .map(|c| (c.clone(), pp(&effs(c))))
                .max_by(|a, b| a.1.total_cmp(&b.1).then(label(&b.0).cmp(&label(&a.0))))?;
            let defaults_eff: Vec<f64> = times
                .iter()
                .map(|t| t.efficiency(&t.defaults).unwrap_or(0.0))
                .collect();
            let pp_defaults = pp(&defaults_eff.iter().map(|e| Some(*e)).collect::<Vec<_>>());
            Some(Row {
                app,
                kernel,
                precision,
                platforms: idx,
                portable_eff: effs(&portable).into_iter().flatten().collect(),
                portable: label(&portable),
                defaults_eff,
                pp_portable,
                pp_defaults,
            })
        })
        .collect();
    Table { platforms, rows }
}

/// Per app: (app, rows, platforms that tuned it, median PP of the
/// defaults, median PP of the portable configuration, its lowest row).
pub fn by_app(t: &Table) -> Vec<(String, usize, usize, f64, f64, String)> {
    let mut apps: Vec<String> = t.rows.iter().map(|r| r.app.clone()).collect();
    apps.dedup();
    apps.into_iter()
        .map(|app| {
            let rows: Vec<&Row> = t.rows.iter().filter(|r| r.app == app).collect();
            let median = |f: &dyn Fn(&Row) -> f64| {
                Stats::of(&rows.iter().map(|r| f(r)).collect::<Vec<_>>()).median
            };
            let mut on: Vec<usize> = rows.iter().flat_map(|r| r.platforms.clone()).collect();
            on.sort();
            on.dedup();
            let worst = rows
                .iter()
                .min_by(|a, b| a.pp_portable.total_cmp(&b.pp_portable))
                .map(|r| {
                    format!(
                        "{} {} {:.0}% ({})",
                        r.kernel,
                        r.precision,
                        100.0 * r.pp_portable,
                        r.portable
                    )
                })
                .unwrap_or_default();
            (
                app,
                rows.len(),
                on.len(),
                median(&|r| r.pp_defaults),
                median(&|r| r.pp_portable),
                worst,
            )
        })
        .collect()
}

/// The per-app table of [`by_app`] as Markdown, with its platforms.
pub fn markdown(t: &Table) -> String {
    let mut md = String::from(
        "| app | kernels x precisions | platforms | PP defaults | PP portable | lowest portable row |\n|---|---:|---:|---:|---:|---|\n",
    );
    for (app, rows, on, d, p, worst) in by_app(t) {
        let _ = writeln!(
            md,
            "| {app} | {rows} | {on} | {:.0}% | {:.0}% | {worst} |",
            100.0 * d,
            100.0 * p
        );
    }
    md
}
