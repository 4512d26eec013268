//! The report's HTML tables: devices, a roofline's points, efficiency
//! beside native codes, PP and validation. Each takes what core's
//! roofline, efficiency and portability modules computed; nothing here
//! recomputes a figure.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::roofline::{Mark, app_colour};
use super::svg::esc;
use crate::app::Status;
use crate::efficiency::{Entry, Row};
use crate::portability::{CAPPED, PpTable};
use crate::record::ResultRecord;
use crate::roofline::{MemoryLevel, rating};

/// A cell: its HTML and whether it is a number (right-aligned).
pub struct Cell(pub String, pub bool);

/// Text, escaped.
pub fn text(s: &str) -> Cell {
    Cell(esc(s), false)
}

/// A number, already formatted.
pub fn num(s: String) -> Cell {
    Cell(esc(&s), true)
}

/// A percentage of `x` (a fraction), or empty.
pub fn pct(x: Option<f64>) -> Cell {
    num(x.map(|v| format!("{:.1}%", 100.0 * v)).unwrap_or_default())
}

/// An architectural efficiency cell: its level where not device memory,
/// and past 100% a mark whose tooltip says why.
pub fn arch(fraction: Option<f64>, level: Option<MemoryLevel>) -> Cell {
    let shown = rating::shown(fraction, level, 1);
    if fraction.is_some_and(|f| f > 1.0) {
        Cell(
            format!("<span title=\"{}\">{}</span>", esc(CAPPED), esc(&shown)),
            true,
        )
    } else {
        num(shown)
    }
}

