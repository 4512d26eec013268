//! Scaling view data: the scale-out records of the loaded files as core's
//! scaling curves ([`curves::curves`]), per source, and the log axes the
//! view draws them on. Pure data here, drawn by the app.

use std::path::Path;

use egui_plot::GridMark;
use skylight_core::Precision;
use skylight_core::record::ResultRecord;
use skylight_core::scale::Scaling;
use skylight_core::scale::curves::{self, Point};

use crate::plot;
use crate::state::LoadedFile;

/// Where curves come from: the files of one folder, run on one device.
///
/// A scale-out experiment writes one file per rank count into one folder
/// (`scripts/scale-bench` and the README's commands do), so the points of
/// a curve are found among the files of a folder. Grouping by folder keeps
/// two experiments of the same case on the same device (before and after a
/// change) as two curves instead of one with two points per rank count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The folder of the files; empty for dropped files, which have no path.
    pub folder: String,
    /// The device of the records.
    pub device: String,
}

impl Source {
    /// Menu label: the folder's last two parts (enough to tell the
    /// committed runs apart) and the device.
    pub fn label(&self) -> String {
        let parts: Vec<&str> = self
            .folder
            .split(['/', '\\'])
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        match parts.len() {
            0 => self.device.clone(),
            n => format!(
                "{} ({})",
                parts[n.saturating_sub(2)..].join("/"),
                self.device
            ),
        }
    }
}

/// One curve: a case in one scaling mode from one source, over rank counts.
#[derive(Clone, Debug)]
pub struct Curve {
    /// Index into [`ScalingData::sources`].
    pub source: usize,
    /// Strong or weak.
    pub mode: Scaling,
    /// Core's case key ([`curves::case_key`]): kernel, variant, precision,
    /// size, grid or slab split, and whether the run asked for overlap.
    pub key: String,
    /// The records' precision (it picks the marker shape).
    pub precision: Precision,
    /// The points, by ranks.
    pub points: Vec<Point>,
}

/// Every source with scale-out records and its curves, in load order.
#[derive(Debug, Default)]
pub struct ScalingData {
    /// The sources, in the order their first record was loaded.
    pub sources: Vec<Source>,
    /// The curves, by source, then as core orders them (mode, then case).
    pub curves: Vec<Curve>,
}

impl ScalingData {
    /// Groups the scale-out records of `loaded` by source and into curves.
    /// A source is made by its scale-out records; the records run on one
    /// device without MPI beside them (same folder and device) are their
    /// curves' single-GPU bases.
    pub fn build(loaded: &[LoadedFile]) -> ScalingData {
        let mut sources: Vec<Source> = Vec::new();
        let mut records: Vec<Vec<&ResultRecord>> = Vec::new();
        let source_of = |f: &LoadedFile, r: &ResultRecord| Source {
            folder: folder(&f.path),
            device: r.platform.name.clone(),
        };
        for f in loaded {
            for r in f.records.iter().filter(|r| r.scale.is_some()) {
                let source = source_of(f, r);
                let i = match sources.iter().position(|s| *s == source) {
                    Some(i) => i,
                    None => {
                        sources.push(source);
                        records.push(Vec::new());
                        sources.len() - 1
                    }
                };
                records[i].push(r);
            }
        }
        for f in loaded {
            for r in f.records.iter().filter(|r| r.scale.is_none()) {
                let source = source_of(f, r);
                if let Some(i) = sources.iter().position(|s| *s == source) {
                    records[i].push(r);
                }
            }
        }
        let mut curves = Vec::new();
        for (source, recs) in records.iter().enumerate() {
            for ((mode, key), points) in curves::curves(recs.iter().copied()) {
                curves.push(Curve {
                    source,
                    mode,
                    precision: points.first().map_or(Precision::F32, |p| p.precision),
                    key,
                    points,
                });
            }
        }
        ScalingData { sources, curves }
    }

    /// The scaling modes the curves of `source` (every source for `None`)
    /// have, strong first.
    pub fn modes(&self, source: Option<usize>) -> Vec<Scaling> {
        [Scaling::Strong, Scaling::Weak]
            .into_iter()
            .filter(|m| self.select(source, *m).next().is_some())
            .collect()
    }

    /// The curves of `source` (every source for `None`) in `mode`.
    pub fn select(&self, source: Option<usize>, mode: Scaling) -> impl Iterator<Item = &Curve> {
        self.curves
            .iter()
            .filter(move |c| c.mode == mode && source.is_none_or(|s| s == c.source))
    }

    /// A curve's full name: its case, and its source when curves of every
    /// source are shown together.
    pub fn label(&self, c: &Curve, with_source: bool) -> String {
        match (with_source, self.sources.get(c.source)) {
            (true, Some(s)) => format!("{} @ {}", c.key, s.label()),
            _ => c.key.clone(),
        }
    }
}

