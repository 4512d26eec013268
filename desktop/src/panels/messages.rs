//! The messages panel: what the app has to say, errors in red, newest at the
//! bottom.

use eframe::egui;

use crate::palette;
use crate::state::Messages;

/// Draws the log with a button that clears it.
pub fn show(ui: &mut egui::Ui, log: &mut Messages) {
    ui.horizontal(|ui| {
        ui.heading("Messages");
        if ui.small_button("clear").clicked() {
            log.clear();
        }
    });
    egui::ScrollArea::vertical()
        .id_salt("messages")
        .max_height(120.0)
        .stick_to_bottom(true)
        .show(ui, |ui| {
            for (err, m) in log.entries() {
                if *err {
                    ui.colored_label(palette::FAILURE, m);
                } else {
                    ui.label(m);
                }
            }
        });
}
