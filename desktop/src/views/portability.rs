//! The portability view: core's Pennycook PP table ([`portability::table`])
//! over every platform of this session's records and the loaded files (the
//! built-in references the user switched on included), and the cascade plot
//! of one row (Sewall et al., 2020; `skylight pp --plot` draws the same).
//!
//! The table is built once per results generation, basis and variant choice.

use eframe::egui::{self, RichText};
use egui_plot::{Legend, Line, MarkerShape, Plot, PlotPoint, Points, Text};
use skylight_core::portability::{self, BEST, Basis, PpRow, PpTable};

use crate::palette;
use crate::state::Snapshot;

use palette::{CASCADE_EFFICIENCY as EFFICIENCY, CASCADE_PP as PP_LINE};

/// The basis and row choices, and the table they were last built for.
pub struct PortabilityView {
    basis: Basis,
    /// Every variant's row too, not only each kernel's best per platform.
    variants: bool,
    /// Index into the table's rows of the row the cascade shows.
    chosen: usize,
    table: Option<PpTable>,
    /// The (results generation, basis, variants) `table` was built for.
    built: Option<(u64, Basis, bool)>,
}

impl Default for PortabilityView {
    fn default() -> Self {
        PortabilityView {
            basis: Basis::Architectural,
            variants: false,
            chosen: 0,
            table: None,
            built: None,
        }
    }
}

impl PortabilityView {
    /// Draws the choices, the PP table of `now` and the chosen row's cascade.
    pub fn show(&mut self, ui: &mut egui::Ui, now: &Snapshot<'_>) {
        ui.horizontal(|ui| {
            ui.label("efficiency:");
            ui.radio_value(&mut self.basis, Basis::Architectural, "architectural")
                .on_hover_text("rate over the platform's measured roofline at the kernel's AI");
            ui.radio_value(&mut self.basis, Basis::Application, "application")
                .on_hover_text("best known time on the platform (its native baseline when loaded) over the time");
            ui.checkbox(&mut self.variants, "every variant");
        });
        let key = (now.generation, self.basis, self.variants);
        if self.built != Some(key) {
            self.table = Some(portability::table(now.all, self.basis, &[], self.variants));
            self.built = Some(key);
        }
        let Some(table) = &self.table else {
            return;
        };
        if table.rows.is_empty() {
            ui.label("run apps on a device, or load result files or reference runs, to rate their portability");
            return;
        }
        self.chosen = self.chosen.min(table.rows.len() - 1);
        let height = (ui.available_height() * 0.45).max(120.0);
        egui::ScrollArea::both()
            .id_salt("pp-table")
            .max_height(height)
            .auto_shrink([false, true])
            .show(ui, |ui| grid(ui, table, &mut self.chosen));
        ui.separator();
        cascade_plot(ui, table, &table.rows[self.chosen]);
    }
}

/// The PP table; clicking a row's kernel picks it for the cascade.
fn grid(ui: &mut egui::Ui, table: &PpTable, chosen: &mut usize) {
    egui::Grid::new("pp-grid")
        .striped(true)
        .min_col_width(40.0)
        .show(ui, |ui| {
            for title in ["app / kernel", "precision", "variant"] {
                ui.strong(title);
            }
            for p in &table.platforms {
                ui.strong(p);
            }
            ui.strong("PP");
            ui.end_row();
            for (i, row) in table.rows.iter().enumerate() {
                let name = format!("{} / {}", row.app, row.kernel);
                if ui.selectable_label(*chosen == i, name).clicked() {
                    *chosen = i;
                }
                ui.label(row.precision.name());
                ui.label(&row.variant);
                for ((e, why), &capped) in row.efficiency.iter().zip(&row.missing).zip(&row.capped)
                {
                    match (e, why) {
                        (Some(e), _) if capped => ui
                            .label(format!("{:.1}% †", e * 100.0))
                            .on_hover_text(skylight_core::portability::CAPPED),
                        (Some(e), _) => ui.label(format!("{:.1}%", e * 100.0)),
                        (None, why) => ui.colored_label(
                            palette::FAILURE,
                            format!("— {}", why.as_deref().unwrap_or("missing")),
                        ),
                    };
                }
                ui.label(RichText::new(format!("{:.1}%", row.pp * 100.0)).strong());
                ui.end_row();
            }
        });
}

/// The cascade of `row`: x = k, markers at the k-th best platform's
/// efficiency (labelled with it), the line the PP over the first k.
fn cascade_plot(ui: &mut egui::Ui, table: &PpTable, row: &PpRow) {
    // Platforms that ran, most efficient first, then the PP of each prefix
    // (0 from the first platform that did not run), as core ranks them.
    let (ran, pps) = (row.ranked(), row.cascade(row.efficiency.len()));
    let variant = if row.variant == BEST {
        String::new()
    } else {
        format!(" [{}]", row.variant)
    };
    ui.label(format!(
        "cascade of {} / {} {}{variant}: PP {:.1}% over {} platforms ({:?} efficiency)",
        row.app,
        row.kernel,
        row.precision,
        row.pp * 100.0,
        table.platforms.len(),
        table.basis
    ));
    let points: Vec<PlotPoint> = ran
        .iter()
        .enumerate()
        .map(|(k, (_, e))| PlotPoint::new(k as f64 + 1.0, *e))
        .collect();
    let line: Vec<PlotPoint> = pps
        .iter()
        .enumerate()
        .map(|(k, pp)| PlotPoint::new(k as f64 + 1.0, *pp))
        .collect();
    let top = ran.iter().map(|r| r.1).fold(1.0f64, f64::max) * 1.1;
    Plot::new("cascade")
        .legend(Legend::default())
        .x_axis_label("k: platforms, most efficient first")
        .y_axis_label("efficiency / PP")
        .include_x(0.5)
        .include_x(pps.len() as f64 + 0.5)
        .include_y(0.0)
        .include_y(top)
        .x_axis_formatter(|mark, _| {
            // Only whole k name a platform.
            let k = mark.value.round();
            if (mark.value - k).abs() < 1e-9 && k >= 1.0 {
                format!("{k:.0}")
            } else {
                String::new()
            }
        })
        .show(ui, |pui| {
            pui.line(
                Line::new("PP over the first k", line.as_slice())
                    .color(PP_LINE)
                    .width(2.0),
            );
            pui.points(
                Points::new("k-th platform's efficiency", points.as_slice())
                    .color(EFFICIENCY)
                    .shape(MarkerShape::Circle)
                    .filled(true)
                    .radius(5.0),
            );
            for (k, (p, e)) in ran.iter().enumerate() {
                pui.text(
                    Text::new(
                        "",
                        PlotPoint::new(k as f64 + 1.0, *e),
                        format!("  {}", table.platforms[*p]),
                    )
                    .anchor(egui::Align2::LEFT_BOTTOM)
                    .color(EFFICIENCY),
                );
            }
        });
}
