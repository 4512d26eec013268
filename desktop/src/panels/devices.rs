//! The device panel: the backend, every adapter of it with its features
//! and key limits, and the choice of the one to benchmark.

use eframe::egui::{self, Color32, RichText};
use skylight_core::device::{AdapterEntry, Api};

use crate::state::Devices;

/// Draws the adapter list; the choice is locked while a run is `running`.
pub fn show(ui: &mut egui::Ui, devices: &mut Devices, running: bool) {
    ui.heading("Devices");
    ui.add_enabled_ui(!running, |ui| {
        backend_picker(ui, devices);
        ui.radio_value(&mut devices.selected, None, "automatic choice");
        let backend = devices.backend;
        let shown = devices
            .adapters
            .iter()
            .enumerate()
            .filter(|(_, a)| backend.is_none_or(|api| a.info.backend == api.name()));
        for (i, a) in shown {
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
    } else if devices.chosen().is_none() {
        ui.colored_label(Color32::RED, "no adapter of this backend");
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

/// The backend combo: the primary backends (the automatic choice, which
/// leaves GL out as the command line does) or one backend this build has.
fn backend_picker(ui: &mut egui::Ui, devices: &mut Devices) {
    let text = |b: Option<Api>| b.map_or("primary backends", Api::name);
    let mut backend = devices.backend;
    egui::ComboBox::from_label("backend")
        .selected_text(text(backend))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut backend, None, text(None));
            for api in Api::ALL.into_iter().filter(|a| a.check_built().is_ok()) {
                ui.selectable_value(&mut backend, Some(api), api.name());
            }
        });
    if backend != devices.backend {
        devices.set_backend(backend);
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
