//! The empirical roofline: ceilings measured on the device by the `stream`
//! and `peak` apps, and every other kernel's point placed against them.
//! (A roofline is built from result records by `Roofline::from_records`,
//! which lives with the records in [`crate::record`].)

use serde::{Deserialize, Serialize};

use crate::gpu::PlatformInfo;
use crate::precision::Precision;

/// A measured ceiling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// What measured it, e.g. `stream triad f64`.
    pub label: String,
    /// GB/s for a bandwidth ceiling, GFLOP/s for a compute ceiling.
    pub value: f64,
    /// The precision of a compute ceiling (`None` for bandwidth).
    pub precision: Option<Precision>,
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
    /// Achieved GFLOP/s.
    pub gflops: f64,
    /// Achieved GB/s.
    pub gbps: f64,
    /// Achieved over attainable (min of compute ceiling and AI x bandwidth), 0..1.
    pub fraction_of_roof: Option<f64>,
}

/// Ceilings and points of one platform.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Roofline {
    /// The device measured.
    pub platform: PlatformInfo,
    /// Bandwidth ceilings, best first (GB/s).
    pub bandwidth: Vec<Ceiling>,
    /// Compute ceilings, one per precision measured (GFLOP/s).
    pub compute: Vec<Ceiling>,
    /// Kernel points.
    pub points: Vec<Point>,
}

impl Roofline {
    /// Best measured bandwidth, GB/s.
    pub fn bandwidth_peak(&self) -> f64 {
        self.bandwidth.first().map(|c| c.value).unwrap_or(0.0)
    }

    /// Measured compute ceiling of `p`, GFLOP/s.
    pub fn compute_peak(&self, p: Precision) -> Option<f64> {
        self.compute
            .iter()
            .find(|c| c.precision == Some(p))
            .map(|c| c.value)
    }

    /// Attainable GFLOP/s at arithmetic intensity `ai`: min(peak, ai x bandwidth).
    pub fn attainable(&self, ai: f64, p: Precision) -> Option<f64> {
        let peak = self.compute_peak(p)?;
        Some(peak.min(ai * self.bandwidth_peak()))
    }

    /// Arithmetic intensity where the bandwidth slope meets the compute ceiling of `p`.
    pub fn ridge(&self, p: Precision) -> Option<f64> {
        let bw = self.bandwidth_peak();
        (bw > 0.0)
            .then(|| self.compute_peak(p).map(|c| c / bw))
            .flatten()
    }

    /// The roof of `p` as a polyline over `ai_min..ai_max`: the slope, the ridge, the flat part.
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
            },
            bandwidth: vec![Ceiling {
                label: "bw".into(),
                value: 100.0,
                precision: None,
            }],
            compute: vec![Ceiling {
                label: "f32".into(),
                value: 1000.0,
                precision: Some(Precision::F32),
            }],
            points: vec![],
        }
    }

    #[test]
    fn ridge_and_attainable() {
        let r = roof();
        assert_eq!(r.ridge(Precision::F32), Some(10.0));
        assert_eq!(r.attainable(1.0, Precision::F32), Some(100.0));
        assert_eq!(r.attainable(100.0, Precision::F32), Some(1000.0));
        assert_eq!(r.attainable(1.0, Precision::F64), None);
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
