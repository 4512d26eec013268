//! Every integration test of the apps, the runner and the GPU layer, in one
//! binary: each file beside this one is a module of its own (its tests are
//! named `file::test`), so the test build links wgpu and naga once rather
//! than once per file. `cargo test -p skylight-tests --test integration milc::`
//! runs one file's tests.

mod apps;
mod comd;
mod cpu;
mod df64;
mod gl;
mod gpp;
mod gpu;
mod lbm;
mod milc;
mod snap;
mod stream;
mod su3;
mod transfer;

/// Cargo's discovery of test files is off for this crate (autotests =
/// false), so a new file here that is not declared above would never be
/// built: fail rather than skip it.
#[test]
fn every_file_beside_this_one_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("integration.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/") {
        let path = entry.expect("an entry").path();
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        if path.extension().is_some_and(|e| e == "rs") && stem != "integration" {
            let line = format!("\nmod {stem};\n");
            assert!(
                declared.contains(&line),
                "tests/{stem}.rs is not a module of integration.rs"
            );
        }
    }
}
