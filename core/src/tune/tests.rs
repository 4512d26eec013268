use std::collections::BTreeMap;

use super::cache::{Choice, DeviceKey, Entry, Trial, TuningCache};
use super::confirm::{self, Confirmation, Verdict, judge};
use super::portable;
use super::search::{self, Ended, Eval};
use super::space::{self, Space};
use super::*;
use crate::app::Request;
use crate::apps::milc::Milc;
use crate::error::Error;
use crate::gpu::PlatformInfo;
use crate::record::Tuning;
use crate::registry;
use crate::runner::{Configure, cpu_capabilities, plan};

fn small() -> Request {
    Request::default().set("size", "small")
}

/// The units of `app`'s small problem, and each one's space.
fn spaces(app: &dyn App, req: &Request) -> Vec<(Unit, Space)> {
    let caps = cpu_capabilities();
    let cases = plan(app, req, &caps, true).expect("plan").cases;
    let mut out: Vec<(Unit, Space)> = Vec::new();
    for c in &cases {
        let unit = Unit::of(app, c);
        if out.iter().all(|(u, _)| *u != unit) {
            let axes = space::declared(app, &[]).expect("declared");
            let s = Space::new(app, req, &unit, axes, &caps);
            out.push((unit, s));
        }
    }
    out
}

#[test]
fn every_tunable_parameter_exists_and_the_defaults_make_one_case() {
    let caps = cpu_capabilities();
    for app in registry::apps() {
        let req = small().precisions(&[Precision::F32]);
        if app.tunable().is_empty() {
            continue;
        }
        for (name, values) in app.tunable() {
            assert_eq!(app.param_name(name), Some(name), "{}: {name}", app.name());
            let checked = crate::params::Resolved::new(app, &Request::default().set(name, values));
            assert!(checked.is_ok(), "{}: {name}={values}", app.name());
        }
        for (unit, s) in spaces(app, &req) {
            let defaults = s.config(&vec![0; s.axes.len()]);
            let made = space::cases(app, &req, &unit, &defaults, &caps).expect("defaults");
            assert_eq!(made.len(), 1, "{}: {made:?}", unit.label());
        }
    }
}

#[test]
fn milc_searches_the_published_best_and_only_what_matters_to_a_kernel() {
    let req = small().precisions(&[Precision::F32]);
    let all = spaces(&Milc, &req);
    let names = |kernel: &str| -> Vec<String> {
        let (_, s) = all.iter().find(|(u, _)| u.kernel == kernel).expect("unit");
        s.axes.iter().map(|a| a.name.clone()).collect()
    };
    let cg = names("cg");
    for p in ["operator", "layout", "wg", "complex", "block-y", "tile-t"] {
        assert!(cg.contains(&p.to_string()), "cg: {cg:?}");
    }
    // No solve, no operator; no one-pass operator, no blocks.
    let dslash = names("dslash");
    assert!(
        !dslash.iter().any(|n| n == "operator" || n == "block-y"),
        "{dslash:?}"
    );
    let (unit, _) = all.iter().find(|(u, _)| u.kernel == "cg").expect("cg");
    let best: Config = [
        ("layout", "aosoa-32"),
        ("wg", "512"),
        ("complex", "pairs"),
        ("operator", "fused"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .into();
    let made = space::cases(&Milc, &req, unit, &best, &cpu_capabilities()).expect("best");
    assert_eq!(made.len(), 1);
    assert!(
        made[0].variant.starts_with("aosoa-32/vvl1/wg512/pairs/"),
        "{}",
        made[0].variant
    );
    assert!(made[0].variant.contains("/fused"), "{}", made[0].variant);
}

#[test]
fn overrides_must_name_tunable_parameters_and_valid_values() {
    let axes = space::declared(&Milc, &[("wg".into(), "128,256".into())]).expect("wg");
    let wg = axes
        .iter()
        .find(|a| a.name == "wg")
        .map(|a| a.values.clone());
    assert_eq!(wg, Some(vec!["128".to_string(), "256".to_string()]));
    for (name, value) in [("kappa", "0.1"), ("wg", "100000"), ("nope", "1")] {
        match space::declared(&Milc, &[(name.into(), value.into())]) {
            Err(Error::BadParameter { .. }) => {}
            other => panic!("{name}={value}: {other:?}"),
        }
    }
    let peak = registry::find("peak").expect("peak");
    let err = space::declared(peak, &[("wg".into(), "64".into())]).expect_err("peak");
    assert!(err.to_string().contains("nothing to tune"), "{err}");
}

/// A separable cost with its minimum at `at`; `None` marks failing points.
fn cost(p: &[usize], at: &[usize]) -> f64 {
    p.iter()
        .zip(at)
        .map(|(a, b)| 1.0 + a.abs_diff(*b) as f64)
        .product()
}

fn searched(dims: &[usize], at: &[usize], limit: usize) -> (Ended, Vec<Vec<usize>>) {
    let mut seen = Vec::new();
    let ended = pollster::block_on(search::run(dims, 7, async |p: &[usize]| {
        if seen.len() == limit {
            return Eval::Stop;
        }
        seen.push(p.to_vec());
        match p[0] == 1 {
            true => Eval::Failed,
            false => Eval::Time(cost(p, at)),
        }
    }));
    (ended, seen)
}

#[test]
fn small_spaces_are_searched_whole_and_large_ones_locally() {
    let (ended, seen) = searched(&[3, 2, 4], &[2, 1, 3], usize::MAX);
    assert_eq!(ended, Ended::Complete);
    assert_eq!(seen.len(), 24);
    assert_eq!(seen[0], vec![0, 0, 0], "the defaults first");
    // 7 x 5 x 5 x 3: local moves find the minimum, measuring a point once,
    // and the same seed searches the same way.
    let dims = [7, 5, 5, 3];
    let (ended, seen) = searched(&dims, &[5, 4, 0, 2], usize::MAX);
    assert_eq!(ended, Ended::Complete);
    assert!(seen.contains(&vec![5, 4, 0, 2]));
    assert!(seen.len() < 7 * 5 * 5 * 3 / 2, "{}", seen.len());
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), seen.len());
    assert_eq!(searched(&dims, &[5, 4, 0, 2], usize::MAX).1, seen);
    // A budget cut stops it.
    let (ended, cut) = searched(&dims, &[5, 4, 0, 2], 10);
    assert_eq!((ended, cut.len()), (Ended::Stopped, 10));
    assert_eq!(cut, seen[..10]);
}

