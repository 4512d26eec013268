//! The results report: one self-contained HTML page (inline SVG and CSS,
//! no script, nothing fetched) of any set of result records: the devices
//! with their drivers, features and limits, each device's roofline, the efficiency beside
//! native codes, Pennycook's PP with its cascade plot, scaling curves and
//! the validation summary. Pure string building from records (no files),
//! so the CLI, the desktop app and the web page export the same page; the
//! figures come from [`crate::roofline`], [`crate::efficiency`],
//! [`crate::portability`] and [`crate::scale::curves`].

mod cascade;
pub mod markdown;
mod roofline;
mod scaling;
mod svg;
mod tables;

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::Precision;
use crate::efficiency;
use crate::portability::{self, Basis};
use crate::record::ResultRecord;
use crate::roofline::Roofline;
use crate::scale::curves;

pub use cascade::series as cascade_series;
pub use roofline::{
    CeilingKind, CeilingLine, Edge, Key, Mark, Plan, app_colour, marks, plan, roof_dash,
};
pub use scaling::{Lines as ScalingLines, STYLE_TEXTS as SCALING_STYLES, axes as scaling_axes};
pub use svg::{Axis, color, spread};

/// What the page says beside the records.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The page's heading.
    pub title: String,
    /// Every variant on the rooflines, not only each kernel's best.
    pub all_variants: bool,
    /// Lines shown under the heading: where the records came from, files
    /// skipped and why.
    pub notes: Vec<String>,
}

