//! Performance portability: Pennycook's PP of each app over a set of
//! platforms (Pennycook, Sewall and Lee, 2016), with two efficiencies:
//!
//! - **architectural**: the rate over what the platform's measured roofline
//!   allows at the kernel's arithmetic intensity (bandwidth alone for
//!   kernels without FLOPs);
//! - **application**: the best known time of the same problem on that
//!   platform's device (its native baseline when one is loaded, else
//!   Skylight's best variant there) over the time.
//!
//! `PP = |H| / sum_i 1/e_i` over the platforms `H`, and 0 when a platform in
//! `H` did not run the case (each such platform is named with the reason).
//! A platform is a device and its API (`NVIDIA H100 80GB HBM3 (vulkan)`);
//! native records are references, never platforms. Each platform is
//! represented by the largest problem it ran of each kernel (platforms run
//! different sizes: a CPU runs `small`), since both efficiencies are
//! relative to that platform's own ceiling or best.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::Precision;
use crate::efficiency::{back_to_back, problem_of};
use crate::native::Statistic;
use crate::record::ResultRecord;
use crate::roofline::{Roofline, rating};

/// Which efficiency the PP is built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// Against the platform's measured roofline.
    Architectural,
    /// Against the best known time on the platform.
    Application,
}

/// Why an efficiency shown as 100% with a mark was over 100%.
pub const CAPPED: &str = "over 100% of the roof of its memory level, counted as 100%: its data sit in a faster level than its working set suggests, or it moves fewer bytes than its model counts";

/// The row label of each kernel's per-platform best variant.
pub const BEST: &str = "best per platform";

/// One code (a variant, or the best per platform) over the platforms.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PpRow {
    /// App.
    pub app: String,
    /// Kernel.
    pub kernel: String,
    /// Arithmetic.
    pub precision: Precision,
    /// The variant label, or [`BEST`].
    pub variant: String,
    /// Efficiency on each platform of the table, in its order.
    pub efficiency: Vec<Option<f64>>,
    /// Why a platform has no efficiency (`None` where it has one).
    pub missing: Vec<Option<String>>,
    /// Where a platform's rate passed its roof: its efficiency is counted
    /// as 1 ([`CAPPED`] says why).
    pub capped: Vec<bool>,
    /// Pennycook's PP over the platforms.
    pub pp: f64,
}

impl PpRow {
    /// The platforms that ran this code, most efficient first, as
    /// (platform index, efficiency): the order of Pennycook's cascade.
    pub fn ranked(&self) -> Vec<(usize, f64)> {
        let mut ran: Vec<(usize, f64)> = self
            .efficiency
            .iter()
            .enumerate()
            .filter_map(|(p, e)| e.map(|e| (p, e)))
            .collect();
        ran.sort_by(|a, b| b.1.total_cmp(&a.1));
        ran
    }

    /// Its cascade over `n` platforms: the PP of the first k of
    /// [`ranked`](Self::ranked) for k = 1 to `n`; a platform that did not
    /// run the code makes the PP 0 from there.
    pub fn cascade(&self, n: usize) -> Vec<f64> {
        let ran = self.ranked();
        (1..=n)
            .map(|k| {
                let prefix: Vec<Option<f64>> = (0..k).map(|j| ran.get(j).map(|r| r.1)).collect();
                pp(&prefix)
            })
            .collect()
    }
}

/// PP rows over a platform set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PpTable {
    /// The efficiency used.
    pub basis: Basis,
    /// Platform labels, the columns.
    pub platforms: Vec<String>,
    /// One row per app, kernel, precision and variant.
    pub rows: Vec<PpRow>,
}

/// Pennycook's harmonic mean; 0 when any platform has no (or no positive)
/// efficiency.
pub fn pp(efficiencies: &[Option<f64>]) -> f64 {
    if efficiencies.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    for e in efficiencies {
        match e {
            Some(e) if *e > 0.0 => sum += 1.0 / e,
            _ => return 0.0,
        }
    }
    efficiencies.len() as f64 / sum
}