fn info(name: &str, driver: &str) -> PlatformInfo {
    PlatformInfo {
        index: Some(0),
        name: name.into(),
        backend: "vulkan".into(),
        device_type: "discrete".into(),
        driver: "d".into(),
        driver_info: driver.into(),
        vendor: 0x10de,
        device: 0x2335,
        df64: None,
        offers: None,
    }
}

fn trial(config: &Config, t: Option<f64>, passed: bool) -> Trial {
    Trial {
        config: config.clone(),
        variant: format!("{config:?}"),
        median_s: t,
        passed,
        detail: String::new(),
        wall_s: 0.1,
    }
}

/// An entry of milc's small f32 cg on `device` whose best is `wg`.
fn entry(device: &PlatformInfo, wg: &str) -> Entry {
    let req = small().precisions(&[Precision::F32]);
    let (unit, _) = spaces(&Milc, &req)
        .into_iter()
        .find(|(u, _)| u.kernel == "cg")
        .expect("cg");
    let defaults: Config = BTreeMap::from([("wg".to_string(), "128".to_string())]);
    let mut e = Entry {
        device: DeviceKey::of(device),
        unit,
        defaults: defaults.clone(),
        space: 5,
        complete: true,
        trials: Vec::new(),
        best: None,
        confirm: None,
    };
    e.add(trial(&defaults, Some(2.0), true));
    let fast = BTreeMap::from([("wg".to_string(), "1024".to_string())]);
    e.add(trial(&fast, Some(0.5), false));
    e.add(trial(
        &BTreeMap::from([("wg".to_string(), wg.to_string())]),
        Some(1.0),
        true,
    ));
    e
}

