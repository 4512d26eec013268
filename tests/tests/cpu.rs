//! The CPU reference platform tells the truth: it runs one case per
//! implementation it has (the f64 reference), reports the other requested
//! variants as not run, and never claims a validation it did not make.
//! No adapter needed.

use skylight_core::Precision;
use skylight_core::app::{Request, Status};
use skylight_core::record::ResultFile;
use skylight_core::registry;
use skylight_core::runner::{CPU_REFERENCE, Outcome, Platform, RunOptions, Runner};

const OPTS: RunOptions = skylight_tests::ONCE;

fn run_cpu(app: &str, req: &Request) -> Vec<Outcome> {
    let app = registry::find(app).expect("app");
    pollster::block_on(Runner::new(Platform::Cpu, OPTS).run(app, req, &mut |_| {}, &|| false))
        .expect("plan")
}

fn done(out: &[Outcome]) -> Vec<&skylight_core::record::ResultRecord> {
    out.iter()
        .filter_map(|o| match o {
            Outcome::Done(r) => Some(&**r),
            _ => None,
        })
        .collect()
}

/// `skylight run lbm --cpu --size small --kernel collide --layout aos,soa
/// --vvl 1,4 --precision f64`: four GPU variants, one CPU implementation.
#[test]
fn lbm_layouts_and_vector_lengths_collapse_into_one_reference_row() {
    let req = Request::default()
        .precisions(&[Precision::F64])
        .set("size", "small")
        .set("kernel", "collide")
        .set("layout", "aos,soa")
        .set("vvl", "1,4");
    let out = run_cpu("lbm", &req);
    assert_eq!(out.len(), 4, "{out:#?}");
    let rows = done(&out);
    assert_eq!(rows.len(), 1, "one row per implementation: {out:#?}");
    let r = rows[0];
    assert_eq!(r.case.variant, CPU_REFERENCE);
    assert_eq!(r.case.precision, Precision::F64);
    // The record names only what the reference honours.
    for gpu_only in ["layout", "pull", "vvl", "wg"] {
        assert!(!r.case.params.contains_key(gpu_only), "{:?}", r.case.params);
    }
    assert_eq!(r.case.params.get("L").map(String::as_str), Some("8"));
    let not_run: Vec<&str> = out
        .iter()
        .filter_map(|o| match o {
            Outcome::Unsupported { case, reason } => {
                assert!(
                    reason.contains("implements one variant of lbm/collide (reference)"),
                    "{reason}"
                );
                assert!(reason.contains("layout, pull, vvl, wg"), "{reason}");
                Some(case.variant.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(not_run.len(), 3, "{out:#?}");
    assert!(not_run.iter().all(|v| v.contains("/vvl")), "{not_run:?}");
    assert!(out.iter().all(|o| !o.is_failure()));
}

/// A CPU row is the reference: not "ok", not a failure, not counted as
/// validated, and says so in the table and the JSON.
#[test]
fn cpu_rows_are_the_reference_not_a_passed_validation() {
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "triad,dot")
        .set("wg", "64,128");
    let out = run_cpu("stream", &req);
    let rows = done(&out);
    assert_eq!(rows.len(), 2, "{out:#?}");
    for r in &rows {
        let v = &r.validation;
        assert!(!v.passed, "{}: {}", r.case.label(), v.detail);
        assert!(v.reference && v.usable());
        assert_eq!(v.status(), Status::Reference);
        assert_eq!(v.status().label(), "reference");
        assert!(v.detail.contains("not validated"), "{}", v.detail);
        assert!(!v.detail.contains("max rel. error"), "{}", v.detail);
    }
    let file = ResultFile::new(rows.iter().map(|r| (*r).clone()).collect(), None);
    let json = file.to_json();
    assert!(json.contains("\"reference\": true"), "{json}");
    let back = ResultFile::from_json(&json, "test").expect("reload");
    let validations = |f: &ResultFile| {
        f.records
            .iter()
            .map(|r| r.validation.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(validations(&back), validations(&file));
    let csv = file.to_csv();
    assert!(
        csv.lines().skip(1).all(|l| l.contains(",reference,")),
        "{csv}"
    );
}

/// The reference's own checks (here a shear wave's decay, which needs 50
/// steps) still fail it: "reference" never masks a broken run.
#[test]
fn a_failed_own_check_is_still_a_failure() {
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "fused")
        .set("init", "shear")
        .set("steps", "2");
    let out = run_cpu("lbm", &req);
    let rows = done(&out);
    assert_eq!(rows.len(), 1, "{out:#?}");
    assert_eq!(rows[0].validation.status(), Status::Failed);
    assert!(out[0].is_failure());
}

/// Parameters the reference honours still expand: peak's intensities (one
/// row each, named by it), while workgroup sizes and precisions collapse.
#[test]
fn honoured_parameters_still_expand() {
    let req = Request::default()
        .precisions(&[Precision::F32, Precision::F64, Precision::Df64])
        .set("size", "small")
        .set("kernel", "mix")
        .set("intensity", "1,4")
        .set("wg", "64,128");
    let out = run_cpu("peak", &req);
    let rows = done(&out);
    let labels: Vec<&str> = rows.iter().map(|r| r.case.variant.as_str()).collect();
    assert_eq!(
        labels,
        ["reference/intensity=1", "reference/intensity=4"],
        "{out:#?}"
    );
    assert!(rows.iter().all(|r| r.case.precision == Precision::F64));
    let unsupported = out
        .iter()
        .filter(|o| matches!(o, Outcome::Unsupported { .. }))
        .count();
    assert_eq!(unsupported, 2, "{out:#?}");
    // An app's problem size is honoured too: two sizes, two rows.
    for size in ["2", "3"] {
        let su3 = Request::default()
            .set("size", size)
            .set("variant", "site,link")
            .set("layout", "aos,soa");
        let rows = run_cpu("su3", &su3);
        let done = done(&rows);
        assert_eq!(done.len(), 1, "{rows:#?}");
        assert_eq!(done[0].case.params.get("L").map(String::as_str), Some(size));
        assert_eq!(done[0].case.variant, CPU_REFERENCE);
    }
    // Problems a request sweeps are told apart in the label (gpp's random
    // and published inputs), without what they determine.
    let gpp = Request::default()
        .set("size", "small")
        .set("inputs", "random,reference")
        .set("reduction", "tree,subgroup");
    let out = run_cpu("gpp", &gpp);
    let labels: Vec<String> = done(&out).iter().map(|r| r.case.variant.clone()).collect();
    assert_eq!(
        labels,
        ["reference/inputs=random", "reference/inputs=reference"],
        "{out:#?}"
    );
}

/// Result files written before the reference state existed still load: GPU
/// records keep their validation, the CPU platform's self-comparisons
/// become the reference.
#[test]
fn older_files_load_and_their_cpu_rows_become_the_reference() {
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "triad");
    let out = run_cpu("stream", &req);
    let mut cpu = done(&out)[0].clone();
    cpu.validation.passed = true;
    cpu.validation.reference = false;
    let mut gpu = cpu.clone();
    gpu.platform.backend = "vulkan".into();
    let json = ResultFile::new(vec![cpu, gpu], None).to_json();
    assert!(!json.contains("\"reference\": "), "{json}");
    let back = ResultFile::from_json(&json, "old").expect("old file");
    assert_eq!(back.records[0].validation.status(), Status::Reference);
    assert_eq!(back.records[1].validation.status(), Status::Passed);
}
