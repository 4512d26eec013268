//! The results table: one [`Row`] per outcome and loaded record, sortable by
//! any column. The rows come from [`crate::state::Results`]; the table only
//! keeps the order they are shown in, recomputed when the rows or the sort
//! change. When native baseline records are loaded, each row also carries
//! core's efficiencies ([`Efficiencies`]).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use eframe::egui;
use skylight_core::Precision;
use skylight_core::app::Status;
use skylight_core::efficiency::{self, Entry, problem_of};
use skylight_core::record::{ResultRecord, Tuning};
use skylight_core::roofline::{Rating, Roofline, rating};
use skylight_core::runner::Outcome;

use crate::palette::{self, app_color};

/// Columns of the results table, in display order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Where the result came from (this run or a loaded file's device).
    Source,
    /// App name.
    App,
    /// Kernel name.
    Kernel,
    /// Variant label.
    Variant,
    /// Precision.
    Precision,
    /// Achieved GFLOP/s.
    Gflops,
    /// Achieved GB/s.
    Gbps,
    /// Arithmetic intensity.
    Ai,
    /// Percentage of the attainable roof.
    Roof,
    /// Native time over this row's (shown when a native record is loaded).
    AppEff,
    /// Core's architectural efficiency (shown when a native record is
    /// loaded and a roofline exists).
    ArchEff,
    /// Validation or why the case did not run.
    Status,
}

impl Column {
    /// Every column, in display order.
    pub const ALL: [Column; 12] = [
        Column::Source,
        Column::App,
        Column::Kernel,
        Column::Variant,
        Column::Precision,
        Column::Gflops,
        Column::Gbps,
        Column::Ai,
        Column::Roof,
        Column::AppEff,
        Column::ArchEff,
        Column::Status,
    ];

    /// The columns `rows` need: the efficiency columns only once a native
    /// baseline is loaded, the architectural one only where a roofline rated
    /// some row.
    pub fn shown(rows: &[Row]) -> Vec<Column> {
        let native = rows.iter().any(|r| r.native.is_some());
        let arch = native && rows.iter().any(|r| r.arch_eff.is_some());
        Column::ALL
            .into_iter()
            .filter(|c| match c {
                Column::AppEff => native,
                Column::ArchEff => arch,
                _ => true,
            })
            .collect()
    }

    fn title(self) -> &'static str {
        match self {
            Column::Source => "device",
            Column::App => "app",
            Column::Kernel => "kernel",
            Column::Variant => "variant",
            Column::Precision => "precision",
            Column::Gflops => "GFLOP/s",
            Column::Gbps => "GB/s",
            Column::Ai => "AI",
            Column::Roof => "% roof",
            Column::AppEff => "app. eff.",
            Column::ArchEff => "arch. eff.",
            Column::Status => "validation",
        }
    }
}

/// One row of the results table (and, when it has a positive AI and
/// GFLOP/s, one point of the roofline).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// 0 for this session's results, 1.. for loaded files.
    pub source: usize,
    /// Device the result was measured on.
    pub device: String,
    /// App name.
    pub app: String,
    /// Kernel name.
    pub kernel: String,
    /// Variant label.
    pub variant: String,
    /// Precision.
    pub precision: Precision,
    /// Achieved GFLOP/s (`None` when the case did not run).
    pub gflops: Option<f64>,
    /// Achieved GB/s.
    pub gbps: Option<f64>,
    /// FLOPs per byte.
    pub ai: Option<f64>,
    /// FLOPs per byte its loads and stores request (its intensity at L1),
    /// where the app's model says.
    pub issued_ai: Option<f64>,
    /// Achieved over attainable at its memory level (over 1 only with a note).
    pub roof: Option<Rating>,
    /// `ok`, a validation failure, `unsupported: needs ...` or an error.
    pub status: String,
    /// Whether the status is a failure (drawn in red).
    pub failed: bool,
    /// How the kernel was timed (GPU timestamps, wall clock, ...).
    pub timing: String,
    /// The native code of a baseline record (`UoB-HPC/BabelStream (CUDA)`),
    /// `None` for Skylight's.
    pub native: Option<String>,
    /// Application efficiency: the native time of the same device and
    /// problem over this Skylight row's time.
    pub app_eff: Option<f64>,
    /// Architectural efficiency, for the rows core's efficiency table rates:
    /// each problem's best Skylight variant and best native configuration.
    pub arch_eff: Option<f64>,
}

