//! Files in and out of the window: result files loaded from a path or dropped
//! on the window, exports of this session's results, and the demo's PNG.

use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, channel};

use eframe::egui;
use skylight_core::record::ResultFile;

/// Called with the JSON result file (the CLI's format) whenever a run ends.
pub type FinishHook = Box<dyn FnMut(&str)>;

/// Called with the reason whenever a job that was asked for cannot start,
/// or its worker is lost, so that a page driving the app is not left
/// waiting for a finish that never comes.
pub type FailHook = Box<dyn FnMut(&str)>;

/// Saves an exported file (name, text); returns a message for the user.
pub type SaveHook = Box<dyn FnMut(&str, &str) -> Result<String, String>>;

/// Reads and parses the result file at `path`.
pub fn read_result_file(path: &str) -> Result<ResultFile, String> {
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| ResultFile::from_json(&text, path).map_err(|e| e.to_string()))
}

/// Writes `file` as JSON or CSV through `saver`, or to the disk without one.
/// `path`'s extension is switched to match the format, so one path field
/// serves both buttons. Returns the message for the user either way.
pub fn export(
    file: &ResultFile,
    path: &str,
    csv: bool,
    saver: Option<&mut SaveHook>,
) -> Result<String, String> {
    if file.records.is_empty() {
        return Err("nothing to export yet: run a benchmark first".into());
    }
    let text = if csv { file.to_csv() } else { file.to_json() };
    let mut path = path.trim().to_string();
    let ext = if csv { ".csv" } else { ".json" };
    if let Some(stem) = path
        .strip_suffix(".json")
        .or_else(|| path.strip_suffix(".csv"))
    {
        path = format!("{stem}{ext}");
    }
    match saver {
        Some(save) => save(&path, &text),
        None => save_to_disk(&path, &text),
    }
    .map_err(|e| format!("cannot write {path}: {e}"))
}

/// Writes the HTML report of `records` (core's page, as `skylight report`
/// writes it) through `saver`, or to the disk without one, at `path` with
/// its extension switched to `.html`. Returns the message for the user.
pub fn export_report(
    records: &[skylight_core::record::ResultRecord],
    path: &str,
    saver: Option<&mut SaveHook>,
) -> Result<String, String> {
    if records.is_empty() {
        return Err("nothing to report yet: run a benchmark or load a file first".into());
    }
    let path = path.trim();
    let stem = path
        .strip_suffix(".json")
        .or_else(|| path.strip_suffix(".csv"))
        .or_else(|| path.strip_suffix(".html"))
        .unwrap_or(path);
    let path = format!("{stem}.html");
    let opts = skylight_core::report::Options {
        title: "Skylight results".into(),
        notes: vec![
            "Exported from the Skylight app: this session's results and the loaded files.".into(),
        ],
        ..Default::default()
    };
    let text = skylight_core::report::html(records, &opts);
    match saver {
        Some(save) => save(&path, &text),
        None => save_to_disk(&path, &text),
    }
    .map_err(|e| format!("cannot write {path}: {e}"))
}

/// Writes an export to the local file system.
#[cfg(not(target_arch = "wasm32"))]
fn save_to_disk(path: &str, text: &str) -> Result<String, String> {
    skylight_core::record::write_atomic(Path::new(path), text)
        .map(|()| format!("wrote {path}"))
        .map_err(|e| e.to_string())
}

/// A browser has no file system; the web page installs a download hook instead.
#[cfg(target_arch = "wasm32")]
fn save_to_disk(_path: &str, _text: &str) -> Result<String, String> {
    Err("no file system here: the page must install an export hook".into())
}

/// A dropped file's name and its bytes (or why they could not be read).
type DroppedText = (String, Result<Vec<u8>, String>);

/// Result files dropped on the window. A browser reads files only
/// asynchronously, so every drop goes through a channel and is picked up by a
/// later frame; natively the bytes are there at once and arrive the same frame.
pub struct Drops {
    tx: Sender<DroppedText>,
    rx: Receiver<DroppedText>,
}

impl Default for Drops {
    fn default() -> Self {
        let (tx, rx) = channel();
        Drops { tx, rx }
    }
}

impl Drops {
    /// Starts reading the files dropped on the window this frame, then
    /// returns every file whose reading has finished, parsed, with its name.
    pub fn take(&self, ctx: &egui::Context) -> Vec<(String, Result<ResultFile, String>)> {
        for f in ctx.input(|i| i.raw.dropped_files.clone()) {
            let name = f.path().display().to_string();
            let tx = self.tx.clone();
            #[cfg(not(target_arch = "wasm32"))]
            let _ = tx.send((name, f.bytes()));
            #[cfg(target_arch = "wasm32")]
            {
                let wake = ctx.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = tx.send((name, f.bytes_async().await));
                    wake.request_repaint();
                });
            }
        }
        self.rx
            .try_iter()
            .map(|(name, bytes)| {
                let parsed = bytes
                    .and_then(|b| String::from_utf8(b).map_err(|e| e.to_string()))
                    .and_then(|t| ResultFile::from_json(&t, &name).map_err(|e| e.to_string()));
                (name, parsed)
            })
            .collect()
    }
}

/// Writes an egui screenshot as an RGBA PNG, creating the parent folder.
pub fn save_png(path: &Path, img: &egui::ColorImage) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let bytes: Vec<u8> = img
        .pixels
        .iter()
        .flat_map(|c| c.to_srgba_unmultiplied())
        .collect();
    let [w, h] = img.size;
    let (w, h) = (
        u32::try_from(w).map_err(|e| e.to_string())?,
        u32::try_from(h).map_err(|e| e.to_string())?,
    );
    image::save_buffer(path, &bytes, w, h, image::ColorType::Rgba8)
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report goes through the export hook (the web page's download)
    /// as `.html`, with the roofline of the records drawn.
    #[test]
    fn report_export_is_the_cores_page_through_the_hook() {
        let file = crate::reference::REFERENCES[0]
            .load()
            .expect("a built-in reference");
        let mut hook: SaveHook = Box::new(|name: &str, text: &str| {
            Ok(format!("{name} {}", text.contains("class=\"roofline\"")))
        });
        let msg = export_report(&file.records, "results.json", Some(&mut hook)).expect("saved");
        assert_eq!(msg, "results.html true");
        assert!(export_report(&[], "r.html", Some(&mut hook)).is_err());
    }
}
