//! Every registered app, small, on the real adapter and on the CPU reference
//! platform: every case must validate.

use skylight_core::Error;
use skylight_core::app::{App, Request, Status};
use skylight_core::registry;
use skylight_core::runner::{Outcome, Platform, RunOptions, Runner};
use skylight_tests::assert_all_passed;

const OPTS: RunOptions = RunOptions {
    warmup: 1,
    warmup_s: 0.0,
    samples: 3,
    budget_s: 0.0,
    runs_per_sample: 1,
};

#[test]
fn every_app_validates_on_the_gpu() {
    let gpu = skylight_tests::gpu();
    for app in registry::apps() {
        let out = skylight_tests::try_run_with(&gpu, app, &skylight_tests::small(app.name()), OPTS)
            .unwrap_or_else(|e| panic!("{}: {e}", app.name()));
        assert_all_passed(&out, OPTS, &gpu.caps);
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
fn every_app_with_a_cpu_reference_runs_as_the_reference_on_the_cpu() {
    for app in registry::apps() {
        let mut runner = Runner::new(Platform::Cpu, OPTS);
        let out = pollster::block_on(runner.run(
            app,
            &skylight_tests::small(app.name()),
            &mut |_| {},
            &|| false,
        ))
        .expect("plan");
        let mut ran = 0;
        for o in &out {
            match o {
                Outcome::Done(r) => {
                    // The reference itself: its own checks held, and it
                    // claims no validation.
                    assert_eq!(
                        r.validation.status(),
                        Status::Reference,
                        "cpu {}: {}",
                        r.case.label(),
                        r.validation.detail
                    );
                    ran += 1;
                }
                Outcome::Failed { case, error } => panic!("cpu {}: {error}", case.label()),
                Outcome::Unsupported { .. } => {}
            }
        }
        // An app with a CPU reference must run some case on it.
        assert!(
            ran > 0 || !has_cpu_reference(app, &out),
            "cpu {}: no case ran",
            app.name()
        );
    }
}

/// Whether `app` prepares its first case on the CPU reference platform.
fn has_cpu_reference(app: &dyn App, outcomes: &[Outcome]) -> bool {
    outcomes
        .first()
        .is_some_and(|o| app.prepare_cpu(o.case()).is_some())
}

#[test]
fn bad_requests_are_errors_not_panics() {
    let gpu = skylight_tests::gpu();
    let stream = registry::find("stream").expect("stream");
    let run = |req: Request| skylight_tests::try_run_with(&gpu, stream, &req, OPTS);
    let bad_param = |req: Request, param: &str| match run(req) {
        Err(Error::BadParameter { name, .. }) => assert_eq!(name, param),
        other => panic!("{param}: {other:?}"),
    };
    bad_param(Request::default().set("size", "lots"), "size");
    bad_param(Request::default().set("nonsense", "1"), "nonsense");
    bad_param(Request::default().set("kernel", "fft"), "kernel");
    bad_param(Request::default().set("wg", "4096"), "wg");
    bad_param(Request::default().set("buffer-kib", "0"), "buffer-kib");
    bad_param(Request::default().set("size", "1001"), "size");
    assert!(matches!(registry::find("nope"), Err(Error::UnknownApp(_))));
}
