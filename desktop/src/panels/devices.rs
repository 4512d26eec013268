//! The device panel: every adapter with its features and key limits, and the
//! choice of the one to benchmark.

use eframe::egui::{self, Color32, RichText};
use skylight_core::device::AdapterEntry;

use crate::state::Devices;

/// Draws the adapter list; the choice is locked while a run is `running`.
pub fn show(ui: &mut egui::Ui, devices: &mut Devices, running: bool) {
    ui.heading("Devices");
    ui.add_enabled_ui(!running, |ui| {
        ui.radio_value(&mut devices.selected, None, "automatic choice");
        for (i, a) in devices.adapters.iter().enumerate() {
            ui.radio_value(
                &mut devices.selected,
                Some(i),
                RichText::new(format!("#{i} {}", a.info.name)).strong(),
            );
            ui.indent(("adapter", i), |ui| details(ui, a));
        }
    });
    if !devices.listed() {
        ui.label("looking for adapters…");
    } else if devices.adapters.is_empty() {
        ui.colored_label(Color32::RED, "no adapter found");
    }
    if let Some(a) = devices.chosen() {
        if !a.caps.f64 {
            ui.label(
                "f64: not available on this adapter (WebGPU has no f64 at all); \
                 df64, double emulated by f32 pairs, is the double-precision path here",
            );
        }
        if a.info.backend == "webgpu" {
            ui.label(
                "timing: browsers quantize GPU timestamps (Chromium to 100 µs unless \
                 its WebGPU developer features are on); short kernels read coarse",
            );
        }
    }
}

/// An adapter's platform, features and the limits that decide which cases fit.
fn details(ui: &mut egui::Ui, a: &AdapterEntry) {
    ui.label(format!(
        "{} · {} · {}",
        a.info.backend, a.info.device_type, a.info.driver
    ));
    let feats = a.caps.feature_names();
    ui.label(if feats.is_empty() {
        "features: none".to_string()
    } else {
        format!("features: {}", feats.join(", "))
    });
    ui.label(format!(
        "max storage binding {} MiB, buffer {} MiB",
        a.caps.max_storage_binding >> 20,
        a.caps.max_buffer >> 20
    ));
    ui.label(format!(
        "workgroup: {} invocations, {} KiB shared; subgroup {}..{}",
        a.caps.max_workgroup_invocations,
        a.caps.max_workgroup_storage / 1024,
        a.caps.subgroup_size.0,
        a.caps.subgroup_size.1
    ));
}