/// The PP of every kernel's best per platform (and of every variant when
/// `variants`), over `platforms` (every platform in `records` when empty;
/// a name matches a platform label containing it).
pub fn table(
    records: &[ResultRecord],
    basis: Basis,
    platforms: &[String],
    variants: bool,
) -> PpTable {
    let ok: Vec<&ResultRecord> = records.iter().filter(|r| r.validation.usable()).collect();
    let chosen = platforms_named(&ok, platforms);
    let roofs = roofs(&ok);
    // (app, kernel, precision) -> platform -> records of its largest problem.
    let mut groups: BTreeMap<(String, String, Precision), BTreeMap<String, Vec<&ResultRecord>>> =
        BTreeMap::new();
    for r in ok.iter().filter(|r| r.native.is_none()) {
        let label = r.platform.label();
        if chosen.contains(&label) {
            groups
                .entry((r.case.app.clone(), r.case.kernel.clone(), r.case.precision))
                .or_default()
                .entry(label)
                .or_default()
                .push(r);
        }
    }
    let mut rows = Vec::new();
    for ((app, kernel, precision), per_platform) in groups {
        let largest: BTreeMap<String, Vec<&ResultRecord>> = per_platform
            .into_iter()
            .map(|(p, recs)| (p, largest_problem(recs)))
            .collect();
        let effs: BTreeMap<String, Vec<(String, f64)>> = largest
            .iter()
            .map(|(p, recs)| {
                let e = recs
                    .iter()
                    .filter_map(|r| {
                        efficiency(r, basis, &ok, &roofs).map(|e| (r.case.variant.clone(), e))
                    })
                    .collect();
                (p.clone(), e)
            })
            .collect();
        let mut labels = vec![BEST.to_string()];
        if variants {
            let seen: BTreeSet<String> = effs
                .values()
                .flat_map(|v| v.iter().map(|(n, _)| n.clone()))
                .collect();
            labels.extend(seen);
        }
        for variant in labels {
            let (raw, missing): (Vec<_>, Vec<_>) = chosen
                .iter()
                .map(|p| cell(&variant, p, &largest, &effs, basis, precision))
                .unzip();
            let capped: Vec<bool> = raw
                .iter()
                .map(|e| basis == Basis::Architectural && e.is_some_and(|e| e > 1.0))
                .collect();
            let efficiency: Vec<Option<f64>> = raw
                .iter()
                .zip(&capped)
                .map(|(e, &c)| if c { Some(1.0) } else { *e })
                .collect();
            rows.push(PpRow {
                app: app.clone(),
                kernel: kernel.clone(),
                precision,
                pp: pp(&efficiency),
                variant,
                efficiency,
                missing,
                capped,
            });
        }
    }
    PpTable {
        basis,
        platforms: chosen,
        rows,
    }
}

/// The labels of the platforms of `records`' Skylight runs (native
/// records are no platform) that `wanted` names, each a substring of a
/// label (every platform where empty), in label order.
pub fn platforms_named(records: &[&ResultRecord], wanted: &[String]) -> Vec<String> {
    let all: BTreeSet<String> = records
        .iter()
        .filter(|r| r.native.is_none())
        .map(|r| r.platform.label())
        .collect();
    all.into_iter()
        .filter(|p| wanted.is_empty() || wanted.iter().any(|w| p.contains(w.as_str())))
        .collect()
}

/// The configuration a PP row describes (`skylight pp --config`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Config {
    /// One configuration on every platform: the variant whose PP over
    /// them is highest.
    Portable,
    /// Each platform's own best (what `skylight tune` finds for it).
    Tuned,
}

/// `table` (made with its variants) as one row per app, kernel, precision
/// and configuration of `configs`, in that order: the portable row names
/// its variant (`portable: aosoa-32/vvl1/wg512`), the tuned row is each
/// platform's best.
pub fn by_config(table: &PpTable, configs: &[Config]) -> PpTable {
    let mut rows: Vec<PpRow> = Vec::new();
    let mut groups: Vec<(&str, &str, Precision)> = Vec::new();
    for r in &table.rows {
        let key = (r.app.as_str(), r.kernel.as_str(), r.precision);
        if !groups.contains(&key) {
            groups.push(key);
        }
    }
    for (app, kernel, precision) in groups {
        let group: Vec<&PpRow> = table
            .rows
            .iter()
            .filter(|r| r.app == app && r.kernel == kernel && r.precision == precision)
            .collect();
        for config in configs {
            let (pick, label) = match config {
                Config::Portable => {
                    let ran = |r: &PpRow| r.efficiency.iter().flatten().count();
                    let best = group
                        .iter()
                        .filter(|r| r.variant != BEST)
                        .max_by(|a, b| a.pp.total_cmp(&b.pp).then(ran(a).cmp(&ran(b))));
                    (best, "portable: ")
                }
                Config::Tuned => (group.iter().find(|r| r.variant == BEST), "tuned: "),
            };
            if let Some(r) = pick {
                rows.push(PpRow {
                    variant: format!("{label}{}", r.variant),
                    ..(*r).clone()
                });
            }
        }
    }
    PpTable {
        basis: table.basis,
        platforms: table.platforms.clone(),
        rows,
    }
}

