//! Scaling curves: the scale-out records of one case (one record per rank
//! count, as `mpirun -np N skylight run ... --json` writes them) put in
//! order of ranks, with their parallel efficiency, and beside it the
//! speed-up over the best single-GPU run of the same problem without MPI
//! (its fastest kernel that does the same work: lbm's fused kernel for its
//! two-pass step), where such a record is among the files: a curve's own
//! first point pays the host-staged halo swap on one rank, so efficiency
//! against it flatters the scale-out. `skylight scaling` prints and draws
//! them; the desktop's Scaling view plots them. Pure data (no files, no
//! threads), so the browser build has it too.

use std::collections::BTreeMap;

use super::{Halos, PhaseTimes, ScaleOut, Scaling};
use crate::Precision;
use crate::record::ResultRecord;

/// One point of a scaling curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Ranks.
    pub ranks: usize,
    /// The record's precision (every point of a curve has the same).
    pub precision: Precision,
    /// Median time of one run, seconds.
    pub run_s: f64,
    /// Of which pack, transfer and exchange (the decomposition's cost), seconds.
    pub comm_s: f64,
    /// Of which the exchange between ranks alone, seconds.
    pub exchange_s: f64,
    /// Parallel efficiency against the fewest ranks of the curve (an MPI
    /// run): T1 N1 / (TN N) for strong scaling, T1 / TN for weak.
    pub efficiency: f64,
    /// The best single-GPU run of the problem without MPI (for weak
    /// scaling: of one rank's share), where the files hold one.
    pub base: Option<Base>,
    /// Where the time of one run went (means, the slowest rank's), as
    /// the record has it.
    pub split: PhaseTimes,
}

/// A curve's single-GPU base: the fastest record without MPI of the same
/// app, precision and problem whose kernel does the same work.
#[derive(Clone, Debug, PartialEq)]
pub struct Base {
    /// Its kernel and variant, e.g. `fused soa/vvl1/wg128`.
    pub label: String,
    /// Its median time of one run, seconds.
    pub run_s: f64,
}

impl Point {
    /// Speed-up over the single-GPU base (for weak scaling, the base's
    /// time per rank's share over this point's): `None` without a base.
    pub fn speedup(&self, mode: Scaling) -> Option<f64> {
        let base = self.base.as_ref()?.run_s;
        Some(match mode {
            Scaling::Strong => base / self.run_s,
            Scaling::Weak => base * self.ranks as f64 / self.run_s,
        })
    }

    /// The time of a run were the single-GPU base split perfectly (strong:
    /// its time over the ranks; weak: its time, each rank's share being
    /// its problem), seconds: `None` without a base.
    pub fn ideal_s(&self, mode: Scaling) -> Option<f64> {
        let base = self.base.as_ref()?.run_s;
        Some(match mode {
            Scaling::Strong => base / self.ranks as f64,
            Scaling::Weak => base,
        })
    }

    /// Efficiency against the single-GPU base: speed-up over ranks.
    pub fn base_efficiency(&self, mode: Scaling) -> Option<f64> {
        Some(self.speedup(mode)? / self.ranks as f64)
    }

    /// The decomposition's share of the run (pack, transfer and the
    /// exchange, less the compute that hid them).
    pub fn comm_share(&self) -> f64 {
        self.comm_s / self.run_s
    }

    /// The exchange between ranks' share of the run.
    pub fn exchange_share(&self) -> f64 {
        self.exchange_s / self.run_s
    }
}

/// The curves by scaling mode and case (kernel, variant, precision, size,
/// whether the lattice was split over a grid of ranks and whether the
/// interior was to overlap the swap), each sorted by ranks.
pub type Curves = BTreeMap<(Scaling, String), Vec<Point>>;

/// The case key of the curve a scale-out record belongs to: what stays the
/// same as only the rank count changes.
pub fn case_key(r: &ResultRecord, s: &ScaleOut) -> String {
    let c = &r.case;
    // A lattice with a split time axis (milc) also names it: the whole of
    // it for strong scaling, a rank's share for weak scaling (which is
    // what stays fixed as ranks are added).
    let t = match (c.uint("T"), s.scaling) {
        (Ok(t), Scaling::Strong) => format!(" T={t}"),
        (Ok(t), Scaling::Weak) => format!(" T={}/rank", t / s.ranks.max(1) as u64),
        (Err(_), _) => String::new(),
    };
    format!(
        "{}/{} {} {} L={}{t}{}{}{}",
        c.app,
        c.kernel,
        c.variant,
        c.precision,
        c.text("L"),
        if s.axes > 1 { " grid" } else { "" },
        if s.overlap { " overlapped" } else { "" },
        if s.halos == Halos::Shared {
            " shared halos"
        } else {
            ""
        }
    )
}

