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
