//! The same problems on several platforms side by side: each platform's
//! best Skylight variant of each problem, and its time over the first
//! platform's. With one GPU through two APIs (Vulkan and GL) that ratio is
//! what the API costs; the efficiencies of [`crate::portability`] instead
//! rate each platform against its own roofline, which the API moves too.
//!
//! Problems are matched as in [`crate::efficiency`]: app, kernel,
//! precision and the problem's parameters, lone runs apart from
//! back-to-back ones ([`crate::efficiency::back_to_back`]); native records are left out.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::Precision;
use crate::efficiency::{ProblemKey, problem_key, rate_text};
use crate::portability::platforms_named;
use crate::record::ResultRecord;

/// One platform's best run of a problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Best {
    /// Its variant.
    pub variant: String,
    /// Its median, seconds.
    pub time_s: f64,
    /// FLOPs over the median, GFLOP/s.
    pub gflops: f64,
    /// Bytes over the median, GB/s.
    pub gbps: f64,
}

/// One problem on every platform of a [`Comparison`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// App.
    pub app: String,
    /// Kernel.
    pub kernel: String,
    /// Arithmetic.
    pub precision: Precision,
    /// The problem's parameters (`L=32`, ...).
    pub problem: String,
    /// Whether the samples are means of back-to-back runs.
    pub back_to_back: bool,
    /// Each platform's best, in the comparison's order (`None`: it did
    /// not run the problem, or nothing of it validated).
    pub best: Vec<Option<Best>>,
    /// Each platform's time over the first platform's (`None` where
    /// either has no time).
    pub ratio: Vec<Option<f64>>,
}

/// Problems over platforms.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Platform labels, the columns; the first is the one others are
    /// measured against.
    pub platforms: Vec<String>,
    /// One row per problem any of them ran.
    pub rows: Vec<Row>,
}

/// The validated Skylight records of `records` on the platforms `wanted`
/// names (substrings of platform labels, all where empty), in the order
/// of the first name each matches, then by label.
pub fn compare(records: &[ResultRecord], wanted: &[String]) -> Comparison {
    let ok: Vec<&ResultRecord> = records
        .iter()
        .filter(|r| r.validation.usable() && r.native.is_none())
        .collect();
    let mut platforms = platforms_named(&ok, wanted);
    platforms.sort_by_key(|p| wanted.iter().position(|w| p.contains(w.as_str())));
    let mut groups: BTreeMap<ProblemKey, Vec<&ResultRecord>> = BTreeMap::new();
    for r in ok {
        if platforms.contains(&r.platform.label()) {
            groups.entry(problem_key(r)).or_default().push(r);
        }
    }
    let rows = groups
        .into_iter()
        .map(|((app, kernel, _, problem, back_to_back), recs)| {
            let best: Vec<Option<Best>> = platforms
                .iter()
                .map(|p| {
                    recs.iter()
                        .filter(|r| r.platform.label() == *p)
                        .min_by(|a, b| a.stats.median.total_cmp(&b.stats.median))
                        .map(|r| Best {
                            variant: r.case.variant.clone(),
                            time_s: r.stats.median,
                            gflops: r.gflops,
                            gbps: r.gbps,
                        })
                })
                .collect();
            let first = best.first().cloned().flatten();
            let ratio = best
                .iter()
                .map(|b| match (b, &first) {
                    (Some(b), Some(f)) if f.time_s > 0.0 => Some(b.time_s / f.time_s),
                    _ => None,
                })
                .collect();
            Row {
                precision: recs[0].case.precision,
                app,
                kernel,
                problem,
                back_to_back,
                best,
                ratio,
            }
        })
        .collect();
    Comparison { platforms, rows }
}

