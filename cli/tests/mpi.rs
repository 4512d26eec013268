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

/// Runs lbm's four kernels (3 steps, 8^3) on `np` ranks.
fn lbm(np: usize, dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--size", "8", "--kernel", "collide,propagate,fused,step"];
    args.extend(["--set", "steps=3"]);
    args.extend(extra);
    run(np, dir, "lbm", &args)
}

/// Runs milc's operator (split and fused) and its solve (with either
/// operator: MILC's split Dslash, or M in one pass) on the small lattice
/// (4^3 x 8) on `np` ranks.
fn milc(np: usize, dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec![
        "--size",
        "small",
        "--kernel",
        "dslash,dslash-fused,cg",
        "--set",
        "operator=split,fused",
    ];
    args.extend(extra);
    run(np, dir, "milc", &args)
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
fn one_two_and_four_ranks_agree_bit_for_bit() {
    let dir = scratch("agree");
    on_1_2_4(
        &dir,
        4,
        |np, dir| lbm(np, dir, &[]),
        |np, r, r1| {
            let what = format!("{np} ranks, {}", r["kernel"]);
            assert_eq!(
                r["metrics"]["field_hash"], r1["metrics"]["field_hash"],
                "{what}"
            );
            // Collision alone reads no neighbour, so only it swaps no halos.
            let swaps = r["kernel"] != "collide";
            for (phase, t) in phase_times(r) {
                assert_eq!(
                    t > 0.0,
                    phase == "compute_s" || swaps,
                    "{what}: {phase} {t}"
                );
            }
            // 8 / np planes a rank: 4 ranks leave no interior to overlap.
            let overlapped = swaps && np < 4;
            assert_eq!(r["scale"]["overlap"], true, "{what}");
            let hidden = r["scale"]["split"]["overlap_s"].as_f64().expect("overlap");
            assert_eq!(hidden > 0.0, overlapped, "{what}: overlap {hidden}");
            let (down, up, mapped) = copies(r);
            let lead = overlapped && mapped;
            assert_eq!(down > 0.0, swaps && !lead, "{what}: copy down {down}");
            assert_eq!(up > 0.0, swaps && !mapped, "{what}: copy up {up}");
        },
    );
    // The one-rank record of a kernel (fields that must not depend on the split).
    let one = lbm(1, &dir, &[]);
    let one_rank = |r: &Value| -> Value {
        let same = one.iter().find(|o| o["kernel"] == r["kernel"]);
        same.expect("the kernel on one rank").clone()
    };
    // A 2 x 2 grid over y and z: the same fields, corners included (they
    // arrive through the y swap, then the z swap).
    for r in lbm(4, &dir, &["--axes", "2"]) {
        let what = validated_on_a_2x2_grid_of_4x4(&r);
        let hash = &one_rank(&r)["metrics"]["field_hash"];
        assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
    }
    // The rows form (`auto` takes it at wg = L = 8) on the same grid, whose
    // boundary boxes are single rows: the same fields.
    for r in lbm(4, &dir, &["--axes", "2", "--wg", "8"]) {
        let what = validated_on_a_2x2_grid_of_4x4(&r);
        let rows = r["variant"].as_str().expect("variant").ends_with("/rows");
        assert_eq!(rows, r["kernel"] != "collide", "{what}");
        let hash = &one_rank(&r)["metrics"]["field_hash"];
        assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
    }
    // Without overlap the same fields, every plane updated after the swap.
    for r in lbm(2, &dir, &["--no-overlap"]) {
        let what = format!("no overlap, {}", r["kernel"]);
        assert_eq!(r["scale"]["overlap"], false, "{what}");
        assert_eq!(r["scale"]["split"]["overlap_s"], 0.0, "{what}");
        let hash = &one_rank(&r)["metrics"]["field_hash"];
        assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
    }
    // Through the node's shared memory, on two slabs (each a lead slice
    // beside the planes' trip) and a 2 x 2 grid (corners through two
    // mailboxes in turn): the same fields; the planes that arrived are
    // fetched into device memory on their own (a copy up: lbm runs nothing
    // beside the fetch), and copied down only where no interior runs
    // beside them.
    for (np, axes) in [(2, "1"), (4, "2")] {
        for r in lbm(np, &dir, &["--halos", "shared", "--axes", axes]) {
            let what = format!("shared memory, {np} ranks, {}", r["kernel"]);
            assert_eq!(
                r["validation"]["passed"], true,
                "{what}: {}",
                r["validation"]
            );
            let hash = &one_rank(&r)["metrics"]["field_hash"];
            assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
            let (down, up, _) = copies(&r);
            // Collision swaps nothing, and so copies nothing either way.
            let swaps = r["kernel"] != "collide";
            if shared_halos(&r, true) {
                assert_eq!(up > 0.0, swaps, "{what}: copy up {up}");
                assert_eq!(down > 0.0, swaps && np == 4, "{what}: copy down {down}");
            }
        }
    }
    // Weak scaling: an 8 x 8 x 16 lattice over two ranks, still validated.
    for r in lbm(2, &dir, &["--scaling", "weak"]) {
        assert_eq!(r["validation"]["passed"], true, "weak: {}", r["validation"]);
        assert_eq!(r["params"]["lattice"], "8x8x16");
    }
    // The check of a field too large to gather (one step, on a sample each
    // rank reads from its own slab): the same sample, the same bits, on 2
    // slabs and a 2 x 2 grid.
    let sampled = |np: usize, axes: &str| {
        let mut args = vec!["--size", "8", "--kernel", "propagate,fused,step"];
        args.extend(["--set", "check=sample", "--axes", axes]);
        run(np, &dir, "lbm", &args)
    };
    let (slabs, grid) = (sampled(2, "1"), sampled(4, "2"));
    for (a, b) in slabs.iter().zip(&grid) {
        for r in [a, b] {
            let detail = r["validation"]["detail"].as_str().expect("detail");
            assert_eq!(r["validation"]["passed"], true, "{detail}");
            assert!(detail.contains("a sample of"), "{detail}");
        }
        assert_eq!(
            a["metrics"]["field_hash"], b["metrics"]["field_hash"],
            "{}",
            a["kernel"]
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn milc_on_one_two_and_four_ranks_matches_the_single_device_reference() {
    let dir = scratch("milc");
    on_1_2_4(
        &dir,
        4,
        |np, dir| milc(np, dir, &[]),
        |np, r, r1| {
            let what = format!("{np} ranks, {}", r["kernel"]);
            assert_eq!(r["scale"]["decomposition"]["axis"], "t", "{what}");
            // A site's Dslash is the same arithmetic however the lattice is
            // split; a solve's dot products add in a different order.
            if r["kernel"] == "cg" {
                assert!(r["metrics"]["cg_iterations"].as_f64() > Some(1.0), "{what}");
            } else {
                assert_eq!(
                    r["metrics"]["field_hash"], r1["metrics"]["field_hash"],
                    "{what}"
                );
            }
            // Every one of these kernels swaps halos (the solve also sums).
            for (phase, t) in phase_times(r) {
                assert!(t > 0.0, "{what}: {phase} {t}");
            }
            // milc's halos go through shared memory where they can. MILC's
            // split Dslash (no interior beside the planes' trip) copies them
            // down; slabs this thin have no interior to fetch them beside,
            // so they are fetched on their own (a copy up).
            let (down, up, _) = copies(r);
            if shared_halos(r, true) {
                let variant = r["variant"].as_str().expect("variant");
                let one_pass = r["kernel"] == "dslash-fused" || variant.contains("/fused/");
                let beside = np < 4 && one_pass;
                assert!(up > 0.0, "{what}: copy up {up}");
                assert_eq!(down > 0.0, !beside, "{what}: copy down {down}");
            }
        },
    );
    // Through MPI (`--halos mpi`): the same Dslash bits; nothing runs beside
    // milc's packs, so its planes are copied down.
    let one = milc(1, &dir, &[]);
    for r in milc(2, &dir, &["--halos", "mpi"]) {
        let what = format!("MPI, {}", r["kernel"]);
        assert_eq!(
            r["validation"]["passed"], true,
            "{what}: {}",
            r["validation"]
        );
        assert!(!shared_halos(&r, false), "{what}");
        let (down, up, mapped) = copies(&r);
        assert!(
            down > 0.0 && (up > 0.0) != mapped,
            "{what}: copies {down}, {up}"
        );
        let r1 = one
            .iter()
            .find(|o| o["kernel"] == r["kernel"] && o["variant"] == r["variant"]);
        if r["kernel"] != "cg" {
            let hash = &r1.expect("one rank")["metrics"]["field_hash"];
            assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
        }
    }
    // Slabs of 16 time slices: the interior in three (a lead beside the
    // planes' trip down, a stretch while the ranks meet, the rest beside the
    // fetch of what arrived), so nothing is copied either way; the same
    // Dslash bits and CG steps as one rank. In AoS and AoSoA, whose planes
    // are packed in different orders.
    let thick = ["--size", "4x32", "--kernel", "dslash-fused,cg"];
    let layouts = ["--set", "operator=fused", "--set", "layout=aos,aosoa-4"];
    let thick = [&thick[..], &layouts[..]].concat();
    let one = run(1, &dir, "milc", &thick);
    let two = run(2, &dir, "milc", &thick);
    assert_eq!(two.len(), 4, "two kernels in two layouts");
    for r in two {
        let what = format!("16 slices, {} {}", r["kernel"], r["variant"]);
        assert_eq!(
            r["validation"]["passed"], true,
            "{what}: {}",
            r["validation"]
        );
        let same_case = |o: &&Value| o["kernel"] == r["kernel"] && o["variant"] == r["variant"];
        let r1 = one.iter().find(same_case).expect("one rank");
        let same = match r["kernel"] == "cg" {
            true => "cg_iterations",
            false => "field_hash",
        };
        assert_eq!(r["metrics"][same], r1["metrics"][same], "{what}");
        if shared_halos(&r, true) {
            let (down, up, _) = copies(&r);
            assert_eq!((down, up), (0.0, 0.0), "{what}: copies");
            let interior = r["scale"]["split"]["interior_s"].as_f64();
            assert!(interior > Some(0.0), "{what}: {}", r["scale"]["split"]);
        }
    }
    // Weak scaling: 4^3 x 16 over two ranks, still validated.
    for r in milc(2, &dir, &["--scaling", "weak"]) {
        assert_eq!(r["validation"]["passed"], true, "weak: {}", r["validation"]);
        assert_eq!(r["params"]["T"], "16");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn milc_over_a_grid_of_ranks_overlaps_and_matches_one_rank() {
    let dir = scratch("milc-grid");
    // 8^3 x 8 over 2 x 2 ranks along z and t: 4 planes each way, so each
    // rank has an interior to update while its halos travel.
    let args = |extra: &'static str| {
        let mut a = vec!["--size", "8x8", "--kernel", "dslash-fused,cg"];
        a.extend(["--set", "operator=fused", "--set", "iterations=40"]);
        a.extend(["--axes", extra]);
        a
    };
    let one = run(1, &dir, "milc", &args("1"));
    for r in run(4, &dir, "milc", &args("2")) {
        let what = validated_on_a_2x2_grid_of_4x4(&r);
        // Through MPI the interior runs while the planes travel; through
        // shared memory (too thin a slab for a lead) beside their trip to
        // the host, in the same pass.
        let split = &r["scale"]["split"];
        let (hidden, interior) = (split["overlap_s"].as_f64(), split["interior_s"].as_f64());
        let overlapped = match shared_halos(&r, true) {
            true => interior > Some(0.0),
            false => hidden > Some(0.0),
        };
        assert!(overlapped, "{what}: nothing overlapped ({split})");
        let r1 = one
            .iter()
            .find(|o| o["kernel"] == r["kernel"])
            .expect("one rank");
        if r["kernel"] == "cg" {
            assert_eq!(
                r["metrics"]["cg_iterations"], r1["metrics"]["cg_iterations"],
                "{what}"
            );
        } else {
            // The z swap carries gamma_z's projections (complex phases).
            assert_eq!(
                r["metrics"]["field_hash"], r1["metrics"]["field_hash"],
                "{what}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
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

#[test]
fn ranks_that_would_run_different_cases_are_refused_by_rank_0() {
    let bin = env!("CARGO_BIN_EXE_skylight");
    let run = [
        bin, "run", "lbm", "--size", "8", "--kernel", "step", "--quiet",
    ];
    let mut args = run.to_vec();
    args.extend([":", "-np", "1"]);
    args.extend(run);
    args.extend(["--set", "steps=2"]);
    let out = mpirun(1, &args);
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
    let bin = env!("CARGO_BIN_EXE_skylight");
    let run = [
        bin, "run", "lbm", "--size", "8", "--kernel", "step", "--quiet",
    ];
    let mut args = run.to_vec();
    args.extend([":", "-np", "1"]);
    args.extend(run);
    args.extend(["--adapter", "no-such-adapter"]);
    let out = mpirun(1, &args);
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
