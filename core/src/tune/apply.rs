//! A run in the tuning cache's best configurations: [`Tuned`] is the
//! runner's [`Configure`] for one adapter.

use crate::app::{App, Case, Request};
use crate::error::Result;
use crate::gpu::{Capabilities, PlatformInfo};
use crate::record::Tuning;
use crate::runner::Configure;

use super::cache::{Choice, DeviceKey, Entry, Trial, TuningCache};
use super::{Unit, space};

/// The entries of a tuning cache that a run on one adapter may use.
#[derive(Clone, Debug, Default)]
pub struct Tuned {
    /// Each usable entry, and the driver it was measured with where that
    /// is not the run's.
    entries: Vec<(Entry, Option<String>)>,
}

impl Tuned {
    /// The entries of `cache` for the adapter `info` describes: those
    /// measured with its driver, else (with a warning, returned) those of
    /// the same adapter under another driver version; never another
    /// adapter's.
    pub fn new(cache: &TuningCache, info: &PlatformInfo) -> (Tuned, Option<String>) {
        let here = DeviceKey::of(info);
        let mut entries: Vec<(Entry, Option<String>)> = Vec::new();
        let mut others = Vec::new();
        for e in cache.entries.iter().filter(|e| e.device.same_device(&here)) {
            if e.device.same(&here) {
                entries.retain(|(o, _)| o.unit != e.unit);
                entries.push((e.clone(), None));
            } else if !entries.iter().any(|(o, _)| o.unit == e.unit) {
                let driver = e.device.driver_label();
                if !others.contains(&driver) {
                    others.push(driver.clone());
                }
                entries.push((e.clone(), Some(driver)));
            }
        }
        let warning = entries.iter().any(|(_, d)| d.is_some()).then(|| {
            format!(
                "tuning cache entries measured with another driver ({}; this is {}) are used: tune again to measure this one",
                others.join(", "),
                here.driver_label()
            )
        });
        (Tuned { entries }, warning)
    }

    /// How many units run a configuration from the cache (confirmed, or
    /// never re-measured).
    pub fn len(&self) -> usize {
        self.entries
            .iter()
            .filter(|(e, _)| matches!(e.choice(), Choice::Best(_) | Choice::Unconfirmed(_)))
            .count()
    }

    /// Whether no unit runs a configuration from the cache.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The units whose best was re-measured and not faster than the
    /// defaults beyond the noise (they run the defaults), with the
    /// re-measure's summary.
    pub fn rejected(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter_map(|(e, _)| match e.choice() {
                Choice::Rejected(c) => Some(format!("{}: {}", e.unit.label(), c.summary())),
                _ => None,
            })
            .collect()
    }

    /// How many units run a best that was never re-measured against the
    /// defaults (a cache written before the guard).
    pub fn unconfirmed(&self) -> usize {
        self.entries
            .iter()
            .filter(|(e, _)| matches!(e.choice(), Choice::Unconfirmed(_)))
            .count()
    }

    /// The configuration a run of `unit` takes from the cache, and its
    /// label; `None` where it runs the defaults.
    fn best(&self, unit: &Unit) -> Option<(&Trial, String)> {
        let (e, driver) = self.entries.iter().find(|(e, _)| e.unit == *unit)?;
        let (best, note) = match e.choice() {
            Choice::Best(b) => (b, ""),
            Choice::Unconfirmed(b) => (b, ", unconfirmed"),
            Choice::Nothing | Choice::Rejected(_) => return None,
        };
        let label = match driver {
            None if note.is_empty() => unit.label(),
            None => format!("{} ({})", unit.label(), &note[2..]),
            Some(d) => format!("{} (measured with {d}{note})", unit.label()),
        };
        Some((best, label))
    }
}

/// The tunable parameter of `app` that `req` sets, if any: a run that sets
/// one keeps its own configuration.
pub fn sets_tunable(app: &dyn App, req: &Request) -> Option<String> {
    req.params
        .keys()
        .find(|k| space::is_tunable(app, k))
        .cloned()
}

impl Configure for Tuned {
    /// Each unit's cases in its best configuration where the cache has
    /// one (and it still makes cases here), else as planned; a request
    /// that sets a tunable parameter runs as planned throughout.
    fn configure(
        &self,
        app: &dyn App,
        req: &Request,
        caps: &Capabilities,
        cases: Vec<Case>,
    ) -> Result<Vec<(Case, Tuning)>> {
        if self.is_empty() || sets_tunable(app, req).is_some() {
            return Ok(cases.into_iter().map(|c| (c, Tuning::Defaults)).collect());
        }
        let mut units: Vec<Unit> = Vec::new();
        let mut out = Vec::with_capacity(cases.len());
        for case in &cases {
            let unit = Unit::of(app, case);
            if units.contains(&unit) {
                continue;
            }
            let tuned = self.best(&unit).and_then(|(best, label)| {
                let made = space::cases(app, req, &unit, &best.config, caps).ok()?;
                (!made.is_empty()).then_some((made, label))
            });
            match tuned {
                Some((made, label)) => {
                    out.extend(made.into_iter().map(|c| (c, Tuning::Tuned(label.clone()))));
                }
                None => out.extend(
                    cases
                        .iter()
                        .filter(|c| unit.holds(app, c))
                        .map(|c| (c.clone(), Tuning::Defaults)),
                ),
            }
            units.push(unit);
        }
        Ok(out)
    }
}