/// One platform's efficiency of `variant`, or why there is none.
fn cell(
    variant: &str,
    platform: &str,
    largest: &BTreeMap<String, Vec<&ResultRecord>>,
    effs: &BTreeMap<String, Vec<(String, f64)>>,
    basis: Basis,
    precision: Precision,
) -> (Option<f64>, Option<String>) {
    let Some(recs) = largest.get(platform) else {
        return (None, Some(format!("no validated {precision} run")));
    };
    let found = effs.get(platform).and_then(|e| {
        if variant == BEST {
            e.iter().map(|(_, x)| *x).max_by(f64::total_cmp)
        } else {
            e.iter().find(|(n, _)| n == variant).map(|(_, x)| *x)
        }
    });
    match found {
        Some(e) => (Some(e), None),
        None if basis == Basis::Architectural && !recs.is_empty() && variant == BEST => {
            (None, Some("no measured roofline (stream and peak)".into()))
        }
        None => (None, Some("variant not run".into())),
    }
}

/// The records of the problem with the most bytes.
fn largest_problem(recs: Vec<&ResultRecord>) -> Vec<&ResultRecord> {
    let top = recs
        .iter()
        .max_by(|a, b| a.model.bytes.total_cmp(&b.model.bytes))
        .map(|r| problem_of(r));
    recs.into_iter()
        .filter(|r| Some(problem_of(r)) == top)
        .collect()
}

fn roofs(ok: &[&ResultRecord]) -> BTreeMap<String, Roofline> {
    let mut by: BTreeMap<String, Vec<ResultRecord>> = BTreeMap::new();
    for r in ok.iter().filter(|r| r.native.is_none()) {
        by.entry(r.platform.label()).or_default().push((*r).clone());
    }
    by.into_iter()
        .filter_map(|(p, recs)| Roofline::from_records(&recs).map(|roof| (p, roof)))
        .collect()
}

