//! What a timer resolves, and how many back-to-back runs a sample needs for
//! its clock. GPU timestamps resolve the queue's timestamp period, or
//! coarser where the values come rounded: Chromium rounds WebGPU's to
//! 100 us unless its developer features are on, longer than many kernels.
//! The host clock around a run resolves its own tick (browsers coarsen
//! `performance.now()` too) and, since a sample ends only when the GPU's
//! completion reaches the host, no less than an empty submission's round
//! trip. A sample spanning [`MIN_QUANTA`] of its timer's resolution then
//! measures the kernel rather than the rounding.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use web_time::Instant;

/// The fewest quanta of its timer's resolution one timed sample spans
/// (rounding then moves a sample by 2% at most).
pub const MIN_QUANTA: f64 = 50.0;

/// The most back-to-back runs one sample spans, however coarse the clock.
pub const MAX_RUNS: u32 = 10_000;

/// Back-to-back runs a sample needs, at least `floor`, so that runs of
/// `run_s` seconds each span [`MIN_QUANTA`] quanta of `resolution_s`.
pub fn runs_for(floor: u32, resolution_s: f64, run_s: f64) -> u32 {
    let floor = floor.clamp(1, MAX_RUNS);
    if resolution_s.is_nan() || resolution_s <= 0.0 {
        return floor;
    }
    let need = if run_s > 0.0 {
        (MIN_QUANTA * resolution_s / run_s).ceil()
    } else {
        f64::from(MAX_RUNS)
    };
    (need.min(f64::from(MAX_RUNS)) as u32).max(floor)
}

/// Runs a sample needs after samples of `runs` runs spanned `shortest_s`
/// at the shortest, short of [`MIN_QUANTA`] quanta of `resolution_s`: the
/// shortfall, and a quarter more, since a span rounded down to few quanta
/// says little of the runs' length; at least twice as many.
pub fn more_runs(runs: u32, resolution_s: f64, shortest_s: f64) -> u32 {
    let need = MIN_QUANTA * resolution_s;
    let factor = 1.25 * need / shortest_s.max(resolution_s).max(f64::MIN_POSITIVE);
    let grown = (f64::from(runs) * factor.max(2.0)).ceil();
    grown.min(f64::from(MAX_RUNS)) as u32
}

/// The quantum of a timer's ticks over intervals: the greatest common
/// divisor of their distances from the first, where rounding leaves every
/// value on a multiple of it. `None` from fewer than two intervals (one
/// interval's only distance is its length) or while every tick is the same.
pub fn quantum(ticks: &[[u64; 2]]) -> Option<u64> {
    if ticks.len() < 2 {
        return None;
    }
    let mut values = ticks.iter().flatten();
    let first = *values.next()?;
    let q = values.fold(0, |q, &v| gcd(q, v.abs_diff(first)));
    (q > 0).then_some(q)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The smallest step of the host clock: the shortest of a few waits for
/// it to move (microseconds at most in a browser that coarsens it, so the
/// wait never holds a page up for long).
pub fn host_tick_s() -> f64 {
    (0..8)
        .map(|_| {
            let t0 = Instant::now();
            loop {
                let d = t0.elapsed();
                if !d.is_zero() {
                    break d.as_secs_f64();
                }
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// The resolutions one device's timers have shown so far.
#[derive(Debug, Default)]
pub struct Clock {
    /// The host timing's resolution, once measured.
    host_s: Mutex<Option<f64>>,
    /// The finest timestamp quantum measured, in ticks (0: none yet).
    ticks: AtomicU64,
}

impl Clock {
    /// The timestamp resolution, seconds, for a timestamp period of
    /// `period_s`: the finest quantum measured so far, else the period.
    pub fn timestamp_s(&self, period_s: f64) -> f64 {
        let ticks = self.ticks.load(Ordering::Relaxed).max(1);
        ticks as f64 * period_s
    }

    /// Takes in a quantum of `ticks` measured on timed samples: the finest
    /// seen is the clock's (a few values may share a coarser divisor by
    /// chance; never a finer one).
    pub fn saw_ticks(&self, ticks: u64) {
        if ticks > 0 {
            let _ = self
                .ticks
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                    (t == 0 || ticks < t).then_some(ticks)
                });
        }
    }

    /// The host timing's resolution, if measured.
    pub fn host_s(&self) -> Option<f64> {
        self.host_s.lock().ok().and_then(|h| *h)
    }

    /// Keeps the host timing's resolution.
    pub fn set_host_s(&self, s: f64) {
        if let Ok(mut h) = self.host_s.lock() {
            *h = Some(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs per sample: enough for 50 quanta, never fewer than asked, and
    /// capped; one run where the clock is fine.
    #[test]
    fn a_sample_spans_fifty_quanta() {
        // A 65 us kernel against Chromium's 100 us rounding.
        assert_eq!(runs_for(1, 100e-6, 65e-6), 77);
        // The same kernel under 1 ns timestamps.
        assert_eq!(runs_for(1, 1e-9, 65e-6), 1);
        assert_eq!(runs_for(10, 1e-9, 65e-6), 10);
        assert_eq!(runs_for(1, 100e-6, 1e-9), MAX_RUNS);
        assert_eq!(runs_for(1, 100e-6, 0.0), MAX_RUNS);
        assert_eq!(runs_for(0, 0.0, 1e-3), 1);
    }

    /// After samples short of 50 quanta: the shortfall and a quarter more,
    /// at least double, from a span of zero too.
    #[test]
    fn short_samples_take_more_runs() {
        assert_eq!(more_runs(10, 100e-6, 2.5e-3), 25);
        assert_eq!(more_runs(10, 100e-6, 4.9e-3), 20);
        assert_eq!(more_runs(1, 100e-6, 0.0), 63);
        assert_eq!(more_runs(MAX_RUNS / 2, 1.0, 0.0), MAX_RUNS);
    }

    /// Values rounded to 100 us (in ns ticks) give that quantum, whatever
    /// their offset; fine ticks give one; equal ticks, or one interval,
    /// none.
    #[test]
    fn the_quantum_is_the_ticks_common_divisor() {
        let rounded = [
            [1_700_000, 1_900_000],
            [2_000_000, 2_100_000],
            [2_300_000, 2_300_000],
        ];
        assert_eq!(quantum(&rounded), Some(100_000));
        let offset = rounded.map(|[a, b]| [a + 7, b + 7]);
        assert_eq!(quantum(&offset), Some(100_000));
        assert_eq!(
            quantum(&[[1_000_003, 1_065_212], [1_070_001, 1_135_118]]),
            Some(1)
        );
        assert_eq!(quantum(&[[5, 5], [5, 5]]), None);
        assert_eq!(quantum(&[[1_000_003, 1_065_212]]), None);
        assert_eq!(quantum(&[]), None);
    }

    /// The finest quantum seen is kept; the period stands in before any.
    #[test]
    fn the_finest_quantum_is_kept() {
        let c = Clock::default();
        assert_eq!(c.timestamp_s(1e-9), 1e-9);
        c.saw_ticks(200_000);
        c.saw_ticks(0);
        assert!((c.timestamp_s(1e-9) - 200e-6).abs() < 1e-12);
        c.saw_ticks(100_000);
        c.saw_ticks(300_000);
        assert!((c.timestamp_s(1e-9) - 100e-6).abs() < 1e-12);
    }

    #[test]
    fn the_host_clock_moves() {
        let t = host_tick_s();
        assert!(t > 0.0 && t < 1e-2, "{t}");
    }
}