/// Key of core's efficiency rows: device, app, kernel, precision, problem
/// and whether the runs are back to back ([`efficiency::back_to_back`]):
/// core gives a problem a row of lone runs and one of back-to-back runs,
/// which must not overwrite each other.
type Key = (String, String, String, Precision, String, bool);

/// Core's efficiency rows ([`efficiency::rows`]) of every record shown,
/// looked up per record.
pub struct Efficiencies {
    rows: BTreeMap<Key, efficiency::Row>,
}

impl Efficiencies {
    /// The efficiency rows of `records` (this session's and every loaded
    /// file's together: core pairs records of the same device whatever file
    /// they came from).
    pub fn new(records: &[ResultRecord]) -> Self {
        let rows = efficiency::rows(records)
            .into_iter()
            .map(|r| {
                let key = (
                    r.device.clone(),
                    r.app.clone(),
                    r.kernel.clone(),
                    r.precision,
                    r.problem.clone(),
                    r.back_to_back,
                );
                (key, r)
            })
            .collect();
        Efficiencies { rows }
    }

    /// `r`'s (application, architectural) efficiency. The application one is
    /// core's ratio (native time over Skylight's, both by the native code's
    /// statistic) taken for `r`'s own time, so every variant gets one timed
    /// as the native code was (lone or back-to-back runs); the
    /// architectural one is core's figure of the entry `r` is, if it is one.
    pub fn of(&self, r: &ResultRecord) -> (Option<f64>, Option<f64>) {
        let key = (
            r.platform.name.clone(),
            r.case.app.clone(),
            r.case.kernel.clone(),
            r.case.precision,
            problem_of(r),
            efficiency::back_to_back(r),
        );
        let Some(row) = self.rows.get(&key).filter(|_| r.validation.usable()) else {
            return (None, None);
        };
        let t = row.statistic.of(&r.stats);
        // Which of the row's entries is `r`: same variant and same time.
        let variant = efficiency::entry_variant(r);
        let is = |e: &Option<Entry>| {
            e.as_ref()
                .filter(|e| e.variant == variant && e.time_s == t)
                .and_then(|e| e.architectural)
        };
        if r.native.is_some() {
            return (None, is(&row.native));
        }
        let app = row
            .native
            .as_ref()
            .filter(|_| t > 0.0)
            .map(|n| n.time_s / t);
        (app, is(&row.skylight))
    }
}

impl Row {
    /// The row of a completed record from `source`, its roof fraction taken
    /// against `roof` (that source's roofline), its efficiencies from `eff`.
    pub fn from_record(
        source: usize,
        r: &ResultRecord,
        roof: Option<&Roofline>,
        eff: &Efficiencies,
    ) -> Row {
        let mut status = match r.validation.status() {
            Status::Passed => format!("ok (max err {:.1e})", r.validation.max_error),
            Status::Reference => "reference (not validated)".to_string(),
            Status::Failed => format!("FAILED: {}", r.validation.detail),
        };
        // The tuning cache's best configuration ran, not the defaults.
        if let Tuning::Tuned(entry) = &r.tuning {
            status = format!("tuned ({entry}), {status}");
        }
        let (app_eff, arch_eff) = eff.of(r);
        Row {
            source,
            device: r.platform.name.clone(),
            app: r.case.app.clone(),
            kernel: r.case.kernel.clone(),
            variant: r.case.variant.clone(),
            precision: r.case.precision,
            gflops: Some(r.gflops),
            gbps: Some(r.gbps),
            ai: Some(r.arithmetic_intensity),
            issued_ai: r
                .issued_bytes
                .filter(|&b| b > 0.0)
                .map(|b| r.model.flops / b),
            roof: roof.and_then(|roof| rating::rate(roof, r)),
            status,
            failed: !r.validation.usable(),
            timing: r.timing.name().to_string(),
            native: r
                .native
                .as_ref()
                .map(|n| format!("{} ({})", n.code, n.model)),
            app_eff,
            arch_eff,
        }
    }

