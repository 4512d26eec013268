//! Scale-out under `mpirun` on the local adapter (lavapipe in CI): lbm and
//! milc on 1, 2 and 4 ranks, each validated on rank 0 against the
//! single-rank reference and compared bit for bit with one rank where the
//! arithmetic does not depend on the split; a bad split refused by
//! rank 0 alone; a failing rank ending the job instead of hanging it; and
//! the README's scale-out commands. Only built with `--features mpi`, and a
//! missing `mpirun` fails these tests: it never skips them.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod lbm;
mod milc;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skylight-mpi-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// `mpirun -np N` of the given program and arguments, killed after 300 s
/// so that a hang fails the test (exit 124) rather than stalling CI.
fn mpirun(np: usize, rest: &[&str]) -> Output {
    let np = np.to_string();
    let mut args = vec!["300", "mpirun", "--allow-run-as-root", "--oversubscribe"];
    args.extend(["-np", np.as_str()]);
    args.extend(rest);
    Command::new("timeout")
        .args(&args)
        .current_dir(repo())
        .output()
        .expect(
            "`timeout mpirun` runs: install Open MPI (apt-get install openmpi-bin libopenmpi-dev)",
        )
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `skylight run APP ARGS...` on `np` ranks (f32, 2 samples, 1
/// warm-up run) and returns its records.
fn run(np: usize, dir: &Path, app: &str, args: &[&str]) -> Vec<Value> {
    let json = dir.join(format!("{app}-{np}-{}.json", args.join("")));
    let json = json.to_str().expect("utf-8 path");
    let mut all = vec![env!("CARGO_BIN_EXE_skylight"), "run", app];
    all.extend(args);
    all.extend(["--precision", "f32", "--samples", "2", "--warmup", "1"]);
    all.extend(["--quiet", "--json", json]);
    let out = mpirun(np, &all);
    assert!(out.status.success(), "{np} ranks: {}", text(&out));
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("result file")).expect("JSON");
    file["records"].as_array().expect("records").clone()
}

/// Record `r`'s time per run of each phase every swap has, by name: the
/// kernels, the pack and unpack, the transfer (the copies, which lavapipe
/// times inside encoders, and the waits for them) and the exchange.
fn phase_times(r: &Value) -> Vec<(&'static str, f64)> {
    let phases = [
        "compute_s",
        "pack_s",
        "unpack_s",
        "transfer_s",
        "exchange_s",
    ];
    let split = &r["scale"]["split"];
    phases
        .into_iter()
        .map(|p| (p, split[p].as_f64().expect("a phase time")))
        .collect()
}

/// Seconds of a record's copies down and up (GPU-timed on lavapipe), and
/// whether its device maps storage buffers (then no copy up runs, and no
/// copy down where a lead slice of the interior runs beside the planes'
/// trip to the host).
fn copies(r: &Value) -> (f64, f64, bool) {
    let split = &r["scale"]["split"];
    let t = |p: &str| split[p].as_f64().expect("a copy's time");
    let features = r["platform"]["offers"]["features"].as_array();
    let mapped = features
        .expect("the device's features")
        .iter()
        .any(|f| f == "MAPPABLE_PRIMARY_BUFFERS");
    (t("copy_down_s"), t("copy_up_s"), mapped)
}

/// Whether record `r`'s halos travelled through the node's shared memory;
/// on a Vulkan adapter (lavapipe in CI, which imports host memory) exactly
/// when `asked` (the route the command line or the app asked for).
fn shared_halos(r: &Value, asked: bool) -> bool {
    let shared = r["scale"]["halos"] == "shared";
    if r["platform"]["backend"] == "vulkan" {
        assert_eq!(
            shared, asked,
            "{}: halos {}",
            r["kernel"], r["scale"]["halos"]
        );
    }
    shared
}

/// Runs an app (through `runs`) on 1, 2 and 4 ranks; checks that each
/// run gave `cases` records, each validated on `np` ranks owning 8 / np
/// planes, and hands each to `check` with the one-rank record of its case.
fn on_1_2_4(
    dir: &Path,
    cases: usize,
    runs: impl Fn(usize, &Path) -> Vec<Value>,
    check: impl Fn(usize, &Value, &Value),
) {
    let one = runs(1, dir);
    assert_eq!(one.len(), cases);
    for np in [1, 2, 4] {
        let records = if np == 1 { one.clone() } else { runs(np, dir) };
        assert_eq!(records.len(), one.len(), "{np} ranks");
        for (r, r1) in records.iter().zip(&one) {
            let what = format!("{np} ranks, {}", r["kernel"]);
            assert_eq!(
                r["validation"]["passed"], true,
                "{what}: {}",
                r["validation"]
            );
            assert_eq!(r["scale"]["ranks"], np, "{what}");
            assert_eq!(r["scale"]["decomposition"]["local"], 8 / np, "{what}");
            check(np, r, r1);
        }
    }
}

/// Checks that record `r` validated on a 2 x 2 grid of ranks owning 4 x 4
/// planes each; gives its label for messages.
fn validated_on_a_2x2_grid_of_4x4(r: &Value) -> String {
    let what = format!("2 x 2 grid, {}", r["kernel"]);
    assert_eq!(
        r["validation"]["passed"], true,
        "{what}: {}",
        r["validation"]
    );
    let d = &r["scale"]["decomposition"];
    let locals = (&d["local"], &d["second"]["local"]);
    assert_eq!(locals, (&4.into(), &4.into()), "{what}");
    what
}

#[test]
fn kernels_that_read_no_neighbour_are_refused_over_ranks() {
    let bin = env!("CARGO_BIN_EXE_skylight");
    let out = mpirun(
        2,
        &[bin, "run", "milc", "--size", "small", "--kernel", "axpy"],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert_eq!(
        all.matches("dslash, dslash-fused and cg").count(),
        1,
        "{all}"
    );
    let out = mpirun(2, &[bin, "run", "snap", "--size", "small"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("these do: lbm, milc"), "{all}");
}

#[test]
fn a_bad_split_is_refused_by_rank_0_before_any_device() {
    let bin = env!("CARGO_BIN_EXE_skylight");
    let out = mpirun(3, &[bin, "run", "lbm", "--size", "8", "--quiet"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert_eq!(
        all.matches("3 ranks do not divide the z axis").count(),
        1,
        "{all}"
    );
    assert!(!all.contains("adapter:"), "{all}");
    // No grid of 3 ranks over y and z divides an 8^3 box either.
    let out = mpirun(3, &[bin, "run", "lbm", "--size", "8", "--axes", "2"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert_eq!(all.matches("no grid of 3 ranks").count(), 1, "{all}");
}

/// A job of two ranks running lbm's step on 8^3, the second with `extra`
/// arguments (an MPMD launch: one rank each side of `:`).
fn second_rank_with(extra: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_skylight");
    let run = [
        bin, "run", "lbm", "--size", "8", "--kernel", "step", "--quiet",
    ];
    let mut args = run.to_vec();
    args.extend([":", "-np", "1"]);
    args.extend(run);
    args.extend(extra);
    mpirun(1, &args)
}

#[test]
fn ranks_that_would_run_different_cases_are_refused_by_rank_0() {
    let out = second_rank_with(&["--set", "steps=2"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert_eq!(
        all.matches("rank 1 planned other cases than rank 0")
            .count(),
        1,
        "{all}"
    );
}

#[test]
fn a_failing_rank_aborts_the_job_with_its_rank_and_reason() {
    let out = second_rank_with(&["--adapter", "no-such-adapter"]);
    let all = text(&out);
    assert_ne!(out.status.code(), Some(124), "the job hung: {all}");
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("rank 1: opening the adapter"), "{all}");
}

#[test]
fn scale_out_flags_without_mpirun_and_unknown_routes_are_refused_before_any_work() {
    for (args, says) in [
        (
            &["run", "lbm", "--halos", "shared"][..],
            "need an MPI launch",
        ),
        (
            &["run", "lbm", "--halos", "nvlink"][..],
            "auto, shared, mpi",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_skylight"))
            .args(args)
            .output()
            .expect("skylight runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
        assert!(!text(&out).contains("adapter:"), "{args:?} opened a device");
    }
}

/// The scale-out commands of docs/scale-out.md (whose block holds the
/// one README.md shows), as a user runs them, with few samples and their
/// files in a scratch folder.
#[test]
fn readme_scale_out_commands_run() {
    let docs =
        std::fs::read_to_string(repo().join("docs/scale-out.md")).expect("docs/scale-out.md");
    let block = docs.split("```").nth(1).expect("a fenced block");
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let start = readme
        .find("## Scale-out")
        .expect("README has `## Scale-out`");
    let shown = readme[start..]
        .split('`')
        .find(|c| c.starts_with("mpirun "))
        .expect("README's scale-out command");
    let shown = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        block.lines().any(|l| l.trim() == shown),
        "README's `{shown}` is not in docs/scale-out.md's block"
    );
    let dir = scratch("readme");
    let mut ran = 0;
    for line in block
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
    {
        let words: Vec<String> = line
            .split_whitespace()
            .map(|w| match w {
                "skylight" => env!("CARGO_BIN_EXE_skylight").to_string(),
                w if w.ends_with(".json") || w.ends_with(".svg") => {
                    dir.join(w).display().to_string()
                }
                w => w.to_string(),
            })
            .collect();
        let mut words: Vec<&str> = words.iter().map(String::as_str).collect();
        if words.first() == Some(&"mpirun") {
            let np: usize = words[2].parse().expect("mpirun -np N");
            words.extend(["--samples", "2", "--warmup", "1", "--quiet"]);
            let out = mpirun(np, &words[3..]);
            assert!(out.status.success(), "{line}: {}", text(&out));
            ran += 1;
        } else if words.first() == Some(&env!("CARGO_BIN_EXE_skylight")) {
            let out = Command::new(words[0])
                .args(&words[1..])
                .output()
                .expect("skylight runs");
            assert!(out.status.success(), "{line}: {}", text(&out));
            ran += 1;
        }
    }
    assert!(ran >= 4, "only {ran} scale-out commands ran");
    assert!(dir.join("scaling.svg").exists(), "no chart");
    let _ = std::fs::remove_dir_all(dir);
}