/// The folder part of a loaded file's path.
fn folder(path: &str) -> String {
    Path::new(path)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// Where the plots put a rank count: log2, so 1, 2, 4, 8 ... are evenly spaced.
pub fn rank_x(ranks: usize) -> f64 {
    (ranks.max(1) as f64).log2()
}

/// Grid marks of the log2 rank axis over `bounds`: one per power of two;
/// where they would crowd (`base_step` is the grid's smallest step, some
/// 8 points), every 2nd, 4th ... is given a wider step, so only those are
/// labelled and drawn strongly.
pub fn rank_marks(bounds: (f64, f64), base_step: f64) -> Vec<GridMark> {
    let (lo, hi) = (
        bounds.0.min(bounds.1).ceil(),
        bounds.0.max(bounds.1).floor(),
    );
    if !lo.is_finite() || !hi.is_finite() || hi - lo > 64.0 {
        return Vec::new();
    }
    // Some 64 points between labelled marks.
    let mut stride = 1i64;
    while (stride as f64) < 8.0 * base_step && stride < 64 {
        stride *= 2;
    }
    (lo as i64..=hi as i64)
        .map(|k| GridMark {
            value: k as f64,
            step_size: if k % stride == 0 { stride as f64 } else { 1.0 },
        })
        .collect()
}

/// Tick label of the rank axis: the rank count at whole powers of two.
pub fn rank_label(x: f64) -> String {
    let k = x.round();
    if (x - k).abs() < 1e-9 && (0.0..63.0).contains(&k) {
        format!("{}", 1u64 << k as u32)
    } else {
        String::new()
    }
}

/// Grid marks of a log10 axis over `bounds` at 1, 2, 3 ... 9 times each
/// decade: the decades strongest, 2 and 5 next (about a third of a
/// decade apart), the rest as thin lines.
pub fn log_marks(bounds: (f64, f64)) -> Vec<GridMark> {
    let (lo, hi) = (bounds.0.min(bounds.1), bounds.0.max(bounds.1));
    if !lo.is_finite() || !hi.is_finite() || hi - lo > 30.0 {
        return Vec::new();
    }
    let mut marks = Vec::new();
    for k in lo.floor() as i32..=hi.ceil() as i32 {
        for m in 1..=9u8 {
            let value = f64::from(k) + f64::from(m).log10();
            if value < lo || value > hi {
                continue;
            }
            let step_size = match m {
                1 => 1.0,
                2 | 5 => 0.3,
                _ => 0.1,
            };
            marks.push(GridMark { value, step_size });
        }
    }
    marks
}

/// Grid marks of the efficiency axis (a fraction) over `bounds`: every
/// 10%, the 20% steps labelled once there is room and whole 100%s
/// strongest, so a short plot still reads its efficiencies off the axis.
pub fn percent_marks(bounds: (f64, f64)) -> Vec<GridMark> {
    let (lo, hi) = (bounds.0.min(bounds.1), bounds.0.max(bounds.1));
    if !lo.is_finite() || !hi.is_finite() || hi - lo > 100.0 {
        return Vec::new();
    }
    ((lo * 10.0).ceil() as i64..=(hi * 10.0).floor() as i64)
        .map(|tenths| GridMark {
            value: tenths as f64 / 10.0,
            step_size: match tenths {
                t if t % 10 == 0 => 1.0,
                t if t % 2 == 0 => 0.2,
                _ => 0.1,
            },
        })
        .collect()
}

/// Tick label of a [`log_marks`] axis: the value at 1, 2 and 5 times a
/// decade (the others are too close together to label), empty elsewhere.
pub fn log_label(y: f64) -> String {
    let v = plot::from_log(y);
    let decade = 10f64.powf(y.floor());
    let m = (v / decade).round();
    // A decade computed a hair short reads as 10 times the one below.
    if (v / decade - m).abs() > 1e-6 || ![1.0, 2.0, 5.0, 10.0].contains(&m) {
        return String::new();
    }
    number(m * decade)
}

/// A tick value without trailing zeros or float noise: 0.005, 0.2, 10, 2000.
fn number(v: f64) -> String {
    let digits = (-v.log10().floor()).clamp(0.0, 12.0) as usize;
    format!("{v:.digits$}")
}

/// Milliseconds to show for `s` seconds: about four significant digits,
/// so the table's columns stay narrow from microseconds to seconds.
pub fn ms(s: f64) -> String {
    let ms = s * 1e3;
    match ms.abs() {
        a if a >= 100.0 => format!("{ms:.1}"),
        a if a >= 10.0 => format!("{ms:.2}"),
        _ => format!("{ms:.3}"),
    }
}

/// The committed scale-out runs in `folders`, loaded as the README's
/// command loads them (tests of the data and of the view share them).
#[cfg(test)]
pub fn committed(folders: &[&str]) -> Vec<LoadedFile> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut loaded = Vec::new();
    for folder in folders {
        for p in skylight_tests::json_glob(&root, &format!("{folder}/*.json")) {
            let name = Path::new(&p).file_name().and_then(|n| n.to_str());
            let path = format!("{folder}/{}", name.unwrap_or(""));
            let file = crate::io::read_result_file(&p).expect("it parses");
            loaded.push(LoadedFile {
                path,
                device: String::new(),
                records: file.records,
                roofline: None,
            });
        }
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared H100's runs with and without overlap (2026-11-25): each
    /// case makes two curves, told apart by the overlap the runs asked for.
    #[test]
    fn overlap_runs_make_a_curve_each_way() {
        let folders = [
            "benchmarks/nvidia-h100-mpi-overlap-2026-11-25",
            "benchmarks/nvidia-h100-mpi-overlap-2026-11-25/milc",
        ];
        let data = ScalingData::build(&committed(&folders));
        for mode in [Scaling::Strong, Scaling::Weak] {
            // lbm step and milc dslash-fused, f32 and f64, each both ways.
            let curves: Vec<&Curve> = data.select(None, mode).collect();
            assert_eq!(curves.len(), 8, "{mode:?}");
            let overlapped = curves.iter().filter(|c| c.key.contains("overlapped"));
            assert_eq!(overlapped.count(), 4, "{mode:?}");
            for c in curves {
                let ranks: Vec<usize> = c.points.iter().map(|p| p.ranks).collect();
                assert_eq!(ranks, [1, 2, 4], "{}", c.key);
            }
        }
    }

    #[test]
    fn committed_runs_make_one_source_per_folder_and_full_curves() {
        let folders = [
            "benchmarks/nvidia-h200x2-mpi-2026-11-24/exec",
            "benchmarks/nvidia-h200x2-mpi-2026-11-24/half-spinors",
            "benchmarks/nvidia-h200x2-mpi-2026-11-24/milc-first",
            "benchmarks/nvidia-h200x2-mpi-2026-11-23",
            "benchmarks/lavapipe-mpi-2026-11-23",
            "benchmarks/nvidia-h100-mpi-2026-11-23",
        ];
        let data = ScalingData::build(&committed(&folders));
        let labels: Vec<String> = data.sources.iter().map(Source::label).collect();
        assert_eq!(
            labels[0], "nvidia-h200x2-mpi-2026-11-24/exec (NVIDIA H200)",
            "{labels:?}"
        );
        assert_eq!(data.sources.len(), folders.len(), "{labels:?}");
        assert_eq!(data.modes(Some(3)), [Scaling::Strong, Scaling::Weak]);
        // exec: lbm and two milc kernels in f32 and f64, strong.
        let strong: Vec<&Curve> = data.select(Some(0), Scaling::Strong).collect();
        assert_eq!(strong.len(), 6);
        for c in &strong {
            let ranks: Vec<usize> = c.points.iter().map(|p| p.ranks).collect();
            assert_eq!(ranks, [1, 2, 4], "{}", c.key);
            assert_eq!(c.points[0].efficiency, 1.0);
        }
        assert!(strong.iter().any(|c| c.precision == Precision::F64));
        assert!(
            data.select(None, Scaling::Weak).count() > data.select(Some(0), Scaling::Weak).count()
        );
    }

    /// The two-H200 reference set holds the one-GPU runs without MPI
    /// beside its curves: every curve's speed-up is against them, and
    /// they make no source of their own.
    #[test]
    fn single_gpu_runs_beside_the_curves_are_their_bases() {
        let data = ScalingData::build(&committed(&["benchmarks/reference/nvidia-h200-x2"]));
        assert_eq!(data.sources.len(), 1);
        let curves: Vec<&Curve> = data.curves.iter().collect();
        assert!(curves.len() >= 6, "{}", curves.len());
        for c in curves {
            for p in &c.points {
                assert!(p.speedup(c.mode).is_some(), "{} has no base", c.key);
            }
        }
    }

    #[test]
    fn axes_label_powers_of_two_and_one_two_five() {
        let marks = rank_marks((-0.2, 2.2), 0.01);
        let values: Vec<f64> = marks.iter().map(|m| m.value).collect();
        assert_eq!(values, [0.0, 1.0, 2.0]);
        let labels: Vec<String> = values.iter().map(|v| rank_label(*v)).collect();
        assert_eq!(labels, ["1", "2", "4"]);
        assert_eq!(rank_label(rank_x(3)), "");
        // Crowded: every 4th power of two gets the wide step.
        let wide: Vec<f64> = rank_marks((0.0, 10.0), 0.4)
            .iter()
            .filter(|m| m.step_size > 1.0)
            .map(|m| m.value)
            .collect();
        assert_eq!(wide, [0.0, 4.0, 8.0]);

        let marks = log_marks((
            plot::to_log(0.4).unwrap_or(0.0),
            plot::to_log(25.0).unwrap_or(0.0),
        ));
        let labels: Vec<String> = marks
            .iter()
            .map(|m| log_label(m.value))
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(labels, ["0.5", "1", "2", "5", "10", "20"]);
        assert_eq!(log_label(plot::to_log(0.005).unwrap_or(0.0)), "0.005");
        let steps: Vec<f64> = percent_marks((-0.05, 0.55))
            .iter()
            .map(|m| m.step_size)
            .collect();
        assert_eq!(steps, [1.0, 0.1, 0.2, 0.1, 0.2, 0.1]);
        assert_eq!(
            [ms(0.00123456), ms(0.0123456), ms(1.23456)],
            ["1.235", "12.35", "1234.6"]
        );
    }
}
