//! Scaling curves: the scale-out records of one case (one record per rank
//! count, as `mpirun -np N skylight run ... --json` writes them) put in
//! order of ranks, with their parallel efficiency. `skylight scaling`
//! prints and draws them; the desktop's Scaling view plots them. Pure data
//! (no files, no threads), so the browser build has it too.

use std::collections::BTreeMap;

use super::{PhaseTimes, ScaleOut, Scaling};
use crate::record::ResultRecord;

/// One point of a scaling curve.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Ranks.
    pub ranks: usize,
    /// Median time of one run, seconds.
    pub run_s: f64,
    /// Of which pack, transfer and exchange (the decomposition's cost), seconds.
    pub comm_s: f64,
    /// Of which the exchange between ranks alone, seconds.
    pub exchange_s: f64,
    /// Parallel efficiency against the fewest ranks of the curve: T1 N1 /
    /// (TN N) for strong scaling, T1 / TN for weak.
    pub efficiency: f64,
    /// Where the time of one run went (means, the slowest rank's), as
    /// the record has it.
    pub split: PhaseTimes,
}

impl Point {
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
        "{}/{} {} {} L={}{t}{}{}",
        c.app,
        c.kernel,
        c.variant,
        c.precision,
        c.text("L"),
        if s.axes > 1 { " grid" } else { "" },
        if s.overlap { " overlapped" } else { "" }
    )
}

/// Groups scale-out records into curves, sorted by ranks; single-device
/// records are left out.
pub fn curves<'a>(records: impl IntoIterator<Item = &'a ResultRecord>) -> Curves {
    let mut out: Curves = BTreeMap::new();
    for r in records {
        let Some(s) = &r.scale else { continue };
        out.entry((s.scaling, case_key(r, s)))
            .or_default()
            .push(Point {
                ranks: s.ranks,
                run_s: r.stats.median,
                comm_s: s.split.communication(),
                exchange_s: s.split.exchange_s,
                efficiency: 0.0,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Precision;
    use crate::app::{Case, Model, Validation};
    use crate::runner::cpu_platform;
    use crate::scale::Decomposition;
    use crate::timing::TimingMethod;

    fn record(scaling: Scaling, ranks: usize, run_s: f64) -> ResultRecord {
        let case = Case::new("lbm", "step", "soa", Precision::F32).param("L", 8);
        let mut r = ResultRecord::new(
            case,
            cpu_platform(),
            TimingMethod::WallClock,
            vec![run_s],
            Model::default(),
            Validation::fail(String::new()),
            BTreeMap::new(),
        );
        let global = scaling.global([8, 8, 8], ranks);
        r.scale = Some(ScaleOut {
            ranks,
            scaling,
            overlap: false,
            axes: 1,
            decomposition: Decomposition::plan("z", &global, ranks, 1).expect("plan"),
            split: PhaseTimes::from_array([run_s / 2.0, 0.0, 0.0, run_s / 2.0, 0.0]),
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
    fn grid_overlap_and_single_device_records_are_told_apart() {
        let mut overlapped = record(Scaling::Strong, 2, 1.0);
        if let Some(s) = &mut overlapped.scale {
            s.overlap = true;
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
            &grid,
            &single,
        ]);
        let keys: Vec<&str> = c.keys().map(|(_, k)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "lbm/step soa f32 L=8",
                "lbm/step soa f32 L=8 grid",
                "lbm/step soa f32 L=8 overlapped"
            ]
        );
        assert!(c.values().all(|v| v.len() == 1 && v[0].efficiency == 1.0));
    }
}
