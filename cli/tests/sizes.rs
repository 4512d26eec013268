//! Impossible problem sizes: each app refuses them when its cases are made,
//! before any case is prepared (nothing drawn, allocated or uploaded), with
//! exit 2 and an error naming the largest size that fits.

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `skylight run <args>` and checks that it fails fast with exit 2,
/// saying `says` and naming the largest size that fits.
fn refused(args: &[&str], says: &str) {
    let start = Instant::now();
    let mut all = vec!["run"];
    all.extend(args);
    all.extend(["--samples", "2", "--warmup-s", "0", "--quiet"]);
    let o = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(&all)
        .output()
        .expect("the skylight binary runs");
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(err.contains("that fits is"), "{args:?}: {err}");
    // Opening the adapter is all the work done: no input is drawn.
    assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
}

/// 2^62, the largest size that parses, once overflowed the footprint.
#[test]
fn stream_past_memory_is_refused() {
    for size in ["2^40", "2^62"] {
        refused(
            &["stream", "--size", size, "--kernel", "triad"],
            "device memory",
        );
    }
}

/// A backend that reports no device memory (GL) bounds it by the host's.
#[test]
fn stream_past_memory_without_a_device_figure_is_refused() {
    refused(
        &[
            "stream",
            "--backend",
            "gl",
            "--size",
            "2^40",
            "--kernel",
            "triad",
        ],
        "bounded by host memory",
    );
}

/// Past L = 8192 the sites are not counted at all (L = 70000's L^4
/// overflows u64), yet the error still names the largest L that fits.
#[test]
fn su3_past_memory_is_refused() {
    refused(&["su3", "--size", "1000"], "device memory");
    refused(&["su3", "--size", "70000"], "beyond any device's memory");
}

/// Lavapipe's 32 storage bindings a stage hold no split of a field of
/// L = 300; L = 5000 has more sites than a u32 indexes.
#[test]
fn lbm_past_the_bindings_is_refused() {
    refused(
        &["lbm", "--size", "300", "--kernel", "collide"],
        "max_storage_buffers_per_shader_stage",
    );
    refused(
        &["lbm", "--size", "5000", "--kernel", "collide"],
        "u32 index",
    );
}

/// L = 200 at T = 400 has more link reals than a u32 indexes (the
/// largest at that T is named), before any binding is counted.
#[test]
fn milc_past_the_bindings_is_refused() {
    refused(
        &["milc", "--size", "64", "--kernel", "dslash"],
        "does not fit this adapter",
    );
    refused(
        &["milc", "--size", "200", "--kernel", "dslash"],
        "u32 indices reach; at T = 400, the largest that fits is L = 53",
    );
}

/// Lavapipe's 128 MiB binding holds no comd array of 200 unit cells
/// (32 million atoms): refused before the system is built.
#[test]
fn comd_past_a_binding_is_refused() {
    refused(
        &["comd", "--size", "200", "--kernel", "advance_velocity"],
        "max_storage_buffer_binding_size",
    );
}

/// Every app's cases are made before any runs: a size that a later app of
/// `run all` refuses (gpp's needs three counts) stops the run with exit 2
/// before the first app (stream, which takes 1024 elements) runs a case.
#[test]
fn a_later_apps_refusal_stops_run_all_before_any_case() {
    let o = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args([
            "run",
            "all",
            "--size",
            "1024",
            "--samples",
            "2",
            "--warmup-s",
            "0",
        ])
        .output()
        .expect("the skylight binary runs");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("app `gpp`: bad parameter `size`"), "{err}");
    assert!(!out.contains("stream/"), "a case ran: {out}");
}
