//! The result-files panel: the path that exports go to and loads come from,
//! the built-in reference runs, and the list of overlaid files.

use eframe::egui;

use crate::palette::app_color;
use crate::reference::{REFERENCES, Reference};
use crate::state::LoadedFile;

/// What the user asked the panel for.
pub enum FileAction {
    /// Export this session's results to the path, as CSV or JSON.
    Export {
        /// CSV rather than JSON.
        csv: bool,
    },
    /// Export this session's results and every loaded file as one HTML
    /// report (`skylight report`'s page).
    Report,
    /// Load the result file at the path and overlay it.
    Load,
    /// Overlay a built-in reference run.
    Reference(&'static Reference),
    /// Remove the `n`th loaded file from the overlay.
    Remove(usize),
}

/// Draws the panel over the `loaded` files; returns the button pressed, if any.
pub fn show(ui: &mut egui::Ui, path: &mut String, loaded: &[LoadedFile]) -> Option<FileAction> {
    let mut action = None;
    ui.heading("Result files");
    ui.add(egui::TextEdit::singleline(path).desired_width(f32::INFINITY));
    ui.horizontal(|ui| {
        if ui.button("Export JSON").clicked() {
            action = Some(FileAction::Export { csv: false });
        }
        if ui.button("Export CSV").clicked() {
            action = Some(FileAction::Export { csv: true });
        }
        if ui
            .button("Export report")
            .on_hover_text("one HTML page of this session's results and the loaded files")
            .clicked()
        {
            action = Some(FileAction::Report);
        }
        if ui.button("Load & overlay").clicked() {
            action = Some(FileAction::Load);
        }
    });
    ui.label("or drop result files on the window to overlay them");
    ui.horizontal_wrapped(|ui| {
        ui.label("Reference runs:");
        for r in REFERENCES {
            if ui.small_button(r.name).clicked() {
                action = Some(FileAction::Reference(r));
            }
        }
    });
    for (i, f) in loaded.iter().enumerate() {
        ui.horizontal(|ui| {
            // The swatch is the file's stream colour: each source's colour set
            // is shifted as a whole, so one sample identifies it.
            let (swatch, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter()
                .rect_filled(swatch, 2.0, app_color("stream", i + 1));
            // Long paths are cut to the panel's width (hover shows them
            // whole), so loading a folder does not widen the panel and
            // squeeze the views.
            let text = format!("{} ({})", f.device, f.path);
            let room = ui.available_width() - 70.0;
            ui.scope(|ui| {
                ui.set_max_width(room.max(80.0));
                ui.add(egui::Label::new(text.as_str()).truncate())
                    .on_hover_text(text.as_str());
            });
            if ui.small_button("remove").clicked() {
                action = Some(FileAction::Remove(i));
            }
        });
    }
    action
}
