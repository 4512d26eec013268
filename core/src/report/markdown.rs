//! The results page in Markdown (BENCHMARKS.md): per reference set its
//! device, a headline table (each kernel's best Skylight variant beside
//! its native code with both efficiencies, or against the roofline where
//! no native code ran), its roofline and scaling charts as SVG files, then
//! the PP across the sets. Pure text: the caller reads the sets and writes
//! the page and its figures, and a test compares them with the committed
//! ones.

use std::fmt::Write;

use super::{apps, marks, roofline_svg, rooflines, scaling_svgs};
use crate::efficiency::{self, Row};
use crate::record::ResultRecord;
use crate::roofline::rating;
use crate::scale::curves;

/// One reference set: a folder of result files.
pub struct Set<'a> {
    /// Its heading (the first line of its README).
    pub title: String,
    /// Its folder as the page links it (from the page's folder).
    pub path: String,
    /// Its records.
    pub records: &'a [ResultRecord],
}

/// The page and the figures it links.
pub struct Page {
    /// The Markdown text.
    pub markdown: String,
    /// (path from the page's folder, SVG text) of each figure.
    pub figures: Vec<(String, String)>,
}

/// The page of `sets`, opening with `intro` (Markdown kept as given),
/// figures under the folder `figures` (from the page's folder).
pub fn page(sets: &[Set], intro: &str, figures: &str) -> Page {
    let mut md = String::from(intro.trim_end());
    md.push_str("\n\n");
    let mut figs = Vec::new();
    md.push_str("| set | device | records |\n|---|---|---:|\n");
    for s in sets {
        // Native records share the device but name their model as backend.
        let own = s.records.iter().find(|r| r.native.is_none());
        let device = own.or(s.records.first()).map(|r| r.platform.label());
        let _ = writeln!(
            md,
            "| [{}](#{}) | {} | {} |",
            s.title,
            anchor(&s.title),
            device.unwrap_or_default(),
            s.records.len()
        );
    }
    for s in sets {
        md.push_str(&set_section(s, figures, &mut figs));
    }
    md.push_str(&portability_section(sets, figures, &mut figs));
    Page {
        markdown: md,
        figures: figs,
    }
}

