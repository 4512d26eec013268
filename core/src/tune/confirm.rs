//! The guard against noisy winners: after a unit's search, its best and
//! the app's defaults are timed again in turn (defaults, best, best,
//! defaults, ... in one process, on one state of the machine), and the
//! best is kept only when it is faster beyond the noise those rounds show
//! ([`judge`]). A search picks the fastest of many single noisy
//! measurements, so its winner's time is biased low (on lavapipe, picks
//! that never met this guard ran at 0.80-0.88x of the defaults); timing
//! the two side by side removes that bias and the machine's drift.

use serde::{Deserialize, Serialize};

use super::Config;
use crate::timing::Stats;

/// Rounds of the re-measure: each times the defaults and the candidate
/// once. Five make the rule's bound about 1.1 times the spread of one
/// round ([`judge`]) while costing ten short timings.
pub const ROUNDS: usize = 5;

/// The smallest noise bound: a candidate must be at least this much
/// faster (relative), whatever the rounds' spread. Timings a few percent
/// apart in one process move by as much between processes (clocks,
/// placement in memory), so a smaller gain is not worth a configuration
/// that is not the defaults.
pub const FLOOR: f64 = 0.03;

/// What the re-measure concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The candidate is faster beyond the noise: runs use it.
    Faster,
    /// Not faster beyond the noise: runs use the defaults.
    NotFaster,
    /// One of the two could not be re-measured (did not build or validate
    /// again): runs use the defaults.
    Failed,
}

/// The re-measure of a unit's best against its defaults, as the cache
/// records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The candidate re-measured (the entry's best when it was made; a
    /// later search that finds another best makes it stale).
    pub config: Config,
    /// Rounds timed.
    pub rounds: usize,
    /// Median over the rounds of the defaults' median time, seconds.
    pub defaults_s: f64,
    /// Median over the rounds of the candidate's median time, seconds.
    pub tuned_s: f64,
    /// Median of the per-round ratios, candidate over defaults (<1: faster).
    pub ratio: f64,
    /// The noise bound of [`judge`]: faster means `ratio < 1 - bound`.
    pub bound: f64,
    /// The conclusion.
    pub verdict: Verdict,
    /// Why it failed, where it did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Confirmation {
    /// A re-measure that could not be made.
    pub fn failed(config: Config, detail: String) -> Confirmation {
        Confirmation {
            config,
            rounds: 0,
            defaults_s: 0.0,
            tuned_s: 0.0,
            ratio: f64::NAN,
            bound: FLOOR,
            verdict: Verdict::Failed,
            detail,
        }
    }

    /// The conclusion of `rounds` (each the defaults' median time and the
    /// candidate's, seconds) about `config`.
    pub fn of(config: Config, rounds: &[(f64, f64)]) -> Confirmation {
        let ratios: Vec<f64> = rounds.iter().map(|(d, t)| t / d).collect();
        let check = judge(&ratios);
        let median = |v: Vec<f64>| match v.is_empty() {
            true => 0.0,
            false => Stats::of(&v).median,
        };
        Confirmation {
            config,
            rounds: rounds.len(),
            defaults_s: median(rounds.iter().map(|r| r.0).collect()),
            tuned_s: median(rounds.iter().map(|r| r.1).collect()),
            ratio: check.ratio,
            bound: check.bound,
            verdict: match check.faster {
                true => Verdict::Faster,
                false => Verdict::NotFaster,
            },
            detail: String::new(),
        }
    }

    /// How much faster the candidate ran than the defaults (the inverse of
    /// the median ratio), where measured.
    pub fn gain(&self) -> Option<f64> {
        (self.ratio.is_finite() && self.ratio > 0.0).then(|| 1.0 / self.ratio)
    }

    /// One line: `1.32x faster (5 rounds, bound 3%)`, `not faster (0.98x,
    /// bound 6%)`, `failed: why`.
    pub fn summary(&self) -> String {
        let gain = self.gain().map_or("-".to_string(), |g| format!("{g:.2}x"));
        match self.verdict {
            Verdict::Faster => format!(
                "confirmed {gain} ({} rounds, bound {:.0}%)",
                self.rounds,
                100.0 * self.bound
            ),
            Verdict::NotFaster => format!(
                "not confirmed: {gain} ({} rounds, bound {:.0}%)",
                self.rounds,
                100.0 * self.bound
            ),
            Verdict::Failed => format!("not confirmed: {}", self.detail),
        }
    }
}

/// What [`judge`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// Median of the per-round ratios (candidate over defaults).
    pub ratio: f64,
    /// The noise bound.
    pub bound: f64,
    /// Whether `ratio < 1 - bound`.
    pub faster: bool,
}

/// The rule: given per-round ratios `r` (candidate's time over the
/// defaults', each round timing both), the candidate is faster when the
/// median ratio m < 1 - b, with the noise bound
/// b = max([`FLOOR`], 2 x 1.2533 x s / sqrt(n)), where s = 1.4826 x
/// median |r - m| (the rounds' spread, a standard deviation's robust
/// estimate) and 1.2533 s / sqrt(n) the standard error of a median of n:
/// the candidate must win by two standard errors of the median, and by
/// the floor. No round, or a ratio that is not a finite positive number,
/// is never faster.
pub fn judge(ratios: &[f64]) -> Check {
    let bad = ratios.is_empty() || ratios.iter().any(|r| !r.is_finite() || *r <= 0.0);
    if bad {
        return Check {
            ratio: f64::NAN,
            bound: FLOOR,
            faster: false,
        };
    }
    let m = Stats::of(ratios).median;
    let deviations: Vec<f64> = ratios.iter().map(|r| (r - m).abs()).collect();
    let s = 1.4826 * Stats::of(&deviations).median;
    let n = ratios.len() as f64;
    let bound = FLOOR.max(2.0 * 1.2533 * s / n.sqrt());
    Check {
        ratio: m,
        bound,
        faster: m < 1.0 - bound,
    }
}
