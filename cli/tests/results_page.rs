//! BENCHMARKS.md is generated from the reference sets: this fails when the
//! page or one of its figures is not what `scripts/benchmarks-page` would
//! write now (a set changed, or the page was edited by hand).

use std::path::Path;
use std::process::Command;

#[test]
fn benchmarks_page_is_up_to_date_with_its_sets() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let o = Command::new("bash")
        .arg(repo.join("scripts/benchmarks-page"))
        .arg("--check")
        .env("SKYLIGHT", env!("CARGO_BIN_EXE_skylight"))
        .output()
        .expect("bash runs");
    assert!(
        o.status.success(),
        "BENCHMARKS.md is out of date with benchmarks/reference (run scripts/benchmarks-page):\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Every JSON file under `dir`, at any depth.
fn json_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The committed records of the platforms whose timers are coarse or on the
/// host (the browser's WebGPU and GL) each state their timer's resolution,
/// and each of their samples spans at least 50 of its quanta (issue 57).
#[test]
fn committed_browser_and_gl_samples_span_fifty_timer_quanta() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    json_files(&repo.join("benchmarks/reference"), &mut files);
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let Ok(file) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let Some(records) = file["records"].as_array() else {
            continue;
        };
        for r in records {
            if !matches!(r["platform"]["backend"].as_str(), Some("webgpu" | "gl")) {
                continue;
            }
            let what = format!(
                "{}: {}/{} {}",
                f.display(),
                r["app"],
                r["kernel"],
                r["variant"]
            );
            let quantum = r["timer_resolution_s"].as_f64().unwrap_or(0.0);
            assert!(quantum > 0.0, "{what}: no timer resolution stated");
            let runs = r["runs_per_sample"].as_f64().unwrap_or(1.0);
            let shortest = r["stats"]["min"].as_f64().expect("a shortest sample") * runs;
            assert!(
                shortest >= 50.0 * quantum,
                "{what}: {shortest} s < 50 x {quantum} s"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} browser and GL records found");
}
