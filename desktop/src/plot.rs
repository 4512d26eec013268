//! Pure transforms behind the roofline plot.
//!
//! egui_plot has no logarithmic axis, so the plot works in log10 space: every
//! value is mapped with [`to_log`] before it is drawn, the grid is placed at
//! whole decades by [`decade_marks`], and the tick labels turn the log value
//! back into `10^k` with [`tick_label`]. Keeping these free of egui state lets
//! them be unit tested.

use egui_plot::GridMark;
use skylight_core::Precision;
use skylight_core::roofline::{Roofline, axis};

/// Arithmetic-intensity range shown before any result exists (FLOP/byte).
pub const DEFAULT_AI_RANGE: (f64, f64) = (1.0 / 16.0, 64.0);

/// log10 of a plottable value; `None` for zero, negative or non-finite values,
/// which a log axis cannot show (they are listed in the table instead).
pub fn to_log(v: f64) -> Option<f64> {
    (v.is_finite() && v > 0.0).then(|| v.log10())
}

/// Inverse of [`to_log`].
pub fn from_log(l: f64) -> f64 {
    10f64.powf(l)
}

/// A result at (`ai` FLOP/byte, `gflops` GFLOP/s) in plot space, if both are positive.
pub fn log_point(ai: f64, gflops: f64) -> Option<[f64; 2]> {
    Some([to_log(ai)?, to_log(gflops)?])
}

/// Grid marks for a log10 axis spanning `bounds` (in log space): whole decades
/// with step 1 (thick lines, labelled) and the 2..9 multiples with step 0.1
/// (thin lines) so the eye can read values between decades.
pub fn decade_marks(bounds: (f64, f64)) -> Vec<GridMark> {
    let (lo, hi) = (bounds.0.min(bounds.1), bounds.0.max(bounds.1));
    if !lo.is_finite() || !hi.is_finite() {
        return Vec::new();
    }
    let mut marks = Vec::new();
    for k in axis::decades(from_log(lo), from_log(hi)) {
        let base = f64::from(k);
        if base >= lo && base <= hi {
            marks.push(GridMark {
                value: base,
                step_size: 1.0,
            });
        }
        // A dozen decades or fewer is readable with minor lines; more would smear.
        if hi - lo <= 12.0 {
            for m in 2..=9 {
                let v = base + f64::from(m).log10();
                if v >= lo && v <= hi {
                    marks.push(GridMark {
                        value: v,
                        step_size: 0.1,
                    });
                }
            }
        }
    }
    marks
}

/// Tick label of a log-space grid value: `10^k` written by core's
/// [`axis::decade_label`] at whole decades, empty between them.
pub fn tick_label(log_value: f64) -> String {
    let k = log_value.round();
    if (log_value - k).abs() < 1e-9 && k.abs() < 300.0 {
        axis::decade_label(k as i32)
    } else {
        String::new()
    }
}

/// A ceiling ready to draw: its label and polyline in log space.
#[derive(Clone, Debug, PartialEq)]
pub struct CeilingLine {
    /// Legend text, with the measured value.
    pub label: String,
    /// The compute precision, `None` for the bandwidth slope.
    pub precision: Option<Precision>,
    /// Vertices in log10 space.
    pub points: Vec<[f64; 2]>,
}

/// The roofs of `roof` over `ai_min..ai_max`: one bandwidth slope per
/// memory level measured (each drawn up to its highest ridge so it reads
/// as that level's roof) and one roof per measured precision (device
/// memory's slope, ridge, flat part), all in log space.
pub fn ceiling_lines(roof: &Roofline, ai_min: f64, ai_max: f64) -> Vec<CeilingLine> {
    let mut out = Vec::new();
    for level in roof.levels() {
        let Some(bw) = roof.level_bandwidth(level).filter(|&b| b > 0.0) else {
            continue;
        };
        let highest_ridge = Precision::ALL
            .iter()
            .filter_map(|p| roof.compute_peak(*p))
            .fold(0.0f64, f64::max)
            / bw;
        // Without a compute ceiling the slope is the whole roof: draw it across.
        let top = if highest_ridge > ai_min {
            highest_ridge.min(ai_max)
        } else {
            ai_max
        };
        let pts: Vec<[f64; 2]> = [ai_min, top]
            .iter()
            .filter_map(|&ai| log_point(ai, ai * bw))
            .collect();
        if pts.len() == 2 {
            out.push(CeilingLine {
                label: format!("{level} roof {bw:.1} GB/s"),
                precision: None,
                points: pts,
            });
        }
    }
    for p in Precision::ALL {
        let (Some(peak), line) = (roof.compute_peak(p), roof.roof_line(p, ai_min, ai_max)) else {
            continue;
        };
        let pts: Vec<[f64; 2]> = line
            .iter()
            .filter_map(|&(ai, g)| log_point(ai, g))
            .collect();
        if pts.len() >= 2 {
            out.push(CeilingLine {
                label: format!("{p} roof {peak:.1} GFLOP/s"),
                precision: Some(p),
                points: pts,
            });
        }
    }
    out
}

