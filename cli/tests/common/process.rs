//! Running the `skylight` binary from a CLI test: its output, and
//! scratch folders for the files it writes.

use std::process::{Command, Output};

/// `skylight <args>`, run to completion.
pub fn skylight(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(args)
        .output()
        .expect("the skylight binary runs")
}

/// Its standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh scratch folder for one test's files.
pub fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skylight-cli-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `skylight <args> --json FILE` with FILE in a scratch folder of `test`.
pub fn run_to_json(test: &str, args: &[&str]) -> (Output, std::path::PathBuf) {
    let json = scratch(test).join("results.json");
    let mut all = args.to_vec();
    all.extend(["--json", json.to_str().expect("utf-8")]);
    (skylight(&all), json)
}