/// GitHub's anchor of a heading: lower case, spaces to dashes, other
/// punctuation dropped.
fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The last part of a set's folder, naming its figures.
fn slug(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

fn set_section(s: &Set, figures: &str, figs: &mut Vec<(String, String)>) -> String {
    let mut md = format!("\n## {}\n\n", s.title);
    let _ = writeln!(
        md,
        "Files: [`{0}/`]({0}/) (how they were made: [README]({0}/README.md)). Redraw: `skylight report {0} -o report.html`.\n",
        s.path
    );
    let scale_out = s.records.iter().any(|r| r.scale.is_some());
    if scale_out {
        md.push_str(&scaling_table(s.records));
        for (i, chart) in scaling_svgs(s.records).into_iter().enumerate() {
            let file = format!("{figures}/{}-scaling-{}.svg", slug(&s.path), i + 1);
            let _ = writeln!(md, "\n![scaling of {}]({file})", s.title);
            figs.push((file, chart));
        }
        return md;
    }
    let rows = efficiency::rows(s.records);
    if rows.iter().any(|r| r.native.is_some()) {
        md.push_str(&native_table(&rows));
    } else if rooflines(s.records).iter().any(|(_, roof)| roof.is_some()) {
        md.push_str(&roof_table(s.records));
    } else {
        md.push_str(&runs_table(s.records));
    }
    let apps = apps(s.records);
    let roofs: Vec<_> = rooflines(s.records)
        .into_iter()
        .filter_map(|(label, roof)| Some((label, roof?)))
        .collect();
    for (i, (label, roof)) in roofs.iter().enumerate() {
        // A set of one device through two APIs has two rooflines: each its file.
        let n = if i == 0 {
            String::new()
        } else {
            format!("-{}", i + 1)
        };
        let file = format!("{figures}/{}-roofline{n}.svg", slug(&s.path));
        let _ = writeln!(md, "\n![roofline of {label}]({file})");
        figs.push((file, roofline_svg(roof, &marks(roof, false), &apps)));
    }
    md
}

/// A rate to four significant digits at most (no exponent), so a CPU's
/// 0.0123 reads as well as a GPU's 30524.8.
fn sig(x: f64) -> String {
    let digits = if x > 0.0 { x.log10().floor() as i32 } else { 0 };
    let decimals = (3 - digits).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{:.0}%", 100.0 * v))
        .unwrap_or_else(|| "-".into())
}

/// Each kernel's best Skylight variant beside its native code's best, lone
/// runs where the kernel has them (else back-to-back), with both efficiencies.
fn native_table(rows: &[Row]) -> String {
    let mut md = String::from(
        "| app/kernel | prec | problem | native code | Skylight best variant | application eff. | arch. eff. Skylight / native |\n|---|---|---|---|---|---:|---:|\n",
    );
    for r in rows {
        let (Some(n), Some(s)) = (&r.native, &r.skylight) else {
            continue;
        };
        let lone_exists = rows.iter().any(|o| {
            !o.back_to_back
                && o.native.is_some()
                && (&o.app, &o.kernel, o.precision, &o.problem)
                    == (&r.app, &r.kernel, r.precision, &r.problem)
        });
        if r.back_to_back && lone_exists {
            continue;
        }
        let _ = writeln!(
            md,
            "| {}/{} | {} | {} | {} | {} | {} | {} / {} |",
            r.app,
            r.kernel,
            r.precision,
            r.problem,
            n.code,
            s.variant.replace('|', "/"),
            pct(r.application),
            rating::shown(s.architectural, s.level, 0),
            rating::shown(n.architectural, n.level, 0)
        );
    }
    footnote(md)
}

/// `md` with the footnote of `†` when it marks an efficiency past 100%.
fn footnote(mut md: String) -> String {
    if md.contains('†') {
        let _ = writeln!(md, "\n† {}", crate::portability::CAPPED);
    }
    md
}

/// Without native codes: each app and precision's point nearest its roof
/// (the best variant of its best kernel), per device.
fn roof_table(records: &[ResultRecord]) -> String {
    let mut md = String::from(
        "| app | prec | kernel, best variant | GFLOP/s | GB/s | of roof |\n|---|---|---|---:|---:|---:|\n",
    );
    for (_, roof) in rooflines(records) {
        let Some(roof) = roof else { continue };
        let mut best: Vec<crate::report::Mark> = Vec::new();
        for m in marks(&roof, false) {
            let p = &m.point;
            let f = |m: &crate::report::Mark| m.point.fraction_of_roof.unwrap_or(0.0);
            match best
                .iter_mut()
                .find(|b| b.point.app == p.app && b.point.precision == p.precision)
            {
                Some(b) if f(&m) > f(b) => *b = m,
                Some(_) => {}
                None => best.push(m),
            }
        }
        for m in best {
            let p = &m.point;
            let _ = writeln!(
                md,
                "| {} | {} | {} {} | {} | {} | {} |",
                p.app,
                p.precision,
                p.kernel,
                p.variant,
                sig(p.gflops),
                sig(p.gbps),
                rating::shown(p.fraction_of_roof, p.level, 0)
            );
        }
    }
    footnote(md)
}

/// Without a roofline (a set of runs, not of ceilings): every validated
/// run, with where its configuration came from (a tuning cache or the
/// defaults).
fn runs_table(records: &[ResultRecord]) -> String {
    let mut md = String::from(
        "| app/kernel | prec | variant | configuration | median | GFLOP/s | GB/s |\n|---|---|---|---|---:|---:|---:|\n",
    );
    for r in records.iter().filter(|r| r.validation.usable()) {
        let configuration = match &r.tuning {
            crate::record::Tuning::Defaults => "defaults".to_string(),
            crate::record::Tuning::Tuned(entry) => format!("tuned ({entry})"),
        };
        let _ = writeln!(
            md,
            "| {}/{} | {} | {} | {configuration} | {} ms | {} | {} |",
            r.case.app,
            r.case.kernel,
            r.case.precision,
            r.case.variant.replace('|', "/"),
            sig(r.stats.median * 1e3),
            sig(r.gflops),
            sig(r.gbps)
        );
    }
    md
}

/// Each curve's points: time of a run, speed-up and efficiency over the
/// single-GPU base where loaded, and against the curve's fewest ranks.
fn scaling_table(records: &[ResultRecord]) -> String {
    let mut md = String::from(
        "| scaling | case | ranks | run | vs one GPU | efficiency | vs fewest ranks |\n|---|---|---:|---:|---:|---:|---:|\n",
    );
    for ((mode, case), points) in curves::curves(records) {
        for p in points {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.3} ms | {} | {} | {:.0}% |",
                mode.name(),
                case,
                p.ranks,
                p.run_s * 1e3,
                p.speedup(mode).map_or("-".into(), |s| format!("{s:.2}x")),
                pct(p.base_efficiency(mode)),
                100.0 * p.efficiency
            );
        }
    }
    md
}

