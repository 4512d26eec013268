//! The `skylight` binary's contract: clear errors and exit codes for bad
//! input, a validated run and a chart for good input.

use std::process::{Command, Output};

fn skylight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(args)
        .output()
        .expect("the skylight binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn unknown_app_is_exit_2_with_its_name() {
    let o = skylight(&["run", "fft"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown app `fft`"), "{}", stderr(&o));
}

#[test]
fn bad_parameters_are_exit_2_before_any_device_work() {
    for args in [
        &["run", "stream", "--size", "lots"][..],
        &["run", "stream", "--layout", "soa"][..],
        &["run", "stream", "--precision", "f16"][..],
        &["run", "su3", "--set", "mapping=diagonal"][..],
    ] {
        let o = skylight(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("error"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn malformed_result_files_are_exit_2_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("skylight-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in [
        ("truncated.json", "{\"schema_version\": 1, \"records\": ["),
        ("foreign.json", "{\"hello\": 1}"),
        ("future.json", "{\"schema_version\": 99, \"records\": []}"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let o = skylight(&["roofline", "--from", path.to_str().expect("utf-8 path")]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(name), "{name}: {}", stderr(&o));
    }
    let o = skylight(&["roofline", "--from", "/nonexistent/results.json"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A small validated run on the real adapter writes a result file that the
/// roofline command then draws.
#[test]
fn small_run_writes_results_and_a_chart() {
    let dir = std::env::temp_dir().join(format!("skylight-cli-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let json = dir.join("r.json");
    let svg = dir.join("r.svg");
    let o = skylight(&[
        "run",
        "stream",
        "--size",
        "small",
        "--kernel",
        "triad,copy-buffer",
        "--samples",
        "3",
        "--quiet",
        "--json",
        json.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("stream/triad") && stdout.contains(" ok "),
        "{stdout}"
    );
    let o = skylight(&[
        "roofline",
        "--from",
        json.to_str().expect("utf-8"),
        "--plot",
        svg.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let chart = std::fs::read_to_string(&svg).expect("chart written");
    assert!(
        chart.contains("<svg") && chart.contains("bandwidth"),
        "chart lacks content"
    );
}
