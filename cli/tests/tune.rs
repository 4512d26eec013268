//! `skylight tune` and the runs that use its cache: a search at the CI
//! size on the real adapter, and bad input refused.

use std::process::Output;

mod common;
#[path = "common/process.rs"]
mod process;

use process::{run_to_json, scratch, skylight, stderr};

/// `tune` at the CI size: one app, a space small enough to search whole.
fn tune_su3(cache: &std::path::Path) -> Output {
    skylight(&[
        "tune",
        "su3",
        "--size",
        "small",
        "--precision",
        "f32",
        "--set",
        "variant=row,element",
        "--set",
        "wg=64,128",
        "--samples",
        "3",
        "--warmup-s",
        "0",
        "--quiet",
        "--tuning",
        cache.to_str().expect("utf-8"),
    ])
}

/// Tunes su3 into a fresh cache in scratch folder `name`: the cache's path,
/// its text and its JSON.
fn tuned(name: &str) -> (std::path::PathBuf, String, serde_json::Value) {
    let cache = scratch(name).join("tuning.json");
    let o = tune_su3(&cache);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&cache).expect("cache written");
    let file = serde_json::from_str(&text).expect("json");
    (cache, text, file)
}

/// The records of `skylight run su3` at the CI size with `extra` flags.
fn su3_records(test: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let (o, json) = su3_run(test, extra);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&json).expect("results written");
    let file: serde_json::Value = serde_json::from_str(&text).expect("json");
    file["records"].as_array().expect("records").clone()
}

/// `skylight run su3` at the CI size in f32 with `extra` flags, and where
/// its result file is.
fn su3_run(test: &str, extra: &[&str]) -> (Output, std::path::PathBuf) {
    let mut args = vec!["run", "su3", "--precision", "f32"];
    args.extend(common::FAST);
    args.extend(extra);
    run_to_json(test, &args)
}

/// CI's tune: one app at the small size on the real adapter; `run` then
/// runs the cache's best configuration and its record says so, and
/// `--untuned` runs the defaults.
#[test]
fn run_uses_the_configuration_tune_found() {
    let (cache, text, file) = tuned("tune");
    let entry = &file["entries"][0];
    assert_eq!(entry["app"], "su3", "{text}");
    assert_eq!(entry["complete"], true, "{text}");
    // The space: 2 mappings x 3 layouts (su3's, untouched) x 2 sizes.
    assert_eq!(entry["space"], 12, "{text}");
    let best = entry["best"]["variant"]
        .as_str()
        .expect("a best")
        .to_string();
    // A best other than the defaults was re-measured against them.
    let kept = match entry["best"]["config"] == entry["defaults"] {
        true => true,
        false => {
            let verdict = entry["confirm"]["verdict"].as_str().expect("re-measured");
            assert_eq!(entry["confirm"]["rounds"], 5, "{text}");
            assert_eq!(entry["confirm"]["config"], entry["best"]["config"]);
            verdict == "faster"
        }
    };
    let path = cache.to_str().expect("utf-8");
    let records = su3_records("tuned", &["--tuning", path]);
    match kept {
        true => {
            assert_eq!(records.len(), 1, "one case: the best");
            assert_eq!(records[0]["variant"], best.as_str());
            assert_eq!(records[0]["tuning"]["tuned"], "su3/mat-mul f32 L=8");
        }
        false => assert!(records.iter().all(|r| r["tuning"] == "defaults")),
    }
    let records = su3_records("untuned", &["--tuning", path, "--untuned"]);
    assert!(
        records.len() > 1,
        "the default sweep of mappings and layouts"
    );
    assert!(records.iter().all(|r| r["tuning"] == "defaults"));
    // A second tune finds the search done and measures nothing.
    let o = tune_su3(&cache);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&cache).expect("cache"), text);
}