#[test]
fn entries_keep_the_fastest_valid_trial_and_round_trip() {
    let e = entry(&info("GPU", "1"), "256");
    assert_eq!(
        e.best.as_ref().map(|b| b.config["wg"].as_str()),
        Some("256")
    );
    assert_eq!(e.gain(), Some(2.0));
    let mut cache = TuningCache::new();
    cache.entries.push(e);
    let text = cache.to_json();
    assert_eq!(TuningCache::from_json(&text, "t.json").ok(), Some(cache));
    for bad in [
        "{",
        "{\"entries\": []}",
        "{\"skylight_tuning\": 9, \"entries\": []}",
        "[]",
    ] {
        match TuningCache::from_json(bad, "/x/t.json") {
            Err(Error::BadFile { path, .. }) => assert_eq!(path, "/x/t.json"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn a_run_uses_its_device_s_best_warns_for_another_driver_and_never_another_device() {
    let caps = cpu_capabilities();
    let req = small()
        .precisions(&[Precision::F32])
        .set("kernel", "cg,dot");
    let planned = plan(&Milc, &req, &caps, true).expect("plan").cases;
    let mut cache = TuningCache::new();
    cache.entries.push(entry(&info("GPU", "1"), "256"));
    cache.entries.push(entry(&info("GPU", "2"), "512"));
    cache.entries.push(entry(&info("Other GPU", "1"), "64"));
    let wg_of = |tuned: &apply::Tuned, r: &Request| {
        let out = tuned
            .configure(&Milc, r, &caps, planned.clone())
            .expect("configure");
        let cg: Vec<_> = out.into_iter().filter(|(c, _)| c.kernel == "cg").collect();
        assert_eq!(cg.len(), 1);
        (cg[0].0.params["wg"].clone(), cg[0].1.clone())
    };
    let (same, warning) = apply::Tuned::new(&cache, &info("GPU", "1"));
    assert!(warning.is_none());
    let (wg, tuning) = wg_of(&same, &req);
    assert_eq!(wg, "256");
    assert!(matches!(tuning, Tuning::Tuned(l) if l.starts_with("milc/cg f32")));
    // Another version of the driver: one of its entries, said so.
    let (newer, warning) = apply::Tuned::new(&cache, &info("GPU", "3"));
    assert!(warning.is_some_and(|w| w.contains("another driver")));
    assert!(matches!(wg_of(&newer, &req).1, Tuning::Tuned(l) if l.contains("measured with")));
    // Another device: nothing; a run that sets a tunable parameter: its own.
    let (none, _) = apply::Tuned::new(&cache, &info("Third GPU", "1"));
    assert!(none.is_empty());
    assert_eq!(wg_of(&none, &req), ("128".to_string(), Tuning::Defaults));
    let own = req.clone().set("wg", "64");
    let planned_own = plan(&Milc, &own, &caps, true).expect("plan").cases;
    let out = same
        .configure(&Milc, &own, &caps, planned_own)
        .expect("own");
    assert!(
        out.iter()
            .all(|(c, t)| c.params["wg"] == "64" && *t == Tuning::Defaults)
    );
}

#[test]
fn the_guard_keeps_a_candidate_only_when_faster_beyond_the_noise() {
    // Steady rounds: the floor is the bound.
    let c = judge(&[0.80, 0.81, 0.79, 0.80, 0.82]);
    assert!(c.faster && (c.ratio - 0.80).abs() < 1e-12, "{c:?}");
    assert_eq!(c.bound, confirm::FLOOR);
    // Within the floor: not faster.
    assert!(!judge(&[0.98, 0.98, 0.97, 0.99, 0.98]).faster);
    // A median of 0.90 whose rounds scatter by about 10%: the spread's
    // bound (2 x 1.2533 x 1.4826 x 0.1 / sqrt 5 = 0.166) exceeds the gain.
    let noisy = judge(&[0.80, 0.90, 1.00, 0.70, 1.10]);
    assert!((noisy.ratio - 0.90).abs() < 1e-12);
    assert!((noisy.bound - 0.1662).abs() < 1e-3, "{noisy:?}");
    assert!(!noisy.faster);
    // A slower candidate, no rounds, or a broken time: never faster.
    assert!(!judge(&[1.2, 1.1, 1.3]).faster);
    assert!(!judge(&[]).faster);
    assert!(!judge(&[0.5, f64::NAN, 0.5]).faster);
    assert!(!judge(&[0.5, 0.0, 0.5]).faster);
    // The record: both medians, the rounds, the verdict.
    let config: Config = BTreeMap::from([("wg".to_string(), "256".to_string())]);
    let rounds = [(2.0, 1.0), (2.2, 1.0), (2.0, 1.1), (1.8, 0.9), (2.0, 1.0)];
    let made = Confirmation::of(config.clone(), &rounds);
    assert_eq!((made.rounds, made.verdict), (5, Verdict::Faster));
    assert_eq!((made.defaults_s, made.tuned_s), (2.0, 1.0));
    assert_eq!(made.gain(), Some(2.0));
    let slow = Confirmation::of(config, &[(1.0, 1.01), (1.0, 0.99), (1.0, 1.0)]);
    assert_eq!(slow.verdict, Verdict::NotFaster);
    assert!(
        slow.summary().starts_with("not confirmed"),
        "{}",
        slow.summary()
    );
}

#[test]
fn a_run_takes_a_confirmed_best_and_the_defaults_where_the_guard_rejected_it() {
    let caps = cpu_capabilities();
    let req = small().precisions(&[Precision::F32]).set("kernel", "cg");
    let planned = plan(&Milc, &req, &caps, true).expect("plan").cases;
    let gpu = info("GPU", "1");
    let run = |e: &Entry| {
        let mut cache = TuningCache::new();
        cache.entries.push(e.clone());
        let (tuned, _) = apply::Tuned::new(&cache, &gpu);
        let out = tuned
            .configure(&Milc, &req, &caps, planned.clone())
            .expect("configure");
        (out[0].0.params["wg"].clone(), out[0].1.clone(), tuned)
    };
    let mut e = entry(&gpu, "256");
    let best = e.best.clone().expect("best").config;
    // Never re-measured: used, marked.
    assert!(e.needs_confirm());
    let (wg, tuning, tuned) = run(&e);
    assert_eq!(wg, "256");
    assert!(matches!(tuning, Tuning::Tuned(l) if l.ends_with("(unconfirmed)")));
    assert_eq!((tuned.unconfirmed(), tuned.len()), (1, 1));
    // Confirmed: used, unmarked.
    e.confirm = Some(Confirmation::of(best.clone(), &[(2.0, 1.0); 5]));
    assert!(!e.needs_confirm());
    let (wg, tuning, _) = run(&e);
    assert_eq!(wg, "256");
    assert_eq!(tuning, Tuning::Tuned(e.unit.label()));
    // Rejected, or failed: the defaults, said so.
    for c in [
        Confirmation::of(best.clone(), &[(1.0, 0.99); 5]),
        Confirmation::failed(best.clone(), "did not build".into()),
    ] {
        e.confirm = Some(c);
        assert!(matches!(e.choice(), Choice::Rejected(_)));
        let (wg, tuning, tuned) = run(&e);
        assert_eq!((wg.as_str(), tuning), ("128", Tuning::Defaults));
        assert_eq!(tuned.rejected().len(), 1);
        assert!(tuned.is_empty());
    }
    // A re-measure of another configuration is stale: re-measured again.
    let other = BTreeMap::from([("wg".to_string(), "64".to_string())]);
    e.confirm = Some(Confirmation::of(other, &[(2.0, 1.0); 5]));
    assert!(e.needs_confirm());
    // The defaults as the best need no re-measure.
    e.best = e.trial(&e.defaults).cloned();
    assert!(!e.needs_confirm() && matches!(e.choice(), Choice::Best(_)));
}

#[test]
fn caches_from_before_the_guard_load_with_their_bests_unconfirmed() {
    let mut cache = TuningCache::new();
    let mut e = entry(&info("GPU", "1"), "256");
    let best = e.best.clone().expect("best").config;
    e.confirm = Some(Confirmation::of(best, &[(2.0, 1.0); 5]));
    cache.entries.push(e);
    let text = cache.to_json();
    assert!(text.contains("\"verdict\": \"faster\""), "{text}");
    assert_eq!(TuningCache::from_json(&text, "t.json").ok(), Some(cache));
    // The H200's committed cache, as written before the guard (its
    // re-measures taken out): every entry loads, none re-measured, and a
    // run would use their bests.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../benchmarks/tuning/nvidia-h200.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the H200's cache"))
            .expect("JSON");
    let entries = json["entries"].as_array_mut().expect("entries");
    assert!(entries.iter().any(|e| e.get("confirm").is_some()));
    for e in entries.iter_mut() {
        e.as_object_mut().expect("an entry").remove("confirm");
    }
    let old = serde_json::to_string(&json).expect("JSON");
    let cache = TuningCache::from_json(&old, "old.json").expect("old cache");
    assert!(!cache.entries.is_empty());
    assert!(cache.entries.iter().all(|e| e.confirm.is_none()));
    assert!(cache.entries.iter().any(Entry::needs_confirm));
    let device = &cache.entries[0].device;
    let h200 = PlatformInfo {
        name: device.adapter.clone(),
        backend: device.backend.clone(),
        driver: device.driver.clone(),
        driver_info: device.driver_info.clone(),
        vendor: device.vendor,
        device: device.device,
        ..info("", "")
    };
    let (tuned, _) = apply::Tuned::new(&cache, &h200);
    assert!(tuned.unconfirmed() > 0 && tuned.rejected().is_empty());
}

#[test]
fn portable_pp_picks_the_variant_every_platform_measured_with_the_highest_pp() {
    let cfg = |wg: &str| BTreeMap::from([("wg".to_string(), wg.to_string())]);
    let timed = |wg: &str, s: f64| Trial {
        variant: format!("wg{wg}/problem-dependent"),
        ..trial(&cfg(wg), Some(s), true)
    };
    let make = |gpu: &str, times: &[(&str, f64)]| {
        let mut e = entry(&info(gpu, "1"), "256");
        e.defaults = cfg("128");
        e.trials.clear();
        e.best = None;
        for (wg, s) in times {
            e.add(timed(wg, *s));
        }
        TuningCache {
            skylight_tuning: 1,
            entries: vec![e],
        }
    };
    // A: best wg256 (1 s), defaults 2 s, wg64 1.25 s; B: best wg64 (1 s),
    // defaults 1.25 s, wg256 not measured.
    let a = make("A", &[("128", 2.0), ("256", 1.0), ("64", 1.25)]);
    let b = make("B", &[("128", 1.25), ("64", 1.0)]);
    let t = portable::table(&[a.clone(), b]);
    assert_eq!(t.platforms, ["A (vulkan)", "B (vulkan)"]);
    assert_eq!(t.rows.len(), 1);
    let r = &t.rows[0];
    assert_eq!(r.portable, "wg=64");
    assert_eq!(r.portable_eff, [0.8, 1.0]);
    assert!((r.pp_portable - 2.0 / (1.25 + 1.0)).abs() < 1e-12);
    assert_eq!(r.defaults_eff, [0.5, 0.8]);
    assert!((r.pp_defaults - 2.0 / (2.0 + 1.25)).abs() < 1e-12);
    let md = portable::markdown(&t);
    assert!(
        md.contains("| milc | 1 | 2 | 62% | 89% | cg f32 89% (wg=64) |"),
        "{md}"
    );
    // One platform alone makes no row.
    assert!(portable::table(&[a]).rows.is_empty());
}

/// Where the guard re-measured a unit, PP takes its medians: the best is
/// what runs use (the candidate where confirmed faster, else the
/// defaults), and a luckier single search time counts as 100%, no more.
#[test]
fn portable_pp_takes_the_re_measure_over_the_search() {
    let cfg = |wg: &str| BTreeMap::from([("wg".to_string(), wg.to_string())]);
    let make = |gpu: &str, times: &[(&str, f64)], confirm: Confirmation| {
        let mut e = entry(&info(gpu, "1"), "256");
        e.defaults = cfg("128");
        e.trials.clear();
        e.best = None;
        for (wg, s) in times {
            e.add(trial(&cfg(wg), Some(*s), true));
        }
        e.confirm = Some(confirm);
        TuningCache {
            skylight_tuning: 1,
            entries: vec![e],
        }
    };
    // A: the search's wg256 at 1.0 s re-measured 1.5 s against the
    // defaults' 3.0 s (faster); wg64's single 1.25 s is below that best.
    let a = make(
        "A",
        &[("128", 2.0), ("256", 1.0), ("64", 1.25)],
        Confirmation::of(cfg("256"), &[(3.0, 1.5); 5]),
    );
    // B: the search's wg64 at 1.0 s re-measured no faster than the
    // defaults (both 1.2 s): runs use the defaults, which are its best.
    let b = make(
        "B",
        &[("128", 1.25), ("64", 1.0)],
        Confirmation::of(cfg("64"), &[(1.2, 1.2); 5]),
    );
    let t = portable::table(&[a, b]);
    let r = &t.rows[0];
    assert_eq!(r.defaults_eff, [0.5, 1.0]);
    assert_eq!(r.portable, "wg=64");
    assert_eq!(r.portable_eff, [1.0, 1.0]);
    assert!((r.pp_defaults - 2.0 / 3.0).abs() < 1e-12);
}