impl Comparison {
    /// The rows as a Markdown table: per platform its best variant's rate
    /// and time, then each other platform's time over the first's.
    pub fn markdown(&self) -> String {
        let others = self.platforms.iter().skip(1);
        let mut head = vec!["app", "kernel", "prec", "problem"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        head.extend(self.platforms.iter().map(|p| format!("{p}: best variant")));
        let first = self.platforms.first().map_or("", String::as_str);
        head.extend(others.map(|p| format!("time {p} / {first}")));
        let mut s = format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len()));
        for r in &self.rows {
            let mut cells = vec![
                r.app.clone(),
                r.kernel.clone(),
                r.precision.to_string(),
                r.problem.clone(),
            ];
            cells.extend(r.best.iter().map(|b| match b {
                Some(b) => format!(
                    "{}{}: {}",
                    b.variant,
                    if r.back_to_back {
                        " (back-to-back)"
                    } else {
                        ""
                    },
                    rate_text(&r.app, b.gflops, b.gbps, b.time_s)
                ),
                None => "did not run".into(),
            }));
            cells.extend(
                r.ratio
                    .iter()
                    .skip(1)
                    .map(|x| x.map(|x| format!("{x:.2}")).unwrap_or_default()),
            );
            s.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Case, Model};
    use crate::fixtures;

    /// A stream triad of `time_s` on `name` through `backend`, variant `variant`.
    fn triad(name: &str, backend: &str, variant: &str, time_s: f64) -> ResultRecord {
        let case = Case::new("stream", "triad", variant, Precision::F32).param("n", 1 << 20);
        let model = Model {
            flops: 2e6,
            bytes: 12e6,
        };
        fixtures::record(case, name, backend, model, vec![time_s])
    }

    /// Each platform's best variant, the named platforms first in the
    /// order named, and the time over the first platform's.
    #[test]
    fn each_platform_best_against_the_first_named() {
        let records = vec![
            triad("H200/PCIe", "gl", "wg256", 3e-3),
            triad("H200/PCIe", "gl", "wg128", 2e-3),
            triad("H200", "vulkan", "wg256", 1e-3),
            triad("H100", "vulkan", "wg256", 5e-3),
        ];
        let c = compare(&records, &["(vulkan)".into(), "(gl)".into()]);
        assert_eq!(
            c.platforms,
            ["H100 (vulkan)", "H200 (vulkan)", "H200/PCIe (gl)"]
        );
        let c = compare(&records, &["H200 (".into(), "(gl)".into()]);
        assert_eq!(c.platforms, ["H200 (vulkan)", "H200/PCIe (gl)"]);
        assert_eq!(c.rows.len(), 1);
        let row = &c.rows[0];
        let gl = row.best[1].as_ref().expect("GL's best");
        assert_eq!((gl.variant.as_str(), gl.time_s), ("wg128", 2e-3));
        assert_eq!(row.ratio, [Some(1.0), Some(2.0)]);
        let md = c.markdown();
        assert!(
            md.contains("| time H200/PCIe (gl) / H200 (vulkan) |"),
            "{md}"
        );
        assert!(
            md.contains("| n=1048576 | wg256: 12.0 GB/s (1.000 ms) |"),
            "{md}"
        );
        assert!(md.contains("| wg128: 6.0 GB/s (2.000 ms) | 2.00 |"), "{md}");
    }

    /// lavapipe and llvmpipe share a name: their backends keep them apart.
    #[test]
    fn one_name_through_two_backends_is_two_platforms() {
        let records = vec![
            triad("llvmpipe", "vulkan", "wg256", 1e-3),
            triad("llvmpipe", "gl", "wg256", 3e-3),
        ];
        let c = compare(&records, &["(vulkan)".into(), "(gl)".into()]);
        assert_eq!(c.platforms, ["llvmpipe (vulkan)", "llvmpipe (gl)"]);
        assert_eq!(c.rows[0].ratio, [Some(1.0), Some(3.0)]);
    }

    /// A problem one platform did not run has no time and no ratio there.
    #[test]
    fn a_problem_missing_on_a_platform_has_no_ratio() {
        let mut other = triad("H200/PCIe", "gl", "wg256", 2e-3);
        other.case.kernel = "copy".into();
        let records = vec![triad("H200", "vulkan", "wg256", 1e-3), other];
        let c = compare(&records, &["(vulkan)".into(), "(gl)".into()]);
        assert_eq!(c.rows.len(), 2);
        let copy = c.rows.iter().find(|r| r.kernel == "copy").expect("copy");
        assert_eq!(copy.best[0], None);
        assert_eq!(copy.ratio, [None, None]);
    }
}
