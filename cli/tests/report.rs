//! `skylight report`: a page from a fresh small run, which names the
//! device's features and limits, opened in headless Chromium (where
//! Chromium, Node and web/e2e's playwright-core are installed, as
//! `./scripts/test` installs them) to check its charts are drawn with no
//! text over text; an unwritable output refused before any file is read;
//! broken and cut files skipped with a note.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skylight-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn skylight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("the skylight binary runs")
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "exit {:?}\n{err}", o.status.code());
    err
}

/// Whether web/e2e/report.mjs can run here.
fn chromium_ready() -> bool {
    let has = |cmd: &str| Command::new(cmd).arg("--version").output().is_ok();
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    has("node")
        && Path::new(&chromium).exists()
        && repo().join("web/e2e/node_modules/playwright-core").is_dir()
}

#[test]
fn report_of_a_fresh_small_run_draws_its_charts() {
    let dir = scratch("fresh");
    for app in ["stream", "peak", "su3"] {
        let json = dir.join(format!("{app}.json"));
        let json = json.to_str().expect("utf-8 path");
        let mut args = vec!["run", app, "--json", json];
        args.extend(common::FAST);
        ok(&skylight(&args));
    }
    let html = dir.join("report.html");
    let html_s = html.to_str().expect("utf-8 path");
    ok(&skylight(&[
        "report",
        dir.to_str().expect("utf-8"),
        "-o",
        html_s,
    ]));
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(page.contains("class=\"roofline\""), "no roofline");
    assert!(page.contains("FMA: "), "no labelled compute ceiling");
    names_the_devices_features(&page, &dir.join("stream.json"));
    assert!(page.contains("class=\"mark\""), "no markers");
    assert!(!page.contains("<script"), "the page needs no script");
    if !chromium_ready() {
        // The README's test command installs them first and sets this, so
        // there a missing browser fails rather than skips.
        assert!(
            std::env::var_os("SKYLIGHT_REQUIRE_CHROMIUM").is_none(),
            "node, chromium or web/e2e/node_modules missing"
        );
        eprintln!("skipping the Chromium check: node, chromium or web/e2e/node_modules missing");
        return;
    }
    let o = Command::new("node")
        .arg(repo().join("web/e2e/report.mjs"))
        .arg(&html)
        .output()
        .expect("node runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("roofline: "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The page's devices section names the features the run's device
/// offered (as its records hold them) and its limits.
fn names_the_devices_features(page: &str, results: &Path) {
    let text = std::fs::read_to_string(results).expect("the run's results");
    let file: serde_json::Value = serde_json::from_str(&text).expect("json");
    let offers = &file["records"][0]["platform"]["offers"];
    let features = offers["features"].as_array().expect("a feature list");
    assert!(!features.is_empty(), "lavapipe has timestamps: {offers}");
    let section = page
        .split("id=\"features\"")
        .nth(1)
        .and_then(|s| s.split("<h2").next())
        .expect("a features and limits section");
    for f in features {
        let f = f.as_str().expect("a name");
        assert!(section.contains(f), "{f} not on the page: {section}");
    }
    for limit in [
        "max_buffer_size",
        "max_storage_buffer_binding_size",
        "max_compute_workgroup_size_x",
        "device memory",
    ] {
        assert!(section.contains(limit), "{limit} not on the page");
    }
}

#[test]
fn an_unwritable_page_is_refused_before_any_file_is_read() {
    let o = skylight(&[
        "report",
        "no-such-folder",
        "-o",
        "/no/such/folder/report.html",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot write"), "{err}");
    assert!(!err.contains("no-such-folder"), "{err}");
}

#[test]
fn broken_and_cut_files_are_skipped_with_a_note() {
    let dir = scratch("broken");
    let lavapipe = repo().join("benchmarks/reference/lavapipe");
    let stream = std::fs::read_to_string(lavapipe.join("stream.json")).expect("stream.json");
    let peak = std::fs::read_to_string(lavapipe.join("peak.json")).expect("peak.json");
    std::fs::write(dir.join("stream.json"), &stream).expect("write");
    // Cut mid-record, as a power loss would leave it.
    std::fs::write(dir.join("peak.json"), &peak[..peak.len() * 2 / 3]).expect("write");
    std::fs::write(
        dir.join("broken.json"),
        "{\"schema_version\": 1, \"records\": [3]}",
    )
    .expect("write");
    std::fs::write(dir.join("stats-su3.json"), "[{\"label\": \"su3\"}]").expect("write");
    let html = dir.join("report.html");
    let err = ok(&skylight(&[
        "report",
        dir.to_str().expect("utf-8"),
        "-o",
        html.to_str().expect("utf-8"),
    ]));
    let skipped: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("note: skipping"))
        .collect();
    assert_eq!(skipped.len(), 2, "{err}");
    assert!(err.contains("cut short"), "{err}");
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(
        page.contains("broken.json"),
        "the page names what it skipped"
    );
    assert!(page.contains("class=\"roofline\""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every reference set makes a page with its charts: a roofline, or
/// scaling curves for the scale-out sets; a set of runs without the
/// roofline's `stream` ceiling (the tuned runs) has its runs' tables.
#[test]
fn every_reference_set_makes_a_page() {
    let dir = scratch("sets");
    let sets = std::fs::read_dir(repo().join("benchmarks/reference")).expect("reference sets");
    let mut made = 0;
    for set in sets
        .flatten()
        .filter(|e| e.path().join("README.md").is_file())
    {
        let html = dir.join(format!("{}.html", set.file_name().to_string_lossy()));
        ok(&skylight(&[
            "report",
            set.path().to_str().expect("utf-8"),
            "-o",
            html.to_str().expect("utf-8"),
        ]));
        let page = std::fs::read_to_string(&html).expect("the page");
        let charted = page.contains("class=\"roofline\"") || page.contains("class=\"scaling\"");
        let has_ceilings = std::fs::read_dir(set.path())
            .expect("set folder")
            .flatten()
            .filter(|f| f.path().extension().is_some_and(|x| x == "json"))
            .any(|f| {
                std::fs::read_to_string(f.path()).is_ok_and(|t| t.contains("\"app\": \"stream\""))
            });
        assert!(
            charted || (!has_ceilings && page.contains("<table")),
            "{}: no chart",
            set.path().display()
        );
        made += 1;
    }
    assert!(made >= 8, "only {made} sets");
    let _ = std::fs::remove_dir_all(&dir);
}