/// `file`'s first entry with its best set to a validated configuration
/// other than the defaults and its re-measure set to `confirm` (removed
/// where null), written to `to`.
fn with_best_and_confirm(
    file: &serde_json::Value,
    confirm: serde_json::Value,
    to: &std::path::Path,
) {
    let mut file = file.clone();
    let entry = &mut file["entries"][0];
    let other = entry["trials"]
        .as_array()
        .expect("trials")
        .iter()
        .find(|t| t["passed"] == true && t["config"] != entry["defaults"])
        .expect("a validated configuration besides the defaults")
        .clone();
    entry["best"] = other.clone();
    match confirm.is_null() {
        true => _ = entry.as_object_mut().expect("entry").remove("confirm"),
        false => {
            entry["confirm"] = confirm;
            entry["confirm"]["config"] = other["config"].clone();
        }
    }
    std::fs::write(to, serde_json::to_string_pretty(&file).expect("json")).expect("write");
}

/// The guard's verdicts as `run` takes them: a best never re-measured (a
/// cache from before the guard) runs, marked and said so; a best the
/// re-measure did not confirm runs the defaults, said so.
#[test]
fn run_takes_unconfirmed_bests_with_a_note_and_rejected_ones_not_at_all() {
    let (cache, _, file) = tuned("guard");
    let path = cache.to_str().expect("utf-8");
    with_best_and_confirm(&file, serde_json::Value::Null, &cache);
    let (o, json) = su3_run("unconfirmed", &["--tuning", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("never re-measured"), "{}", stderr(&o));
    let out = std::fs::read_to_string(&json).expect("results");
    assert!(out.contains("su3/mat-mul f32 L=8 (unconfirmed)"), "{out}");
    let rejected = serde_json::json!({
        "config": {}, "rounds": 5, "defaults_s": 0.01, "tuned_s": 0.0101,
        "ratio": 1.01, "bound": 0.03, "verdict": "not-faster"
    });
    with_best_and_confirm(&file, rejected, &cache);
    let (o, json) = su3_run("rejected", &["--tuning", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not faster than the defaults when re-measured"),
        "{}",
        stderr(&o)
    );
    let out = std::fs::read_to_string(&json).expect("results");
    assert!(!out.contains("\"tuned\""), "{out}");
}

#[test]
fn tune_rejects_what_it_cannot_tune_and_a_corrupt_cache_is_named_and_ignored() {
    for (args, says) in [
        (&["tune", "fft"][..], "unknown app `fft`"),
        (
            &["tune", "milc", "--set", "kappa=0.1"][..],
            "not a tunable parameter",
        ),
        (&["tune", "peak"][..], "nothing to tune"),
        (&["tune", "all", "--set", "kappa=0.1"][..], "no app tunes"),
    ] {
        let o = skylight(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let corrupt = scratch("corrupt").join("tuning.json");
    std::fs::write(&corrupt, "{\"skylight_tuning\": 1, \"entries\": [").expect("write");
    let path = corrupt.to_str().expect("utf-8");
    let (o, json) = su3_run("corrupt", &["--set", "variant=row", "--tuning", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(path), "{}", stderr(&o));
    let text = std::fs::read_to_string(&json).expect("results written");
    assert!(!text.contains("\"tuned\""), "{text}");
}

/// `pp` of the committed tuning caches: per app, the defaults' and one
/// portable configuration's PP against each platform's tuned best; a
/// result file among caches is refused.
#[test]
fn pp_of_tuning_caches_gives_portable_and_defaults_per_app() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benchmarks/tuning");
    let h200 = dir.join("nvidia-h200.json");
    let lavapipe = dir.join("lavapipe.json");
    let (h200, lavapipe) = (
        h200.to_str().expect("utf-8"),
        lavapipe.to_str().expect("utf-8"),
    );
    let o = skylight(&["pp", h200, lavapipe]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("P1 = NVIDIA H200 (vulkan)"), "{out}");
    assert!(out.contains("| app | kernels x precisions | platforms | PP defaults | PP portable |"));
    assert!(out.contains("| milc |"), "{out}");
    let records = dir.join("runs/browser-tuned.json");
    let o = skylight(&["pp", h200, records.to_str().expect("utf-8")]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("not both"), "{}", stderr(&o));
    // One platform: nothing to compare.
    let o = skylight(&["pp", h200]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("two platforms"), "{}", stderr(&o));
}
