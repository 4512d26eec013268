//! Sweep view: results of one app arranged as a heat map over two of the
//! parameters that vary between its records (workgroup size x variant,
//! layout x VVL, gang x vector, ...). Pure data here, drawn by the app.

use std::collections::{BTreeMap, BTreeSet};

use eframe::egui::Color32;
use skylight_core::record::ResultRecord;

/// Pseudo-parameters every record has besides its case parameters.
const CASE_FIELDS: [&str; 3] = ["kernel", "variant", "precision"];

/// The figure a heat-map cell shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Achieved GFLOP/s.
    Gflops,
    /// Achieved GB/s.
    Gbps,
}

impl Metric {
    /// Both metrics, in menu order.
    pub const ALL: [Metric; 2] = [Metric::Gflops, Metric::Gbps];

    /// Unit label.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Gflops => "GFLOP/s",
            Metric::Gbps => "GB/s",
        }
    }

    fn of(self, r: &ResultRecord) -> f64 {
        match self {
            Metric::Gflops => r.gflops,
            Metric::Gbps => r.gbps,
        }
    }
}

/// The value of `name` in a record: a case parameter or one of the case
/// fields every record has (kernel, variant, precision).
pub fn value_of(r: &ResultRecord, name: &str) -> Option<String> {
    match name {
        "kernel" => Some(r.case.kernel.clone()),
        "variant" => Some(r.case.variant.clone()),
        "precision" => Some(r.case.precision.name().to_string()),
        _ => r.case.params.get(name).cloned(),
    }
}

/// Names (parameters and case fields) that take more than one value across
/// `records`: the axes a heat map can use.
pub fn varying(records: &[&ResultRecord]) -> Vec<String> {
    let mut names: BTreeSet<String> = CASE_FIELDS.iter().map(|s| s.to_string()).collect();
    for r in records {
        names.extend(r.case.params.keys().cloned());
    }
    names
        .into_iter()
        .filter(|n| {
            let vals: BTreeSet<Option<String>> = records.iter().map(|r| value_of(r, n)).collect();
            vals.len() > 1
        })
        .collect()
}

/// A heat map: `cells[row][col]` is the best value among the records whose
/// `y` value is `ys[row]` and `x` value is `xs[col]` (other parameters are
/// folded by taking the best, which is what a tuning sweep asks for).
#[derive(Clone, Debug, PartialEq)]
pub struct HeatMap {
    /// Column labels, numeric ones in numeric order.
    pub xs: Vec<String>,
    /// Row labels, numeric ones in numeric order.
    pub ys: Vec<String>,
    /// Best value per cell; `None` where no record exists.
    pub cells: Vec<Vec<Option<f64>>>,
    /// Largest value in the map (0 when empty).
    pub max: f64,
}

/// Orders labels numerically when they all parse as numbers, else as text.
fn sorted(values: BTreeSet<String>) -> Vec<String> {
    let mut v: Vec<String> = values.into_iter().collect();
    if v.iter().all(|s| s.parse::<f64>().is_ok()) {
        v.sort_by(|a, b| {
            let (a, b): (f64, f64) = (a.parse().unwrap_or(0.0), b.parse().unwrap_or(0.0));
            a.total_cmp(&b)
        });
    }
    v
}

/// Builds the heat map of `metric` over `x` (columns) and `y` (rows).
pub fn heat_map(records: &[&ResultRecord], x: &str, y: &str, metric: Metric) -> HeatMap {
    let mut best: BTreeMap<(String, String), f64> = BTreeMap::new();
    let mut xs = BTreeSet::new();
    let mut ys = BTreeSet::new();
    for r in records {
        let (Some(xv), Some(yv)) = (value_of(r, x), value_of(r, y)) else {
            continue;
        };
        let v = metric.of(r);
        if !v.is_finite() {
            continue;
        }
        xs.insert(xv.clone());
        ys.insert(yv.clone());
        let cell = best.entry((xv, yv)).or_insert(v);
        *cell = cell.max(v);
    }
    let xs = sorted(xs);
    let ys = sorted(ys);
    let cells: Vec<Vec<Option<f64>>> = ys
        .iter()
        .map(|yv| {
            xs.iter()
                .map(|xv| best.get(&(xv.clone(), yv.clone())).copied())
                .collect()
        })
        .collect();
    let max = best.values().copied().fold(0.0, f64::max);
    HeatMap { xs, ys, cells, max }
}

/// Colour of a cell at `fraction` (0..1) of the map's maximum: dark blue
/// through teal to yellow, readable for colour-blind users and on both themes.
pub fn ramp(fraction: f64) -> Color32 {
    const STOPS: [(f64, [f32; 3]); 5] = [
        (0.0, [68.0, 1.0, 84.0]),
        (0.25, [59.0, 82.0, 139.0]),
        (0.5, [33.0, 145.0, 140.0]),
        (0.75, [94.0, 201.0, 98.0]),
        (1.0, [253.0, 231.0, 37.0]),
    ];
    let f = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let i = STOPS
        .windows(2)
        .position(|w| f <= w[1].0)
        .unwrap_or(STOPS.len() - 2);
    let ((a, ca), (b, cb)) = (STOPS[i], STOPS[i + 1]);
    let t = ((f - a) / (b - a)) as f32;
    let mix = |k: usize| (ca[k] + (cb[k] - ca[k]) * t).round() as u8;
    Color32::from_rgb(mix(0), mix(1), mix(2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use skylight_core::Precision;
    use skylight_core::app::{Case, Model, Validation};
    use skylight_core::runner::cpu_platform;
    use skylight_core::timing::TimingMethod;

    fn rec(variant: &str, wg: u32, p: Precision, gflops: f64) -> ResultRecord {
        let case = Case::new("su3", "mat-mul", variant, p).param("wg", wg);
        let mut r = ResultRecord::new(
            case,
            cpu_platform(),
            TimingMethod::CpuClock,
            vec![1.0],
            Model {
                flops: 1.0,
                bytes: 1.0,
            },
            Validation::compare(&[1.0], &[1.0], 0.0, 1.0, "x"),
            Default::default(),
        );
        r.gflops = gflops;
        r
    }

    #[test]
    fn axes_are_the_varying_names_and_cells_keep_the_best() {
        let rs = [
            rec("site", 64, Precision::F32, 1.0),
            rec("site", 128, Precision::F32, 3.0),
            rec("link", 64, Precision::F32, 2.0),
            rec("link", 64, Precision::F64, 5.0),
            rec("site", 128, Precision::F64, 0.5),
        ];
        let refs: Vec<&ResultRecord> = rs.iter().collect();
        assert_eq!(varying(&refs), ["precision", "variant", "wg"]);
        let m = heat_map(&refs, "wg", "variant", Metric::Gflops);
        assert_eq!(m.xs, ["64", "128"]);
        assert_eq!(m.ys, ["link", "site"]);
        assert_eq!(
            m.cells,
            vec![vec![Some(5.0), None], vec![Some(1.0), Some(3.0)]]
        );
        assert_eq!(m.max, 5.0);
    }

    #[test]
    fn numeric_labels_sort_as_numbers() {
        let s: BTreeSet<String> = ["256", "32", "1024"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(sorted(s), ["32", "256", "1024"]);
    }

    #[test]
    fn ramp_ends_and_clamps() {
        assert_eq!(ramp(0.0), Color32::from_rgb(68, 1, 84));
        assert_eq!(ramp(1.0), Color32::from_rgb(253, 231, 37));
        assert_eq!(ramp(7.0), ramp(1.0));
        assert_eq!(ramp(f64::NAN), ramp(0.0));
    }
}
