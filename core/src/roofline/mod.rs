//! The empirical roofline: ceilings measured on the device (device-memory
//! bandwidth by `stream`, each cache level's and workgroup memory's by
//! `cache`, compute per precision by `peak`), and every other kernel's
//! point placed against them ([`Roofline::from_records`]), rated against
//! the level its working set lives in ([`rating`]).

mod build;
pub mod levels;
pub mod rating;

use serde::{Deserialize, Serialize};

use crate::gpu::PlatformInfo;
use crate::precision::Precision;

pub use build::native_ceilings;
pub use levels::MemoryLevel;
pub use rating::Rating;

/// A measured ceiling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// What measured it, e.g. `stream triad f64`.
    pub label: String,
    /// GB/s for a bandwidth ceiling, GFLOP/s for a compute ceiling.
    pub value: f64,
    /// The precision of a compute ceiling (`None` for bandwidth).
    pub precision: Option<Precision>,
    /// The memory level of a bandwidth ceiling (`None` for compute, and
    /// in files from before levels, where the one bandwidth ceiling is
    /// device memory's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<MemoryLevel>,
    /// Smallest and largest working set (bytes) the level's plateau spans
    /// in the sweep that found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_set: Option<[f64; 2]>,
}

impl Ceiling {
    /// A ceiling of no level.
    pub fn new(label: impl Into<String>, value: f64, precision: Option<Precision>) -> Ceiling {
        Ceiling {
            label: label.into(),
            value,
            precision,
            level: None,
            working_set: None,
        }
    }

    /// The level a bandwidth ceiling belongs to.
    pub fn memory_level(&self) -> MemoryLevel {
        self.level.unwrap_or(MemoryLevel::Dram)
    }
}

/// One kernel result placed on the roofline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// App name.
    pub app: String,
    /// Kernel name.
    pub kernel: String,
    /// Variant label.
    pub variant: String,
    /// Precision.
    pub precision: Precision,
    /// FLOPs per byte (analytic).
    pub ai: f64,
    /// FLOPs per byte its loads and stores request (its intensity at L1),
    /// where the app's model says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_ai: Option<f64>,
    /// Achieved GFLOP/s.
    pub gflops: f64,
    /// Achieved GB/s.
    pub gbps: f64,
    /// Achieved over attainable at the level it is rated against ([`rating`]);
    /// above 1 only with the rating's note.
    pub fraction_of_roof: Option<f64>,
    /// The level whose bandwidth it is rated against (absent in files from
    /// before levels: device memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<MemoryLevel>,
}

/// Ceilings and points of one platform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Roofline {
    /// The device measured.
    pub platform: PlatformInfo,
    /// Bandwidth ceilings (GB/s): device memory's, then each level's from
    /// the fastest.
    pub bandwidth: Vec<Ceiling>,
    /// Compute ceilings, one per precision measured (GFLOP/s).
    pub compute: Vec<Ceiling>,
    /// Kernel points.
    pub points: Vec<Point>,
    /// The read sweep the cache levels come from: (working set in bytes,
    /// GB/s), the best of each set, by set; what a kernel of a given
    /// working set is rated against ([`Roofline::bandwidth_at`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<[f64; 2]>,
}

impl Roofline {
    /// Device-memory bandwidth, GB/s (0 when unmeasured).
    pub fn bandwidth_peak(&self) -> f64 {
        self.level_bandwidth(MemoryLevel::Dram).unwrap_or(0.0)
    }

    /// The best bandwidth ceiling of `level`, GB/s.
    pub fn level_bandwidth(&self, level: MemoryLevel) -> Option<f64> {
        self.bandwidth
            .iter()
            .filter(|c| c.memory_level() == level)
            .map(|c| c.value)
            .max_by(f64::total_cmp)
    }

