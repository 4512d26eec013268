//! The benchmark panel: global precisions and samples, one section per
//! registry app generated from its parameter list ([`crate::forms`]), Run,
//! Tune (with its budget) and Stop, and the progress of the job in flight.

use eframe::egui::{self, RichText};
use skylight_core::Precision;
use skylight_core::app::ParamKind;

use crate::forms::{Forms, ParamForm, ParamValue};
use crate::state::RunState;

/// What a button of the panel asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Run the apps ticked (in the tuning cache's best configurations
    /// where it has them).
    Run,
    /// Tune the apps ticked for the budget set, into the tuning cache.
    Tune,
}

/// Draws the panel; the forms are locked while `run` is in flight, and Run
/// and Tune wait for the adapter listing (`listed`). Returns the button
/// pressed.
pub fn show(
    ui: &mut egui::Ui,
    forms: &mut Forms,
    run: Option<&RunState>,
    listed: bool,
) -> Option<Action> {
    ui.heading("Benchmarks");
    let running = run.is_some();
    ui.add_enabled_ui(!running, |ui| {
        ui.horizontal(|ui| {
            ui.label("precisions:");
            for (p, on) in Precision::ALL.iter().zip(forms.precisions.iter_mut()) {
                ui.checkbox(on, p.name());
            }
        });
        ui.horizontal(|ui| {
            ui.label("samples:");
            ui.add(egui::DragValue::new(&mut forms.samples).range(1..=10_000));
        });
        for f in &mut forms.apps {
            ui.checkbox(&mut f.enabled, RichText::new(f.name).strong())
                .on_hover_text(f.about);
            if !f.enabled {
                continue;
            }
            ui.indent(("params", f.name), |ui| {
                for p in &mut f.params {
                    ui.horizontal_wrapped(|ui| param(ui, p));
                }
            });
        }
    });
    ui.separator();
    let mut action = None;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!running && listed, egui::Button::new("Run"))
            .clicked()
        {
            action = Some(Action::Run);
        }
        if ui
            .add_enabled(!running && listed, egui::Button::new("Tune"))
            .on_hover_text("search the ticked apps' tunable parameters for each kernel's fastest configuration on this adapter, within the budget; Run then uses it")
            .clicked()
        {
            action = Some(Action::Tune);
        }
        ui.add_enabled(
            !running,
            egui::DragValue::new(&mut forms.tune_budget_s)
                .range(1.0..=36_000.0)
                .suffix(" s"),
        )
        .on_hover_text("how long Tune may take");
        if ui.add_enabled(running, egui::Button::new("Stop")).clicked()
            && let Some(run) = run
        {
            run.request_stop();
        }
    });
    if let Some(run) = run {
        ui.add(egui::ProgressBar::new(run.fraction).show_percentage());
        ui.label(&run.current);
        let (elapsed, left) = run.times();
        ui.label(match left {
            Some(left) => format!("{elapsed:.0} s elapsed, about {left:.0} s left"),
            None => format!("{elapsed:.0} s elapsed"),
        });
        if run.stopping() {
            ui.label("stopping after the current case…");
        }
    }
    action
}

/// One parameter's row: a checkbox per option of a choice, else a text field.
fn param(ui: &mut egui::Ui, p: &mut ParamForm) {
    ui.label(p.spec.name).on_hover_text(p.spec.help);
    match (&mut p.value, &p.spec.kind) {
        (ParamValue::Choice(on), ParamKind::Choice(opts)) => {
            for (flag, o) in on.iter_mut().zip(opts.iter()) {
                ui.checkbox(flag, *o);
            }
        }
        (ParamValue::Text(t), _) => {
            ui.add(egui::TextEdit::singleline(t).desired_width(110.0))
                .on_hover_text(p.spec.help);
        }
        _ => {}
    }
}