/// Where the roof of `p` bends, in log space: (log10 ridge AI, log10 peak).
pub fn ridge_point(roof: &Roofline, p: Precision) -> Option<[f64; 2]> {
    log_point(roof.ridge(p)?, roof.compute_peak(p)?)
}

/// The AI range to show: the results' AIs and the ridges, widened by a factor
/// of 4 each side so no point sits on the frame.
pub fn ai_range(ais: impl IntoIterator<Item = f64>, roofs: &[&Roofline]) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let ridges = roofs
        .iter()
        .flat_map(|r| Precision::ALL.iter().filter_map(|p| r.ridge(*p)));
    for ai in ais.into_iter().chain(ridges) {
        if ai.is_finite() && ai > 0.0 {
            lo = lo.min(ai);
            hi = hi.max(ai);
        }
    }
    if lo > hi {
        return DEFAULT_AI_RANGE;
    }
    (lo / 4.0, hi * 4.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use skylight_core::device::PlatformInfo;
    use skylight_core::roofline::Ceiling;

    fn roof(bw: f64, f32_peak: f64) -> Roofline {
        Roofline {
            platform: PlatformInfo {
                index: None,
                name: "test".into(),
                backend: "vulkan".into(),
                device_type: "cpu".into(),
                driver: String::new(),
                driver_info: String::new(),
                vendor: 0,
                device: 0,
                df64: None,
                offers: None,
            },
            bandwidth: vec![Ceiling::new("stream triad f32", bw, None)],
            compute: vec![Ceiling::new("FMA peak f32", f32_peak, Some(Precision::F32))],
            points: Vec::new(),
            sweep: Vec::new(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn log_scaling_round_trips_and_rejects_non_positive() {
        assert_eq!(to_log(1000.0), Some(3.0));
        assert!(close(from_log(to_log(0.25).expect("positive")), 0.25));
        assert_eq!(to_log(0.0), None);
        assert_eq!(to_log(-1.0), None);
        assert_eq!(to_log(f64::NAN), None);
        assert_eq!(log_point(0.0, 10.0), None);
        assert_eq!(log_point(10.0, 100.0), Some([1.0, 2.0]));
    }

    #[test]
    fn decade_ticks_are_labelled_and_minor_ones_are_not() {
        let marks = decade_marks((-1.5, 2.2));
        let majors: Vec<f64> = marks
            .iter()
            .filter(|m| m.step_size == 1.0)
            .map(|m| m.value)
            .collect();
        assert_eq!(majors, vec![-1.0, 0.0, 1.0, 2.0]);
        assert!(marks.iter().all(|m| m.value >= -1.5 && m.value <= 2.2));
        assert!(marks.iter().any(|m| close(m.value, 2f64.log10())));
        assert_eq!(tick_label(0.0), "1");
        assert_eq!(tick_label(2.0), "100");
        assert_eq!(tick_label(-2.0), "0.01");
        assert_eq!(tick_label(6.0), "1e6");
        assert_eq!(tick_label(0.5), "");
    }

    #[test]
    fn ridge_is_where_the_slope_meets_the_peak() {
        let r = roof(100.0, 1000.0);
        let [x, y] = ridge_point(&r, Precision::F32).expect("ridge");
        assert!(close(x, 1.0)); // 1000 GFLOP/s / 100 GB/s = 10 FLOP/byte
        assert!(close(y, 3.0));
        assert_eq!(ridge_point(&r, Precision::F64), None);
    }

    #[test]
    fn ceiling_geometry_has_slope_one_then_flat() {
        let r = roof(100.0, 1000.0);
        let lines = ceiling_lines(&r, 0.1, 1000.0);
        let mem = lines
            .iter()
            .find(|l| l.precision.is_none())
            .expect("memory roof");
        // Bandwidth slope: log(gflops) = log(ai) + log(bw), so slope 1 in log space.
        let [a, b] = [mem.points[0], mem.points[1]];
        assert!(close((b[1] - a[1]) / (b[0] - a[0]), 1.0));
        assert!(close(a[1], (0.1f64 * 100.0).log10()));
        assert!(close(b[0], 1.0)); // stops at the ridge (AI 10)
        let f32_roof = lines
            .iter()
            .find(|l| l.precision == Some(Precision::F32))
            .expect("f32 roof");
        assert_eq!(f32_roof.points.len(), 3);
        assert!(close(f32_roof.points[1][0], 1.0));
        assert!(close(f32_roof.points[1][1], 3.0));
        assert!(close(f32_roof.points[2][1], 3.0)); // flat past the ridge
        assert!(f32_roof.label.contains("f32"));
    }

    #[test]
    fn ranges_and_fractions() {
        let r = roof(100.0, 1000.0);
        assert_eq!(ai_range(std::iter::empty(), &[]), DEFAULT_AI_RANGE);
        let (lo, hi) = ai_range([0.5, 2.0, 0.0], &[&r]);
        assert!(close(lo, 0.125));
        assert!(close(hi, 40.0)); // the ridge at 10 widens the range
    }
}
