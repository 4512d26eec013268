//! Timing methods and sample statistics.

use serde::{Deserialize, Serialize};

/// How a run's samples were timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimingMethod {
    /// GPU timestamp queries written in the command encoder around each run.
    GpuTimestampsEncoder,
    /// GPU timestamp queries at the first and last compute pass of each run.
    GpuTimestampsPasses,
    /// Host clock around submit and completion (no timestamp queries).
    WallClock,
    /// Host clock around a CPU reference run.
    CpuClock,
    /// The native baseline code's own timer (its record says which).
    Native,
}

impl TimingMethod {
    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            TimingMethod::GpuTimestampsEncoder => "gpu-ts",
            TimingMethod::GpuTimestampsPasses => "gpu-ts-pass",
            TimingMethod::WallClock => "wall",
            TimingMethod::CpuClock => "cpu",
            TimingMethod::Native => "native",
        }
    }
}

/// Summary of timed samples, in seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Fastest sample.
    pub min: f64,
    /// Median sample (the figure the suite reports).
    pub median: f64,
    /// Slowest sample.
    pub max: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
}

impl Stats {
    /// Statistics of `samples` (seconds). Empty input gives all zeros.
    pub fn of(samples: &[f64]) -> Stats {
        if samples.is_empty() {
            return Stats::default();
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            0.5 * (s[n / 2 - 1] + s[n / 2])
        };
        let mean = s.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            s.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Stats {
            min: s[0],
            median,
            max: s[n - 1],
            mean,
            stddev: var.sqrt(),
        }
    }
}

/// Where one case's wall time went, seconds: what the suite spends around
/// the timed samples, so it can be measured and kept small.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// Preparing the case: host inputs, the CPU reference, pipelines and
    /// uploads (the app's `prepare`).
    pub prepare_s: f64,
    /// Of `prepare_s`, compiling pipelines.
    pub compile_s: f64,
    /// The validation run, its readback and the comparison.
    pub validate_s: f64,
    /// Warming the GPU up before the timed runs.
    pub warmup_s: f64,
    /// Submitting the timed runs and reading their timestamps back.
    pub timed_s: f64,
    /// The whole case, from planning it to its record.
    pub wall_s: f64,
}

impl Phases {
    /// Wall time beyond the timed samples themselves.
    pub fn overhead_s(&self, samples_s: &[f64]) -> f64 {
        (self.wall_s - samples_s.iter().sum::<f64>()).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Stats;

    #[test]
    fn median_of_odd_and_even() {
        let s = Stats::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        assert_eq!(Stats::of(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert!((Stats::of(&[1.0, 3.0]).stddev - 2f64.sqrt()).abs() < 1e-15);
    }
}