/// The problem a record solves, as its single-GPU base must: app, work
/// (the kernel, or the class of kernels doing the same work), precision
/// and the case's size parameters (for weak scaling, one rank's share).
fn problem(r: &ResultRecord) -> String {
    let c = &r.case;
    let work = match (c.app.as_str(), c.kernel.as_str()) {
        // One lattice Boltzmann step either way: collide then propagate.
        ("lbm", "step" | "fused") => "step",
        // M's Dslash, in MILC's five kernels or one pass.
        ("milc", "dslash" | "dslash-fused") => "dslash",
        (_, k) => k,
    };
    let t = match (c.uint("T"), &r.scale) {
        (Ok(t), Some(s)) if s.scaling == Scaling::Weak => t / s.ranks.max(1) as u64,
        (t, _) => t.unwrap_or(0),
    };
    let size = ["steps", "iterations"].map(|k| c.text(k));
    format!(
        "{}/{work} {} L={} T={t} {size:?}",
        c.app,
        c.precision,
        c.text("L")
    )
}

/// The fastest validated single-device record of each problem.
fn bases<'a>(records: impl IntoIterator<Item = &'a ResultRecord>) -> BTreeMap<String, Base> {
    let mut out: BTreeMap<String, Base> = BTreeMap::new();
    for r in records {
        if r.scale.is_some() || !r.validation.passed {
            continue;
        }
        let b = Base {
            label: format!("{} {}", r.case.kernel, r.case.variant),
            run_s: r.stats.median,
        };
        let slot = out.entry(problem(r)).or_insert_with(|| b.clone());
        if b.run_s < slot.run_s {
            *slot = b;
        }
    }
    out
}

/// Groups scale-out records into curves, sorted by ranks, each point with
/// the single-GPU base of its problem where `records` hold one.
pub fn curves<'a>(records: impl IntoIterator<Item = &'a ResultRecord> + Clone) -> Curves {
    let bases = bases(records.clone());
    let mut out: Curves = BTreeMap::new();
    for r in records {
        let Some(s) = &r.scale else { continue };
        out.entry((s.scaling, case_key(r, s)))
            .or_default()
            .push(Point {
                ranks: s.ranks,
                precision: r.case.precision,
                run_s: r.stats.median,
                comm_s: s.split.communication(),
                exchange_s: s.split.exchange_s,
                efficiency: 0.0,
                base: bases.get(&problem(r)).cloned(),
                split: s.split,
            });
    }
    for ((mode, _), points) in out.iter_mut() {
        points.sort_by_key(|p| p.ranks);
        let (n1, t1) = (points[0].ranks as f64, points[0].run_s);
        for p in points.iter_mut() {
            p.efficiency = match mode {
                Scaling::Strong => t1 * n1 / (p.run_s * p.ranks as f64),
                Scaling::Weak => t1 / p.run_s,
            };
        }
    }
    out
}