/// PP over the sets without scale-out runs, per precision over the
/// platforms that ran it: each kernel that ran on two platforms or more
/// (peak's, which define the ceilings, left out), and the cascade sheet.
fn portability_section(sets: &[Set], figures: &str, figs: &mut Vec<(String, String)>) -> String {
    let records: Vec<ResultRecord> = sets
        .iter()
        .filter(|s| s.records.iter().all(|r| r.scale.is_none()))
        .flat_map(|s| s.records.iter().cloned())
        .collect();
    let tables = super::pp_by_precision(&records);
    if tables.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\n## Performance portability\n\nPennycook's PP of each kernel over the platforms above that ran its precision: the harmonic mean of its architectural efficiency (its best variant per platform), 0 where a platform did not run it. Each platform's own roofline is its yardstick, so lavapipe, SwiftShader and the CPU count as much as a GPU. Cascade plots (Sewall et al.): platforms from most to least efficient, the line the PP of each prefix.",
    );
    // One footnote for every table's marks, rather than one a table.
    let capped = tables
        .iter()
        .any(|(_, t)| t.rows.iter().any(|r| r.capped.contains(&true)));
    if capped {
        let _ = write!(md, " † {}.", crate::portability::CAPPED);
    }
    md.push('\n');
    for (p, table) in tables {
        let _ = write!(md, "\n### {p}\n\n");
        for (i, name) in table.platforms.iter().enumerate() {
            let _ = write!(md, "{}P{} = {name}", if i > 0 { "; " } else { "" }, i + 1);
        }
        md.push_str(".\n\n| kernel |");
        for i in 1..=table.platforms.len() {
            let _ = write!(md, " P{i} |");
        }
        md.push_str(" PP |\n|---|");
        md.push_str(&"---:|".repeat(table.platforms.len() + 1));
        md.push('\n');
        let shown = table
            .rows
            .iter()
            .filter(|r| r.app != "peak" && r.efficiency.iter().flatten().count() >= 2);
        // A kernel some platform did not run has PP 0 by definition: its
        // efficiencies go in one line under the table, which stays short.
        let (everywhere, partly): (Vec<_>, Vec<_>) =
            shown.partition(|r| r.efficiency.iter().all(Option::is_some));
        let cells = |r: &crate::portability::PpRow| -> Vec<String> {
            r.efficiency
                .iter()
                .zip(&r.capped)
                .map(|(e, &capped)| format!("{}{}", pct(*e), if capped { "†" } else { "" }))
                .collect()
        };
        for r in &everywhere {
            let _ = writeln!(
                md,
                "| {}/{} | {} | {} |",
                r.app,
                r.kernel,
                cells(r).join(" | "),
                pct(Some(r.pp))
            );
        }
        if !partly.is_empty() {
            let list: Vec<String> = partly
                .iter()
                .map(|r| format!("{}/{} ({})", r.app, r.kernel, cells(r).join(", ")))
                .collect();
            let _ = writeln!(
                md,
                "\nPP 0, not run on every platform (efficiency on P1, P2, ...): {}.",
                list.join("; ")
            );
        }
        let file = format!("{figures}/cascade-{p}.svg");
        let _ = writeln!(md, "\n![cascade plots, {p}]({file})");
        figs.push((file, super::cascade_sheet(&table)));
    }
    md
}