/// The apps of `records` in name order: a chart's colour of an app is its
/// place here, so an app has one colour over the whole page.
pub fn apps(records: &[ResultRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| r.case.app.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The roofline of each platform's validated Skylight records (native
/// records define no ceiling), in platform order; platforms without a
/// bandwidth run have none.
pub fn rooflines(records: &[ResultRecord]) -> Vec<(String, Option<Roofline>)> {
    tables::by_platform(records)
        .into_iter()
        .filter(|(_, recs)| recs.iter().any(|r| r.native.is_none()))
        .map(|(label, recs)| {
            let own: Vec<ResultRecord> = recs
                .into_iter()
                .filter(|r| r.native.is_none())
                .cloned()
                .collect();
            (label, Roofline::from_records(&own))
        })
        .collect()
}

/// The SVG roofline chart of `roof` with `marks` (see [`marks`]); `apps`
/// (see [`apps`]) picks the colours.
pub fn roofline_svg(roof: &Roofline, marks: &[Mark], apps: &[String]) -> String {
    roofline::chart(roof, marks, apps)
}

/// The cascade charts of `table`: (app, SVG) per app.
pub fn cascade_svgs(table: &portability::PpTable) -> Vec<(String, String)> {
    cascade::charts(table)
}

/// All of `table`'s cascade charts on one SVG sheet, three to a row.
pub fn cascade_sheet(table: &portability::PpTable) -> String {
    cascade::sheet(table, 3)
}

/// The PP of each precision over the platforms that ran it (a platform
/// without f64, such as the browser, would make every f64 PP 0 otherwise):
/// architectural efficiency, each kernel's best variant per platform.
pub fn pp_by_precision(records: &[ResultRecord]) -> Vec<(Precision, portability::PpTable)> {
    Precision::ALL
        .into_iter()
        .filter_map(|p| {
            let mine: Vec<ResultRecord> = records
                .iter()
                .filter(|r| r.case.precision == p)
                .cloned()
                .collect();
            let table = portability::table(&mine, Basis::Architectural, &[], false);
            (!table.rows.is_empty()).then_some((p, table))
        })
        .collect()
}

/// The scaling charts of `records`' scale-out runs, one SVG per mode.
pub fn scaling_svgs(records: &[ResultRecord]) -> Vec<String> {
    scaling::charts(&curves::curves(records))
}

/// The whole page.
pub fn html(records: &[ResultRecord], opts: &Options) -> String {
    let apps = apps(records);
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{0}</title><style>{1}</style></head><body>\n<h1>{0}</h1>\n",
        svg::esc(&opts.title),
        svg::PAGE_CSS
    );
    let _ = writeln!(
        s,
        "<p>{} records on {} platform(s). Charts and tables are built by <code>skylight report</code> from the records alone; hover a marker for its figures.</p>",
        records.len(),
        tables::by_platform(records).len()
    );
    if !opts.notes.is_empty() {
        s.push_str("<ul class=\"note\">");
        for n in &opts.notes {
            let _ = write!(s, "<li>{}</li>", svg::esc(n));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("<h2 id=\"devices\">Devices</h2>\n");
    s.push_str(&tables::devices(records));
    let offers = tables::offers(records);
    if !offers.is_empty() {
        s.push_str("<h3 id=\"features\">Features and limits</h3>\n<p>What each device offered the runs: the wgpu features Skylight uses that it has, the limits that decide a case's sizes and how its buffers are split, and its memory where the backend reports it.</p>\n");
        s.push_str(&offers);
    }
    s.push_str(&roofline_section(records, &apps, opts.all_variants));
    s.push_str(&efficiency_section(records));
    s.push_str(&portability_section(records));
    s.push_str(&scaling_section(records));
    s.push_str("<h2 id=\"validation\">Validation</h2>\n");
    s.push_str(&tables::validation(records));
    s.push_str("</body></html>\n");
    s
}

fn roofline_section(records: &[ResultRecord], apps: &[String], all: bool) -> String {
    let mut s = String::from("<h2 id=\"roofline\">Rooflines</h2>\n");
    let what = if all {
        "validated variant"
    } else {
        "app, kernel and precision, at its best variant"
    };
    let _ = writeln!(
        s,
        "<p>Ceilings measured on the device (stream's best bandwidth, peak's FMA chains per precision); one marker per {what}: colour per app, shape per precision (f32 circle, f64 square, df64 triangle).</p>"
    );
    for (label, roof) in rooflines(records) {
        let _ = writeln!(s, "<h3>{}</h3>", svg::esc(&label));
        match roof {
            Some(roof) => {
                let marks = marks(&roof, all);
                s.push_str(&roofline_svg(&roof, &marks, apps));
                s.push_str(&tables::marks(&marks, apps));
            }
            None => s.push_str(
                "<p class=\"note\">No validated stream run on this platform: no roofline (run <code>skylight run stream</code> and <code>peak</code> there).</p>\n",
            ),
        }
    }
    s
}

fn efficiency_section(records: &[ResultRecord]) -> String {
    if records.iter().all(|r| r.native.is_none()) {
        return String::new();
    }
    let mut s = String::from(
        "<h2 id=\"efficiency\">Against native codes</h2>\n<p>Each problem's best Skylight variant beside the native code's best configuration on the same device, timed alike: application efficiency is the native time over Skylight's (above 100%: Skylight is faster), architectural efficiency the rate over what the device's measured roofline allows.</p>\n",
    );
    s.push_str(&tables::efficiency(&efficiency::rows(records)));
    for gap in efficiency::roofline_gaps(records) {
        let _ = writeln!(s, "<p class=\"note\">Note: {}.</p>", svg::esc(&gap));
    }
    s
}

fn portability_section(records: &[ResultRecord]) -> String {
    let tables = pp_by_precision(records);
    if tables.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<h2 id=\"portability\">Performance portability</h2>\n<p>Pennycook's PP (the harmonic mean of architectural efficiencies; 0 where a platform did not run the kernel) of each kernel's best variant per platform, per precision over the platforms that ran it, and the cascade plot of Sewall et al.: platforms from most to least efficient, the line the PP of each prefix.</p>\n",
    );
    for (p, table) in tables {
        let _ = writeln!(s, "<h3>{p}</h3>\n<div class=\"charts\">");
        for (_, chart) in cascade_svgs(&table) {
            s.push_str(&chart);
        }
        s.push_str("</div>\n");
        s.push_str(&tables::pp(&table));
    }
    s
}

fn scaling_section(records: &[ResultRecord]) -> String {
    let charts = scaling_svgs(records);
    if charts.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "<h2 id=\"scaling\">Scaling</h2>\n<p>Scale-out runs (one result file per rank count): time of a run against ranks, its communication part, and the ideal from the best single-GPU run without MPI where one is loaded.</p>\n<div class=\"charts\">",
    );
    for chart in charts {
        s.push_str(&chart);
    }
    s.push_str("</div>\n");
    s.push_str(&tables::scaling(&curves::curves(records)));
    s
}

#[cfg(test)]
mod tests;