    /// The row of one of this session's outcomes on `device`; cases that did
    /// not run get a status and no numbers.
    pub fn from_outcome(
        device: &str,
        o: &Outcome,
        roof: Option<&Roofline>,
        eff: &Efficiencies,
    ) -> Row {
        let case = o.case();
        let blank = |status: String, failed| Row {
            source: 0,
            device: device.to_string(),
            app: case.app.clone(),
            kernel: case.kernel.clone(),
            variant: case.variant.clone(),
            precision: case.precision,
            gflops: None,
            gbps: None,
            ai: None,
            issued_ai: None,
            roof: None,
            status,
            failed,
            timing: String::new(),
            native: None,
            app_eff: None,
            arch_eff: None,
        };
        match o {
            Outcome::Done(r) => Row::from_record(0, r, roof, eff),
            Outcome::Unsupported { reason, .. } => blank(format!("unsupported: {reason}"), false),
            Outcome::Failed { error, .. } => blank(format!("error: {error}"), true),
        }
    }
}

/// Indices of `rows` in the order sorting by `col` gives; numbers compare
/// numerically with missing values last, and equal rows keep their order.
pub fn sort_order(rows: &[Row], col: Column, ascending: bool) -> Vec<usize> {
    fn num(v: Option<f64>) -> f64 {
        v.unwrap_or(f64::NEG_INFINITY)
    }
    let cmp = |a: &Row, b: &Row| -> Ordering {
        match col {
            Column::Source => a.device.cmp(&b.device),
            Column::App => a.app.cmp(&b.app),
            Column::Kernel => a.kernel.cmp(&b.kernel),
            Column::Variant => a.variant.cmp(&b.variant),
            Column::Precision => a.precision.name().cmp(b.precision.name()),
            Column::Gflops => num(a.gflops).total_cmp(&num(b.gflops)),
            Column::Gbps => num(a.gbps).total_cmp(&num(b.gbps)),
            Column::Ai => num(a.ai).total_cmp(&num(b.ai)),
            Column::Roof => num(a.roof.as_ref().map(|x| x.fraction))
                .total_cmp(&num(b.roof.as_ref().map(|x| x.fraction))),
            Column::AppEff => num(a.app_eff).total_cmp(&num(b.app_eff)),
            Column::ArchEff => num(a.arch_eff).total_cmp(&num(b.arch_eff)),
            Column::Status => a.status.cmp(&b.status),
        }
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let ord = cmp(&rows[a], &rows[b]);
        if ascending { ord } else { ord.reverse() }
    });
    order
}

/// The table's sort and the row order it implies.
pub struct Table {
    /// Sort column and whether ascending.
    sort: (Column, bool),
    order: Vec<usize>,
    /// The columns the rows need ([`Column::shown`]).
    columns: Vec<Column>,
    /// The results generation and sort `order` was computed for.
    built: Option<(u64, Column, bool)>,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            sort: (Column::App, true),
            order: Vec::new(),
            columns: Vec::new(),
            built: None,
        }
    }
}