/// `r`'s efficiency on its platform.
fn efficiency(
    r: &ResultRecord,
    basis: Basis,
    ok: &[&ResultRecord],
    roofs: &BTreeMap<String, Roofline>,
) -> Option<f64> {
    match basis {
        Basis::Architectural => {
            let roof = roofs.get(&r.platform.label())?;
            rating::rate(roof, r).map(|x| x.fraction)
        }
        Basis::Application => {
            let same = |o: &&&ResultRecord| {
                o.platform.name == r.platform.name
                    && o.case.app == r.case.app
                    && o.case.kernel == r.case.kernel
                    && o.case.precision == r.case.precision
                    && problem_of(o) == problem_of(r)
                    // A lone run holds the start and drain that back-to-back
                    // runs share out, so each is set only against its kind.
                    && back_to_back(o) == back_to_back(r)
            };
            // The best known includes the native code, timed by its own
            // statistic, so Skylight's times use the same one.
            let stat = ok
                .iter()
                .filter(same)
                .find_map(|o| o.native.as_ref().map(|n| n.statistic))
                .unwrap_or(Statistic::Median);
            let best = ok
                .iter()
                .filter(same)
                .filter(|o| o.native.is_some() || o.platform.backend == r.platform.backend)
                .map(|o| stat.of(&o.stats))
                .fold(f64::INFINITY, f64::min);
            let t = stat.of(&r.stats);
            (t > 0.0 && best.is_finite()).then(|| best / t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Case, Model};
    use crate::fixtures;

    fn rec(device: &str, backend: &str, app: &str, variant: &str, n: u64, t: f64) -> ResultRecord {
        let kernel = if app == "peak" { "fma" } else { "copy" };
        let case = Case::new(app, kernel, variant, Precision::F32).param("n", n);
        let flops = if app == "peak" { 1e9 } else { 0.0 };
        let model = Model {
            flops,
            bytes: n as f64,
        };
        fixtures::record(case, device, backend, model, vec![t])
    }

    /// `r` as a native code's record (its median the figure).
    fn native_rec(mut r: ResultRecord) -> ResultRecord {
        r.native = Some(fixtures::native_source("c", false, Statistic::Median));
        r
    }

    #[test]
    fn pp_is_the_harmonic_mean_and_zero_when_a_platform_is_missing() {
        assert!((pp(&[Some(0.5), Some(1.0)]) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(pp(&[Some(0.5), None]), 0.0);
        assert_eq!(pp(&[Some(0.5), Some(0.0)]), 0.0);
        assert_eq!(pp(&[]), 0.0);
    }

    /// A cascade ranks the platforms that ran, most efficient first, and
    /// falls to 0 at the first that did not.
    #[test]
    fn cascade_is_the_pp_of_each_prefix_of_the_ranked_platforms() {
        let row = PpRow {
            app: "a".into(),
            kernel: "k".into(),
            precision: Precision::F32,
            variant: BEST.into(),
            efficiency: vec![Some(0.5), None, Some(1.0)],
            missing: vec![None, Some("no run".into()), None],
            capped: vec![false; 3],
            pp: 0.0,
        };
        assert_eq!(row.ranked(), vec![(2, 1.0), (0, 0.5)]);
        let c = row.cascade(3);
        assert_eq!(c.len(), 3);
        assert_eq!((c[0], c[2]), (1.0, 0.0));
        assert!((c[1] - 2.0 / 3.0).abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn each_platform_is_rated_against_its_own_best_and_roof() {
        let native = native_rec(rec("A", "cuda", "stream", "cuda/x", 1000, 0.5));
        let recs = vec![
            rec("A", "vulkan", "stream", "v1", 1000, 1.0),
            rec("A", "vulkan", "stream", "v2", 1000, 2.0),
            rec("A", "vulkan", "stream", "v1", 10, 0.001),
            native,
            rec("B", "vulkan", "stream", "v1", 100, 4.0),
            rec("B", "vulkan", "stream", "v2", 100, 1.0),
            rec("B", "vulkan", "peak", "p", 100, 1.0),
        ];
        let t = table(&recs, Basis::Application, &[], true);
        assert_eq!(t.platforms, vec!["A (vulkan)", "B (vulkan)"]);
        let row = |v: &str| {
            t.rows
                .iter()
                .find(|r| r.app == "stream" && r.variant == v)
                .cloned()
        };
        // On A the native code (0.5 s) is the best known; on B variant v2.
        let best = row(BEST).map(|r| r.efficiency);
        assert_eq!(best, Some(vec![Some(0.5), Some(1.0)]));
        let v1 = row("v1").map(|r| r.pp).unwrap_or(-1.0);
        assert!((v1 - 2.0 / (2.0 + 4.0)).abs() < 1e-12, "{v1}");
        // Peak ran on B only: its PP over both platforms is 0, and A says why.
        let peak = t.rows.iter().find(|r| r.app == "peak").cloned();
        assert_eq!(peak.as_ref().map(|r| r.pp), Some(0.0));
        assert!(peak.and_then(|r| r.missing[0].clone()).is_some());
        let only_b = table(&recs, Basis::Architectural, &["B".to_string()], false);
        assert_eq!(only_b.platforms, vec!["B (vulkan)"]);
        let arch = only_b
            .rows
            .iter()
            .find(|r| r.app == "stream")
            .map(|r| r.efficiency.clone());
        assert_eq!(arch, Some(vec![Some(1.0)]));
    }

    #[test]
    fn the_portable_configuration_is_the_variant_with_the_best_pp() {
        let recs = vec![
            rec("A", "vulkan", "stream", "v1", 100, 1.0),
            rec("A", "vulkan", "stream", "v2", 100, 2.0),
            rec("B", "vulkan", "stream", "v1", 100, 4.0),
            rec("B", "vulkan", "stream", "v2", 100, 1.0),
        ];
        let t = table(&recs, Basis::Application, &[], true);
        let both = by_config(&t, &[Config::Portable, Config::Tuned]);
        let rows: Vec<(String, f64)> = both
            .rows
            .iter()
            .map(|r| (r.variant.clone(), r.pp))
            .collect();
        assert_eq!(rows.len(), 2);
        // v1: 2 / (1 + 4); v2: 2 / (2 + 1); each platform's best: 1.
        assert_eq!(rows[0].0, "portable: v2");
        assert!((rows[0].1 - 2.0 / 3.0).abs() < 1e-12, "{rows:?}");
        assert_eq!(rows[1], (format!("tuned: {BEST}"), 1.0));
    }

    #[test]
    fn runs_are_rated_only_against_runs_timed_alike() {
        let native = native_rec(rec("A", "cuda", "stream", "cuda/x", 1000, 0.5));
        let mut looped = rec("A", "vulkan", "stream", "v2", 1000, 0.4);
        looped.runs_per_sample = 20;
        let recs = vec![
            rec("A", "vulkan", "stream", "v1", 1000, 1.0),
            looped,
            native,
        ];
        let t = table(&recs, Basis::Application, &[], true);
        let eff = |v: &str| {
            t.rows
                .iter()
                .find(|r| r.variant == v)
                .map(|r| r.efficiency.clone())
        };
        // v1 (lone) against the lone native run; v2 (20 a sample) has no
        // native run of its kind, so it is its own best.
        assert_eq!(eff("v1"), Some(vec![Some(0.5)]));
        assert_eq!(eff("v2"), Some(vec![Some(1.0)]));
    }
}