/// Short names for curves shown together: each full name less the words
/// every one of them has (those are returned once, in order, for a
/// caption), so a legend says only what tells the curves apart. A single
/// curve keeps its whole name.
pub fn short_names(names: &[String]) -> (Vec<String>, String) {
    let words: Vec<Vec<&str>> = names
        .iter()
        .map(|n| n.split_whitespace().collect())
        .collect();
    let common: Vec<&str> = match words.split_first() {
        Some((first, rest)) if !rest.is_empty() => first
            .iter()
            .copied()
            .filter(|w| rest.iter().all(|ws| ws.contains(w)))
            .collect(),
        _ => Vec::new(),
    };
    let short = words
        .iter()
        .map(|ws| {
            let kept: Vec<&str> = ws.iter().copied().filter(|w| !common.contains(w)).collect();
            kept.join(" ")
        })
        .collect();
    (short, common.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Case, Model, Validation};
    use crate::runner::cpu_platform;
    use crate::scale::Decomposition;
    use crate::timing::TimingMethod;

    fn record(scaling: Scaling, ranks: usize, run_s: f64) -> ResultRecord {
        single("step", run_s, scaling, ranks)
    }

    /// A record of lbm's `kernel` at L = 8; over `ranks` ranks unless 0.
    fn single(kernel: &str, run_s: f64, scaling: Scaling, ranks: usize) -> ResultRecord {
        let case = Case::new("lbm", kernel, "soa", Precision::F32).param("L", 8);
        let mut r = ResultRecord::new(
            case,
            cpu_platform(),
            TimingMethod::WallClock,
            vec![run_s],
            Model::default(),
            Validation {
                passed: true,
                ..Validation::fail(String::new())
            },
            BTreeMap::new(),
        );
        if ranks == 0 {
            return r;
        }
        let global = scaling.global([8, 8, 8], ranks);
        r.scale = Some(ScaleOut {
            ranks,
            scaling,
            overlap: false,
            axes: 1,
            halos: Halos::Mpi,
            decomposition: Decomposition::plan("z", &global, ranks, 1).expect("plan"),
            split: PhaseTimes::phases(run_s / 2.0, 0.0, 0.0, run_s / 2.0, 0.0),
        });
        r
    }

    #[test]
    fn efficiency_is_against_the_fewest_ranks_of_each_mode() {
        let records = [
            record(Scaling::Strong, 4, 2.0),
            record(Scaling::Strong, 1, 4.0),
            record(Scaling::Strong, 2, 2.5),
            record(Scaling::Weak, 1, 1.0),
            record(Scaling::Weak, 2, 1.25),
        ];
        let c = curves(&records);
        assert_eq!(c.len(), 2);
        let strong: Vec<(usize, f64)> = c
            .iter()
            .find(|((m, _), _)| *m == Scaling::Strong)
            .map(|(_, v)| v.iter().map(|p| (p.ranks, p.efficiency)).collect())
            .expect("a strong curve");
        assert_eq!(strong, [(1, 1.0), (2, 0.8), (4, 0.5)]);
        let weak = c
            .iter()
            .find(|((m, _), _)| *m == Scaling::Weak)
            .expect("weak");
        assert_eq!(weak.1[1].efficiency, 0.8);
        assert_eq!(weak.1[1].exchange_s, 0.625);
        assert_eq!(weak.1[1].exchange_share(), 0.5);
        assert_eq!(weak.1[1].split.compute_s, 0.625);
    }

    #[test]
    fn grid_overlap_route_and_single_device_records_are_told_apart() {
        let mut overlapped = record(Scaling::Strong, 2, 1.0);
        if let Some(s) = &mut overlapped.scale {
            s.overlap = true;
        }
        let mut shared = record(Scaling::Strong, 2, 1.0);
        if let Some(s) = &mut shared.scale {
            s.halos = Halos::Shared;
        }
        let mut grid = record(Scaling::Strong, 1, 1.0);
        if let Some(s) = &mut grid.scale {
            s.axes = 2;
        }
        let mut single = record(Scaling::Strong, 1, 1.0);
        single.scale = None;
        let c = curves([
            &record(Scaling::Strong, 1, 2.0),
            &overlapped,
            &shared,
            &grid,
            &single,
        ]);
        let keys: Vec<&str> = c.keys().map(|(_, k)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "lbm/step soa f32 L=8",
                "lbm/step soa f32 L=8 grid",
                "lbm/step soa f32 L=8 overlapped",
                "lbm/step soa f32 L=8 shared halos"
            ]
        );
        assert!(c.values().all(|v| v.len() == 1 && v[0].efficiency == 1.0));
    }

    #[test]
    fn the_base_is_the_best_single_gpu_run_of_the_same_work() {
        let mut failed = single("fused", 0.1, Scaling::Strong, 0);
        failed.validation.passed = false;
        let records = [
            record(Scaling::Strong, 1, 4.0),
            record(Scaling::Strong, 2, 2.5),
            record(Scaling::Weak, 2, 1.25),
            single("step", 3.0, Scaling::Strong, 0),
            single("fused", 2.0, Scaling::Strong, 0),
            single("collide", 1.0, Scaling::Strong, 0),
            failed,
        ];
        let c = curves(&records);
        let strong = &c[&(Scaling::Strong, "lbm/step soa f32 L=8".to_string())];
        let base = strong[1].base.as_ref().expect("a base");
        assert_eq!((base.label.as_str(), base.run_s), ("fused soa", 2.0));
        assert_eq!(strong[1].speedup(Scaling::Strong), Some(0.8));
        assert_eq!(strong[1].base_efficiency(Scaling::Strong), Some(0.4));
        assert_eq!(strong[1].ideal_s(Scaling::Strong), Some(1.0));
        assert_eq!(strong[1].precision, Precision::F32);
        assert_eq!(strong[1].efficiency, 0.8);
        // Weak: each rank's share is the base's problem.
        let weak = &c[&(Scaling::Weak, "lbm/step soa f32 L=8".to_string())];
        assert_eq!(weak[0].speedup(Scaling::Weak), Some(2.0 * 2.0 / 1.25));
        assert_eq!(weak[0].ideal_s(Scaling::Weak), Some(2.0));
        // No single-GPU record of a problem: no base.
        let alone = curves(&records[..3]);
        assert!(alone.values().flatten().all(|p| p.base.is_none()));
    }

    #[test]
    fn short_names_drop_the_words_every_curve_shares() {
        let names = [
            "lbm/step soa/vvl1/wg128 f32 L=224".to_string(),
            "milc/cg soa/vvl1/wg128 f64 L=32 T=64".to_string(),
        ];
        let (short, common) = short_names(&names);
        assert_eq!(short, ["lbm/step f32 L=224", "milc/cg f64 L=32 T=64"]);
        assert_eq!(common, "soa/vvl1/wg128");
        let (one, none) = short_names(&names[..1]);
        assert_eq!((one[0].as_str(), none.as_str()), (names[0].as_str(), ""));
    }
}