impl Table {
    /// Draws `rows` (of results generation `generation`) sorted, with a
    /// header button per column that sorts by it (again: reverses).
    pub fn show(&mut self, ui: &mut egui::Ui, rows: &[Row], generation: u64) {
        let key = Some((generation, self.sort.0, self.sort.1));
        if self.built != key {
            self.order = sort_order(rows, self.sort.0, self.sort.1);
            self.columns = Column::shown(rows);
            self.built = key;
        }
        egui::ScrollArea::both()
            .id_salt("results")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("results-grid")
                    .striped(true)
                    .min_col_width(40.0)
                    .show(ui, |ui| {
                        self.header(ui);
                        ui.end_row();
                        for &i in &self.order {
                            for &c in &self.columns {
                                cell(ui, &rows[i], c);
                            }
                            ui.end_row();
                        }
                    });
            });
    }

    /// The column buttons; a click changes the sort, applied next frame.
    fn header(&mut self, ui: &mut egui::Ui) {
        for &c in &self.columns {
            let arrow = match self.sort {
                (s, true) if s == c => " ^",
                (s, false) if s == c => " v",
                _ => "",
            };
            if ui.button(format!("{}{arrow}", c.title())).clicked() {
                self.sort = if self.sort.0 == c {
                    (c, !self.sort.1)
                } else {
                    (c, true)
                };
            }
        }
    }
}

/// One cell of row `r`: the device in its source's colour, failures in red,
/// and a native record's variant with its code (hover says which code ran).
fn cell(ui: &mut egui::Ui, r: &Row, c: Column) {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
    let pct = |v: Option<f64>| v.map_or("—".to_string(), |f| format!("{:.1}%", f * 100.0));
    let text = match c {
        Column::Source => {
            ui.colored_label(app_color(&r.app, r.source), &r.device);
            return;
        }
        Column::Status if r.failed => {
            ui.colored_label(palette::FAILURE, &r.status);
            return;
        }
        Column::Variant => {
            let text = match &r.native {
                Some(code) => format!("{} [{code}]", r.variant),
                None => r.variant.clone(),
            };
            ui.label(text)
                .on_hover_text(r.native.as_deref().unwrap_or("Skylight"));
            return;
        }
        Column::App => r.app.clone(),
        Column::Kernel => r.kernel.clone(),
        Column::Precision => r.precision.name().to_string(),
        Column::Gflops => num(r.gflops),
        Column::Gbps => num(r.gbps),
        Column::Ai => num(r.ai),
        Column::Roof => match &r.roof {
            None => "—".to_string(),
            Some(x) => {
                let text = format!("{:.1} {}", x.fraction * 100.0, x.level);
                if let Some(note) = &x.note {
                    ui.label(format!("{text} *")).on_hover_text(note);
                    return;
                }
                text
            }
        },
        Column::AppEff => pct(r.app_eff),
        Column::ArchEff => pct(r.arch_eff),
        Column::Status => r.status.clone(),
    };
    ui.label(text);
}

