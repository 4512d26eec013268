//! Architectural efficiency: a record's rate over what the roofline allows
//! at the memory level its working set lives in, so that a kernel whose
//! data sit in L1 is rated against L1's bandwidth rather than device
//! memory's. A rate above its ceiling is never shown bare: the rating
//! carries a note saying why, and Pennycook's PP counts it as 1
//! ([`crate::portability::CAPPED`]).

use super::{MemoryLevel, Roofline, size_label};
use crate::record::ResultRecord;

/// A record's architectural efficiency.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// Achieved over attainable at `level` (above 1 only with `note`).
    pub fraction: f64,
    /// The level whose bandwidth it is rated against.
    pub level: MemoryLevel,
    /// Why the fraction passes 1, when it does.
    pub note: Option<String>,
}

/// An architectural efficiency as tables show it, to `decimals` places:
/// `87.4%`, with its level where that is not device memory (`87.4% L1`),
/// and marked `†` past 100% (the tables' footnote is
/// [`crate::portability::CAPPED`]'s reason).
pub fn shown(fraction: Option<f64>, level: Option<MemoryLevel>, decimals: usize) -> String {
    let Some(f) = fraction else {
        return String::new();
    };
    let mark = if f > 1.0 { "†" } else { "" };
    match level {
        Some(l) if l != MemoryLevel::Dram => format!("{:.decimals$}%{mark} {l}", 100.0 * f),
        _ => format!("{:.decimals$}%{mark}", 100.0 * f),
    }
}

/// Whether `r` is rated against the roofline at its arithmetic intensity,
/// so against a compute ceiling of its precision, rather than against a
/// bandwidth ceiling alone (stream and kernels that count no FLOPs).
pub fn rated_by_compute(r: &ResultRecord) -> bool {
    r.model.flops > 0.0 && r.case.app != "stream"
}

/// `r`'s rating on `roof` (its own platform's), from the record's own
/// rates; `None` where the roofline lacks the ceiling it needs (the FMA
/// peak of its precision).
pub fn rate(roof: &Roofline, r: &ResultRecord) -> Option<Rating> {
    let (level, bw) = roof
        .bandwidth_at(r.working_set())
        .filter(|&(_, b)| b > 0.0)?;
    let fraction = if rated_by_compute(r) {
        let peak = roof.compute_peak(r.case.precision)?;
        r.gflops / peak.min(r.arithmetic_intensity * bw)
    } else {
        r.gbps / bw
    };
    let note = (fraction > 1.0).then(|| {
        format!(
            "{:.0}% of the {level} roof ({bw:.0} GB/s measured): its data sit in a faster level than a {} working set suggests, or it moves fewer bytes than its model counts",
            fraction * 100.0,
            size_label(r.working_set())
        )
    });
    Some(Rating {
        fraction,
        level,
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Precision;
    use crate::app::{Case, Model};
    use crate::fixtures;
    use crate::roofline::Ceiling;

    fn level(level: MemoryLevel, gbps: f64, hi: f64) -> Ceiling {
        let mut c = Ceiling::new(level.name(), gbps, None);
        c.level = Some(level);
        c.working_set = (level != MemoryLevel::Dram).then_some([16384.0, hi]);
        c
    }

    fn roof() -> Roofline {
        let r = record(1.0, 0.0, 1.0);
        Roofline {
            platform: r.platform,
            bandwidth: vec![
                level(MemoryLevel::Dram, 100.0, 0.0),
                level(MemoryLevel::L1, 1000.0, 65536.0),
                level(MemoryLevel::L2, 400.0, 8e6),
            ],
            compute: vec![Ceiling::new("f32", 1000.0, Some(Precision::F32))],
            points: vec![],
            sweep: vec![],
        }
    }

    fn record(bytes: f64, flops: f64, t: f64) -> ResultRecord {
        let case = Case::new("x", "k", "v", Precision::F32);
        fixtures::record(case, "d", "vulkan", Model { flops, bytes }, vec![t])
    }

    #[test]
    fn the_working_set_picks_the_level() {
        let roof = roof();
        assert_eq!(roof.level_of(32768.0), MemoryLevel::L1);
        assert_eq!(roof.level_of(1e6), MemoryLevel::L2);
        assert_eq!(roof.level_of(1e9), MemoryLevel::Dram);
        // 32 KiB at 800 GB/s: 80% of L1, where against DRAM it would be 800%.
        let r = rate(&roof, &record(32768.0, 0.0, 32768.0 / 800e9)).expect("rated");
        assert_eq!(r.level, MemoryLevel::L1);
        assert!((r.fraction - 0.8).abs() < 1e-9 && r.note.is_none());
    }

    #[test]
    fn a_level_that_slows_as_it_fills_rates_small_sets_against_their_own_speed() {
        let mut roof = roof();
        // L2 reaches 800 GB/s at 128 KiB, 400 at 8 MB.
        roof.sweep = vec![
            [16384.0, 1000.0],
            [131072.0, 800.0],
            [8e6, 400.0],
            [1e9, 100.0],
        ];
        assert_eq!(roof.bandwidth_at(100_000.0), Some((MemoryLevel::L2, 800.0)));
        assert_eq!(roof.bandwidth_at(4e6), Some((MemoryLevel::L2, 400.0)));
        assert_eq!(roof.bandwidth_at(2e9), Some((MemoryLevel::Dram, 100.0)));
        let r = rate(&roof, &record(100_000.0, 0.0, 100_000.0 / 720e9)).expect("rated");
        assert!((r.fraction - 0.9).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn over_the_roof_is_noted() {
        let roof = roof();
        let r = rate(&roof, &record(1e9, 0.0, 1e9 / 150e9)).expect("rated");
        assert_eq!(r.level, MemoryLevel::Dram);
        assert!((r.fraction - 1.5).abs() < 1e-9);
        assert!(
            r.note
                .as_deref()
                .is_some_and(|n| n.contains("150% of the DRAM roof"))
        );
    }

    #[test]
    fn shown_names_the_level_and_marks_over_100() {
        assert_eq!(shown(Some(0.874), Some(MemoryLevel::L1), 1), "87.4% L1");
        assert_eq!(shown(Some(0.874), Some(MemoryLevel::Dram), 0), "87%");
        assert_eq!(shown(Some(1.12), None, 0), "112%†");
        assert_eq!(shown(None, None, 0), "");
    }

    #[test]
    fn compute_bound_kernels_meet_the_flat_roof() {
        let roof = roof();
        // 100 FLOP/B from L2: the roof is the 1000 GFLOP/s peak.
        let r = rate(&roof, &record(1e6, 1e8, 1e8 / 500e9)).expect("rated");
        assert_eq!(r.level, MemoryLevel::L2);
        assert!((r.fraction - 0.5).abs() < 1e-9);
        let f64_record = {
            let mut x = record(1e6, 1e8, 1.0);
            x.case.precision = Precision::F64;
            x
        };
        assert!(rate(&roof, &f64_record).is_none());
    }
}
