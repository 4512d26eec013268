//! Tuning: each app's fastest configuration on the device in use, found by
//! measurement and remembered.
//!
//! An app declares the parameters that change how fast a kernel runs but
//! never what it computes ([`App::tunable`]: layouts, vector lengths,
//! workgroup sizes, mappings, ...), each with the values to try. A *unit*
//! ([`Unit`]) is one kernel of one app in one precision on one problem;
//! its *space* ([`space`]) is the product of those values, less the
//! parameters that make no difference to it. [`session::tune`] searches
//! each unit's space on a [`Gpu`](crate::gpu::Gpu) ([`search`]: every
//! point where the space is small, else a seeded local search), running
//! every candidate as a run would (validate, warm up, time) and recording
//! it in a [`cache::TuningCache`] as it goes, so a stopped tune resumes.
//! After a unit's search its best is re-timed against the defaults,
//! interleaved, and kept only when faster beyond the noise ([`confirm`]).
//! A run then takes each unit's best from the cache for its adapter
//! ([`apply::Tuned`], the runner's [`Configure`](crate::runner::Configure)).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::app::{App, Case};
use crate::precision::Precision;

pub mod apply;
pub mod cache;
pub mod confirm;
pub mod portable;
pub mod search;
pub mod session;
pub mod space;

/// A configuration: a value for each tunable parameter, by the name a
/// request gives it (`layout`, `wg`, ...).
pub type Config = BTreeMap<String, String>;

/// One thing tuned: an app's kernel in one precision on one problem (the
/// case parameters the app names in [`App::problem`], as cases record
/// them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// App.
    pub app: String,
    /// Kernel.
    pub kernel: String,
    /// Arithmetic.
    pub precision: Precision,
    /// The problem's parameters, e.g. `L = 4, T = 8`.
    pub problem: BTreeMap<String, String>,
}

impl Unit {
    /// The unit `case` belongs to.
    pub fn of(app: &dyn App, case: &Case) -> Unit {
        let problem = app
            .problem()
            .iter()
            .filter_map(|&k| case.params.get(k).map(|v| (k.to_string(), v.clone())))
            .collect();
        Unit {
            app: case.app.clone(),
            kernel: case.kernel.clone(),
            precision: case.precision,
            problem,
        }
    }

    /// Whether `case` belongs to this unit.
    pub fn holds(&self, app: &dyn App, case: &Case) -> bool {
        Unit::of(app, case) == *self
    }

    /// One-line label, e.g. `milc/cg f32 L=4 T=8`.
    pub fn label(&self) -> String {
        let mut s = format!("{}/{} {}", self.app, self.kernel, self.precision);
        for (k, v) in &self.problem {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

#[cfg(test)]
mod tests;