#[cfg(test)]
impl Row {
    /// A passed f32 row of `app` from `source` on device `dev{source}`, for tests.
    pub fn example(app: &str, source: usize, gflops: Option<f64>, ai: Option<f64>) -> Row {
        Row {
            source,
            device: format!("dev{source}"),
            app: app.into(),
            kernel: "k".into(),
            variant: "v".into(),
            precision: Precision::F32,
            gflops,
            gbps: gflops.zip(ai).map(|(g, ai)| g / ai),
            ai,
            issued_ai: None,
            roof: None,
            status: "ok".into(),
            failed: false,
            timing: "gpu-ts".into(),
            native: None,
            app_eff: None,
            arch_eff: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(app: &str, gflops: Option<f64>) -> Row {
        Row::example(app, 0, gflops, None)
    }

    #[test]
    fn sorting_puts_missing_numbers_last_when_descending() {
        let rows = vec![row("b", Some(2.0)), row("a", None), row("c", Some(5.0))];
        let apps = |order: Vec<usize>| -> Vec<&str> {
            order.into_iter().map(|i| rows[i].app.as_str()).collect()
        };
        assert_eq!(
            apps(sort_order(&rows, Column::Gflops, false)),
            ["c", "b", "a"]
        );
        assert_eq!(apps(sort_order(&rows, Column::App, true)), ["a", "b", "c"]);
    }

    #[test]
    fn equal_rows_keep_their_order_both_ways() {
        let rows = vec![
            row("x", Some(1.0)),
            row("y", Some(1.0)),
            row("z", Some(1.0)),
        ];
        assert_eq!(sort_order(&rows, Column::Gflops, true), [0, 1, 2]);
        assert_eq!(sort_order(&rows, Column::Gflops, false), [0, 1, 2]);
    }

    #[test]
    fn native_files_give_core_efficiencies_to_skylight_rows() {
        let native: Vec<_> = crate::reference::REFERENCES
            .iter()
            .filter(|r| r.name.contains("native CUDA"))
            .collect();
        assert!(!native.is_empty(), "native references");
        for reference in native {
            let records = reference.load().expect("loads").records;
            let eff = Efficiencies::new(&records);
            let rows: Vec<Row> = records
                .iter()
                .map(|r| Row::from_record(1, r, None, &eff))
                .collect();
            assert!(Column::shown(&rows).contains(&Column::AppEff));
            assert!(
                rows.iter()
                    .filter(|r| r.native.is_some())
                    .all(|r| r.app_eff.is_none())
            );
            // Each problem's best Skylight variant carries core's own figures
            // (su3's samples of 100 runs each included).
            for core in efficiency::rows(&records) {
                let (Some(s), Some(app)) = (&core.skylight, core.application) else {
                    continue;
                };
                let best = rows.iter().zip(&records).find(|(row, rec)| {
                    row.native.is_none()
                        && rec.case.app == core.app
                        && rec.case.kernel == core.kernel
                        && rec.case.precision == core.precision
                        && efficiency::entry_variant(rec) == s.variant
                        && core.statistic.of(&rec.stats) == s.time_s
                        && problem_of(rec) == core.problem
                });
                let what = format!("{}: {}/{}", reference.name, core.app, core.kernel);
                let (row, _) = best.expect(&what);
                assert_eq!(row.app_eff, Some(app), "{what}");
                assert_eq!(row.arch_eff, s.architectural, "{what}");
            }
        }
        let plain = [Row::example("stream", 0, Some(1.0), Some(1.0))];
        assert!(!Column::shown(&plain).contains(&Column::AppEff));
    }

    #[test]
    fn lone_and_back_to_back_runs_of_a_problem_keep_their_own_rows() {
        // The encoder-timed wave-2 reference by its whole name: the
        // pass-timed one also says "wave 2", and its su3_bench records carry
        // their run count.
        let wave2 =
            crate::reference::named("NVIDIA H100 (Vulkan + native CUDA), wave 2, 2026-11-26/27");
        let mut records = wave2.load().expect("loads").records;
        // su3's Skylight samples there are of 100 runs, and su3_bench's
        // records (made before native runs carried their count) say 1: they
        // pair all the same, since su3_bench only times loops.
        let native = records
            .iter()
            .find(|r| r.case.app == "su3" && r.native.is_some())
            .expect("an su3_bench record");
        assert_eq!(native.runs_per_sample, 1);
        let looped = records
            .iter()
            .find(|r| {
                r.native.is_none()
                    && r.runs_per_sample == 100
                    && r.case.kernel == native.case.kernel
                    && r.case.precision == native.case.precision
                    && problem_of(r) == problem_of(native)
            })
            .cloned()
            .expect("an su3 record of 100 runs a sample of su3_bench's problem");
        let lone = ResultRecord {
            runs_per_sample: 1,
            ..looped.clone()
        };
        records.push(lone.clone());
        let eff = Efficiencies::new(&records);
        assert!(eff.of(&looped).0.is_some(), "{}", looped.case.label());
        // No native record of lone runs: the lone copy has no application
        // efficiency (it would take the 100-run row's if the rows shared a
        // key), only its architectural one as its row's best variant.
        let (app, arch) = eff.of(&lone);
        assert_eq!(app, None);
        assert!(arch.is_some());
    }
}