    /// The levels measured, fastest first, device memory last.
    pub fn levels(&self) -> Vec<MemoryLevel> {
        let mut v: Vec<MemoryLevel> = self.bandwidth.iter().map(|c| c.memory_level()).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The level a working set of `bytes` lives in: the first cache level
    /// whose plateau reaches that size, else device memory.
    pub fn level_of(&self, bytes: f64) -> MemoryLevel {
        MemoryLevel::CACHES
            .into_iter()
            .find(|&l| {
                self.bandwidth
                    .iter()
                    .any(|c| c.memory_level() == l && c.working_set.is_some_and(|w| bytes <= w[1]))
            })
            .unwrap_or(MemoryLevel::Dram)
    }

    /// The level a working set of `bytes` lives in and the bandwidth data
    /// of that size attain: the best the read sweep reached with a set at
    /// least as large (so the fast start of a level that slows as it
    /// fills, as the H200's L2 does, rates small sets against what small
    /// sets reach), and at least the level's ceiling; past the sweep, the
    /// level's ceiling.
    pub fn bandwidth_at(&self, bytes: f64) -> Option<(MemoryLevel, f64)> {
        let level = self.level_of(bytes);
        let ceiling = self.level_bandwidth(level)?;
        let swept = self
            .sweep
            .iter()
            .filter(|[ws, _]| *ws >= bytes)
            .map(|[_, g]| *g)
            .max_by(f64::total_cmp);
        Some((level, swept.map_or(ceiling, |g| g.max(ceiling))))
    }

    /// Measured compute ceiling of `p`, GFLOP/s.
    pub fn compute_peak(&self, p: Precision) -> Option<f64> {
        self.compute
            .iter()
            .find(|c| c.precision == Some(p))
            .map(|c| c.value)
    }

    /// Arithmetic intensity where the bandwidth slope meets the compute ceiling of `p`.
    pub fn ridge(&self, p: Precision) -> Option<f64> {
        let bw = self.bandwidth_peak();
        (bw > 0.0)
            .then(|| self.compute_peak(p).map(|c| c / bw))
            .flatten()
    }

    /// The roof of `p` under device memory's bandwidth as a polyline over
    /// `ai_min..ai_max`: the slope, the ridge, the flat part.
    pub fn roof_line(&self, p: Precision, ai_min: f64, ai_max: f64) -> Vec<(f64, f64)> {
        let (Some(peak), Some(ridge)) = (self.compute_peak(p), self.ridge(p)) else {
            return Vec::new();
        };
        let bw = self.bandwidth_peak();
        let mut v = vec![(ai_min, (ai_min * bw).min(peak))];
        if ridge > ai_min && ridge < ai_max {
            v.push((ridge, peak));
        }
        v.push((ai_max, (ai_max * bw).min(peak)));
        v
    }
}

/// Bytes as a short size for labels: `16 KiB`, `3.0 MiB`, `1.5 GiB`.
pub fn size_label(b: f64) -> String {
    const K: f64 = 1024.0;
    match b {
        b if b >= K * K * K => format!("{:.1} GiB", b / (K * K * K)),
        b if b >= K * K => format!("{:.1} MiB", b / (K * K)),
        b => format!("{:.0} KiB", b / K),
    }
}

/// Log10 axis helpers shared by the plot front ends.
pub mod axis {
    /// Decades `10^k` covering `lo..=hi` (both > 0).
    pub fn decades(lo: f64, hi: f64) -> Vec<i32> {
        let a = lo.log10().floor() as i32;
        let b = hi.log10().ceil() as i32;
        (a..=b).collect()
    }

    /// Tick label of decade `k`: `1`, `10`, `0.01`, `1e6` ...
    pub fn decade_label(k: i32) -> String {
        match k {
            -3..=-1 => format!("{}", 10f64.powi(k)),
            0..=4 => format!("{}", 10i64.pow(k as u32)),
            _ => format!("1e{k}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roof() -> Roofline {
        Roofline {
            platform: PlatformInfo {
                index: None,
                name: "t".into(),
                backend: "cpu".into(),
                device_type: "cpu".into(),
                driver: String::new(),
                driver_info: String::new(),
                vendor: 0,
                device: 0,
                df64: None,
                offers: None,
            },
            bandwidth: vec![Ceiling::new("bw", 100.0, None)],
            compute: vec![Ceiling::new("f32", 1000.0, Some(Precision::F32))],
            points: vec![],
            sweep: vec![],
        }
    }

    #[test]
    fn ridge_and_roof_line() {
        let r = roof();
        assert_eq!(r.ridge(Precision::F32), Some(10.0));
        let line = r.roof_line(Precision::F32, 0.1, 1000.0);
        assert_eq!(line, vec![(0.1, 10.0), (10.0, 1000.0), (1000.0, 1000.0)]);
    }

    #[test]
    fn decades_cover_range() {
        assert_eq!(axis::decades(0.05, 2000.0), vec![-2, -1, 0, 1, 2, 3, 4]);
        assert_eq!(axis::decade_label(-2), "0.01");
        assert_eq!(axis::decade_label(3), "1000");
        assert_eq!(axis::decade_label(6), "1e6");
    }
}
