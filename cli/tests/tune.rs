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
    let cache = scratch("tune").join("tuning.json");
    let o = tune_su3(&cache);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&cache).expect("cache written");
    let file: serde_json::Value = serde_json::from_str(&text).expect("json");
    let entry = &file["entries"][0];
    assert_eq!(entry["app"], "su3", "{text}");
    assert_eq!(entry["complete"], true, "{text}");
    // The space: 2 mappings x 3 layouts (su3's, untouched) x 2 sizes.
    assert_eq!(entry["space"], 12, "{text}");
    let best = entry["best"]["variant"]
        .as_str()
        .expect("a best")
        .to_string();
    let path = cache.to_str().expect("utf-8");
    let records = su3_records("tuned", &["--tuning", path]);
    assert_eq!(records.len(), 1, "one case: the best");
    assert_eq!(records[0]["variant"], best.as_str());
    assert_eq!(records[0]["tuning"]["tuned"], "su3/mat-mul f32 L=8");
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