/// An HTML table with header `head`.
pub fn table(head: &[&str], rows: &[Vec<Cell>]) -> String {
    let mut s = String::from("<table><thead><tr>");
    for h in head {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead><tbody>");
    for row in rows {
        s.push_str("<tr>");
        for Cell(html, n) in row {
            let _ = write!(s, "<td{}>{html}</td>", if *n { " class=\"n\"" } else { "" });
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>\n");
    s
}

/// The records of each platform (device and API), native codes' included.
pub fn by_platform(records: &[ResultRecord]) -> BTreeMap<String, Vec<&ResultRecord>> {
    let mut out: BTreeMap<String, Vec<&ResultRecord>> = BTreeMap::new();
    for r in records {
        out.entry(r.platform.label()).or_default().push(r);
    }
    out
}

/// One row per platform: driver, what it ran and how it was timed: the
/// precisions, the timing methods (`gpu-ts` means timestamp queries) and
/// the df64 formulation the self-test chose. What the devices offer is
/// [`offers`]' table.
pub fn devices(records: &[ResultRecord]) -> String {
    let rows: Vec<Vec<Cell>> = by_platform(records)
        .into_iter()
        .map(|(label, recs)| {
            let p = &recs[0].platform;
            let set = |f: &dyn Fn(&ResultRecord) -> String| {
                recs.iter().map(|r| f(r)).collect::<BTreeSet<_>>()
            };
            let join = |s: BTreeSet<String>| s.into_iter().collect::<Vec<_>>().join(", ");
            let natives = set(&|r| {
                r.native.as_ref().map_or_else(
                    || "Skylight".into(),
                    |n| format!("{} ({})", n.code, n.model),
                )
            });
            let code = join(natives);
            let dates = set(&|r| r.date.get(..10).unwrap_or(&r.date).to_string());
            vec![
                text(&label),
                text(&code),
                text(&p.device_type),
                text(&format!("{} {}", p.driver, p.driver_info)),
                text(&join(set(&|r| r.case.precision.to_string()))),
                text(&join(set(&|r| r.timing.name().to_string()))),
                text(p.df64.as_deref().unwrap_or("")),
                num(recs.len().to_string()),
                text(&join(dates)),
            ]
        })
        .collect();
    table(
        &[
            "platform",
            "code",
            "type",
            "driver",
            "precisions",
            "timing",
            "df64 formulation",
            "records",
            "dates",
        ],
        &rows,
    )
}

/// What each device offers that its results depend on, one column per
/// platform whose records hold it (the first of its records that does):
/// the features of those Skylight uses, the limits that decide sizes and
/// splits, and the device's memory ([`crate::gpu::DeviceOffers`]). A
/// note names the Skylight GPU platforms whose records predate it; empty
/// where none hold it (the files of an older Skylight).
pub fn offers(records: &[ResultRecord]) -> String {
    let mut known = Vec::new();
    let mut missing = Vec::new();
    for (label, recs) in by_platform(records) {
        match recs.iter().find_map(|r| r.platform.offers.as_ref()) {
            Some(o) => known.push((label, o)),
            // The CPU platform and the native codes have none.
            None if recs
                .iter()
                .any(|r| r.native.is_none() && r.platform.backend != "cpu") =>
            {
                missing.push(label);
            }
            None => {}
        }
    }
    if known.is_empty() {
        return String::new();
    }
    let limits: Vec<Vec<(&str, String)>> = known.iter().map(|(_, o)| o.limits()).collect();
    let features = known.iter().map(|(_, o)| match o.features.as_slice() {
        [] => text("none"),
        f => text(&f.join(", ")),
    });
    let mut rows = vec![std::iter::once(text("features")).chain(features).collect()];
    // Every device's limits have the same names in the same order.
    for (i, (name, _)) in limits[0].iter().enumerate() {
        let values = limits.iter().map(|l| num(l[i].1.clone()));
        rows.push(std::iter::once(text(name)).chain(values).collect());
    }
    let head: Vec<&str> = std::iter::once("")
        .chain(known.iter().map(|(label, _)| label.as_str()))
        .collect();
    let mut s = table(&head, &rows);
    if !missing.is_empty() {
        let _ = writeln!(
            s,
            "<p class=\"note\">No features and limits recorded for {} (files of an older Skylight).</p>",
            esc(&missing.join(", "))
        );
    }
    s
}

/// The roofline's markers: each app, kernel and precision at its best
/// variant, with its colour swatch.
pub fn marks(marks: &[Mark], apps: &[String]) -> String {
    let rows: Vec<Vec<Cell>> = marks
        .iter()
        .map(|m| {
            let p = &m.point;
            let swatch = format!(
                r#"<span class="sw" style="background:{}"></span>{}"#,
                app_colour(&p.app, apps),
                esc(&p.app)
            );
            vec![
                Cell(swatch, false),
                text(&p.kernel),
                text(&p.precision.to_string()),
                text(&format!("{} (of {})", p.variant, m.variants)),
                num(format!("{:.3}", p.ai)),
                num(format!("{:.2}", p.gflops)),
                num(format!("{:.2}", p.gbps)),
                arch(p.fraction_of_roof, p.level),
            ]
        })
        .collect();
    table(
        &[
            "app",
            "kernel",
            "precision",
            "best variant (of variants run)",
            "FLOP/byte",
            "GFLOP/s",
            "GB/s",
            "of roof",
        ],
        &rows,
    )
}

/// How an efficiency entry's figure reads: GB/s for kernels without
/// FLOPs, else GFLOP/s, with the time.
pub fn figure(app: &str, e: &Entry) -> String {
    if app == "stream" || e.gflops == 0.0 {
        format!("{:.1} GB/s ({:.3} ms)", e.gbps, e.time_s * 1e3)
    } else {
        format!("{:.1} GFLOP/s ({:.3} ms)", e.gflops, e.time_s * 1e3)
    }
}

/// The efficiency rows that have a native code.
pub fn efficiency(rows: &[Row]) -> String {
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .filter_map(|r| {
            let n = r.native.as_ref()?;
            let (sv, sf, sa) = match &r.skylight {
                Some(s) => (
                    s.variant.clone(),
                    figure(&r.app, s),
                    arch(s.architectural, s.level),
                ),
                None => (String::new(), String::new(), num(String::new())),
            };
            let stat = if r.back_to_back {
                format!("{}, back-to-back", r.statistic.name())
            } else {
                r.statistic.name().to_string()
            };
            Some(vec![
                text(&r.device_label()),
                text(&format!("{}/{}", r.app, r.kernel)),
                text(&r.precision.to_string()),
                text(&r.problem),
                text(&format!("{} ({})", n.code, n.variant)),
                num(figure(&r.app, n)),
                text(&sv),
                num(sf),
                pct(r.application),
                sa,
                arch(n.architectural, n.level),
                text(&stat),
            ])
        })
        .collect();
    table(
        &[
            "device",
            "app/kernel",
            "prec",
            "problem",
            "native code (config)",
            "native",
            "Skylight best variant",
            "Skylight",
            "application eff.",
            "arch. eff. Skylight",
            "arch. eff. native",
            "statistic",
        ],
        &cells,
    )
}

/// The PP table (best per platform): each platform's efficiency and the PP.
pub fn pp(table_: &PpTable) -> String {
    let mut head: Vec<String> = vec!["app/kernel".into(), "prec".into()];
    head.extend((1..=table_.platforms.len()).map(|i| format!("P{i}")));
    head.push("PP".into());
    let rows: Vec<Vec<Cell>> = table_
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![
                text(&format!("{}/{}", r.app, r.kernel)),
                text(&r.precision.to_string()),
            ];
            for ((e, why), &capped) in r.efficiency.iter().zip(&r.missing).zip(&r.capped) {
                row.push(match (e, why) {
                    (Some(_), _) if capped => Cell(
                        format!("<span title=\"{}\">{}†</span>", esc(CAPPED), pct(*e).0),
                        true,
                    ),
                    (Some(_), _) => pct(*e),
                    (None, Some(why)) => {
                        Cell(format!("<span title=\"{}\">-</span>", esc(why)), true)
                    }
                    (None, None) => num("-".into()),
                });
            }
            row.push(pct(Some(r.pp)));
            row
        })
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut s = String::from("<p class=\"note\">");
    for (i, p) in table_.platforms.iter().enumerate() {
        let _ = write!(s, "P{} = {}<br>", i + 1, esc(p));
    }
    s.push_str("</p>");
    s + &table(&head, &rows)
}

/// Per platform the count of passed, failed and reference records, then
/// every failure with what its check said.
pub fn validation(records: &[ResultRecord]) -> String {
    let mut counts = Vec::new();
    let mut failed = Vec::new();
    for (label, recs) in by_platform(records) {
        let n = |s: Status| recs.iter().filter(|r| r.validation.status() == s).count();
        counts.push(vec![
            text(&label),
            num(n(Status::Passed).to_string()),
            Cell(n(Status::Failed).to_string(), true),
            num(n(Status::Reference).to_string()),
        ]);
        for r in recs
            .iter()
            .filter(|r| r.validation.status() == Status::Failed)
        {
            failed.push(vec![
                text(&label),
                text(&format!("{}/{}", r.case.app, r.case.kernel)),
                text(&r.case.variant),
                text(&r.case.precision.to_string()),
                Cell(
                    format!("<span class=\"fail\">{}</span>", esc(&r.validation.detail)),
                    false,
                ),
            ]);
        }
    }
    let mut s = table(
        &["platform", "passed", "failed", "reference (not checked)"],
        &counts,
    );
    if failed.is_empty() {
        s.push_str("<p>Every checked record passed validation.</p>\n");
    } else {
        s.push_str("<h3>What failed</h3>\n");
        s.push_str(&table(
            &["platform", "app/kernel", "variant", "precision", "check"],
            &failed,
        ));
    }
    s
}

/// Each scaling curve's points: time of a run, speed-up and efficiency
/// over the single-GPU base where loaded, against the curve's fewest
/// ranks, and the communication's share.
pub fn scaling(curves: &crate::scale::curves::Curves) -> String {
    let mut rows = Vec::new();
    for ((mode, case), points) in curves {
        for p in points {
            rows.push(vec![
                text(mode.name()),
                text(case),
                num(p.ranks.to_string()),
                num(format!("{:.3} ms", p.run_s * 1e3)),
                num(p.speedup(*mode).map_or("-".into(), |s| format!("{s:.2}x"))),
                pct(p.base_efficiency(*mode)),
                pct(Some(p.efficiency)),
                pct(Some(p.comm_share())),
            ]);
        }
    }
    table(
        &[
            "scaling",
            "case",
            "ranks",
            "run",
            "vs one GPU",
            "efficiency",
            "vs fewest ranks",
            "communication",
        ],
        &rows,
    )
}
