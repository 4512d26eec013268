//! Every registered app, small, on the real adapter and on the CPU reference
//! platform: every case must validate.

use skylight_core::app::Request;
use skylight_core::registry;
use skylight_core::runner::{self, Outcome, RunOptions};

const OPTS: RunOptions = RunOptions {
    warmup: 1,
    warmup_s: 0.0,
    samples: 3,
};

/// The CI preset of each app: small sizes, short sweeps.
fn small(app: &str) -> Request {
    let r = Request::default().set("size", "small");
    match app {
        "peak" => r.set("iters", "64").set("intensity", "1,16"),
        "cache" => r.set("ws", "16k,1m"),
        // Every variant is covered by tests/tests/gpp.rs; here one order keeps lavapipe fast.
        "gpp" => r.set("inputs", "random").set("order", "nx"),
        "su3" => r.set("size", "4").set("wg", "32,64"),
        // Every kernel, layout and mapping; the launch shapes are in tests/tests/comd.rs.
        "comd" => r.set("steps", "2"),
        // Every variant, and 2J up to 14, are covered by tests/tests/snap.rs.
        "snap" => r.set("twojmax", "4"),
        _ => r,
    }
}

fn assert_all_passed(outcomes: &[Outcome]) {
    assert!(!outcomes.is_empty(), "no case ran");
    for o in outcomes {
        match o {
            Outcome::Done(r) => {
                assert!(
                    r.validation.passed,
                    "{}: {}",
                    r.case.label(),
                    r.validation.detail
                );
                assert!(r.stats.median > 0.0, "{}: zero time", r.case.label());
                assert_eq!(r.samples_s.len(), OPTS.samples as usize);
            }
            Outcome::Failed { case, error } => panic!("{}: {error}", case.label()),
            Outcome::Unsupported { case, reason } => {
                // Only f64 may be missing, and only where the adapter lacks it.
                assert_eq!(reason, "needs SHADER_F64", "{}", case.label());
            }
        }
    }
}

#[test]
fn every_app_validates_on_the_gpu() {
    let gpu = skylight_tests::gpu();
    for app in registry::apps() {
        let out = pollster::block_on(runner::run_request(
            &gpu,
            app,
            &small(app.name()),
            OPTS,
            &mut |_| {},
            &|| false,
        ))
        .unwrap_or_else(|e| panic!("{}: {e}", app.name()));
        assert_all_passed(&out);
        let precisions: std::collections::BTreeSet<_> =
            out.iter().map(|o| o.case().precision).collect();
        assert!(
            precisions.len() >= app.default_precisions().len().min(2),
            "{}: precisions {precisions:?}",
            app.name()
        );
    }
}

#[test]
fn every_app_with_a_cpu_reference_validates_on_the_cpu() {
    for app in registry::apps() {
        let out =
            runner::run_request_cpu(app, &small(app.name()), OPTS, &mut |_| {}).expect("plan");
        for o in &out {
            if let Outcome::Done(r) = o {
                assert!(
                    r.validation.passed,
                    "cpu {}: {}",
                    r.case.label(),
                    r.validation.detail
                );
            }
        }
    }
}

#[test]
fn bad_requests_are_errors_not_panics() {
    let gpu = skylight_tests::gpu();
    let stream = registry::find("stream").expect("stream");
    let run = |req: Request| {
        pollster::block_on(runner::run_request(
            &gpu,
            stream,
            &req,
            OPTS,
            &mut |_| {},
            &|| false,
        ))
    };
    assert!(run(Request::default().set("size", "lots")).is_err());
    assert!(run(Request::default().set("nonsense", "1")).is_err());
    assert!(run(Request::default().set("kernel", "fft")).is_err());
    assert!(run(Request::default().set("wg", "4096")).is_err());
    // One array over the adapter's binding limit: an error naming the limit.
    let too_big = (gpu.caps.max_storage_binding / 4 + 1).to_string();
    let err = run(Request::default()
        .set("size", too_big)
        .set("kernel", "copy"))
    .expect_err("over the limit");
    assert!(err.to_string().contains("max_"), "{err}");
    assert!(registry::find("nope").is_err());
}
