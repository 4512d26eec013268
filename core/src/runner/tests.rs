//! The runner's unit tests: sample budgets, planning, the shared case loop
//! and resuming.

use std::future::Future;
use std::task::{Context, Poll, Waker};

use super::*;
use crate::app::Request;
use crate::apps::su3::Su3;

/// Polls `fut` once: the CPU and external platforms never wait.
fn ready<T>(fut: impl Future<Output = T>) -> T {
    match std::pin::pin!(fut).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("the runner waited on a platform without a device"),
    }
}

fn no_f64() -> Capabilities {
    Capabilities {
        max_workgroup_invocations: 256,
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        ..Default::default()
    }
}

fn one_mapping() -> Request {
    Request::default()
        .set("size", "2")
        .set("wg", "32")
        .set("variant", "site")
        .set("layout", "aos")
}

/// A budget trims the timed runs of slow kernels, never below the
/// minimum, and never adds runs.
#[test]
fn a_budget_trims_slow_kernels_only() {
    let opts = RunOptions {
        budget_s: 1.0,
        ..RunOptions::default()
    };
    assert_eq!(opts.samples_for(1e-3), 20);
    assert_eq!(opts.samples_for(0.076), 14);
    assert_eq!(opts.samples_for(2.0), MIN_SAMPLES);
    let exact = RunOptions {
        budget_s: 0.0,
        ..opts
    };
    assert_eq!(exact.samples_for(2.0), 20);
    let one = RunOptions { samples: 1, ..opts };
    assert_eq!(one.samples_for(2.0), 1);
}

/// The budget counts every run a sample spans.
#[test]
fn a_budget_counts_each_run_of_a_sample() {
    let opts = RunOptions {
        budget_s: 1.0,
        runs_per_sample: 10,
        ..RunOptions::default()
    };
    assert_eq!(opts.samples_for(1e-3), 20);
    assert_eq!(opts.samples_for(0.0076), 14);
    let zero = RunOptions {
        runs_per_sample: 0,
        ..opts
    };
    assert_eq!(zero.runs(), 1);
}

/// f64 on a platform without it: an error when the request names it
/// and the runner is strict, unsupported cases otherwise.
#[test]
fn a_missing_precision_is_an_error_only_when_named_and_strict() {
    let named = one_mapping().precisions(&[Precision::F32, Precision::F64]);
    assert!(matches!(
        plan(&Su3, &named, &no_f64(), true),
        Err(Error::MissingFeature("SHADER_F64"))
    ));
    let lenient = plan(&Su3, &named, &no_f64(), false).expect("plan");
    assert_eq!((lenient.cases.len(), lenient.skipped.len()), (1, 1));
    let defaults = plan(&Su3, &one_mapping(), &no_f64(), true).expect("plan");
    assert_eq!((defaults.cases.len(), defaults.skipped.len()), (2, 1));
}

/// Every platform goes through the same loop: skipped cases reported
/// first, then each case started and finished, until `stop`.
#[test]
fn external_and_cpu_platforms_share_the_loop() {
    let caps = no_f64();
    let mut ran = Vec::new();
    let mut run = |case: &Case| {
        ran.push(case.label());
        Outcome::Unsupported {
            case: case.clone(),
            reason: "test".into(),
        }
    };
    let mut events = Vec::new();
    let mut runner = Runner::new(
        Platform::External {
            caps: &caps,
            run: &mut run,
        },
        RunOptions::default(),
    );
    let out = ready(runner.run(
        &Su3,
        &one_mapping(),
        &mut |p| {
            events.push(match p {
                Progress::Start { index, .. } => format!("start {index}"),
                Progress::Finish(o) => format!("finish {}", o.case().precision),
            })
        },
        &|| false,
    ))
    .expect("run");
    assert_eq!(out.len(), 3);
    assert_eq!(ran.len(), 2);
    assert_eq!(
        events,
        [
            "finish f64",
            "start 0",
            "finish f32",
            "start 1",
            "finish df64"
        ]
    );
    let opts = RunOptions {
        warmup: 0,
        warmup_s: 0.0,
        samples: 1,
        budget_s: 0.0,
        runs_per_sample: 1,
    };
    let mut cpu = Runner::new(Platform::Cpu, opts);
    let out = ready(cpu.run(&Su3, &one_mapping(), &mut |_| {}, &|| false)).expect("run");
    assert_eq!(out.len(), 1);
    assert!(
        matches!(&out[0], Outcome::Done(r) if r.validation.reference && r.case.precision == Precision::F64)
    );
    let stopped = ready(cpu.run(&Su3, &one_mapping(), &mut |_| {}, &|| true)).expect("run");
    assert!(stopped.is_empty());
}

/// A resumed run leaves out the cases its records hold, matched as the
/// platform records them (the CPU reference platform keeps only the
/// parameters it honours).
#[test]
fn resuming_leaves_out_the_recorded_cases() {
    let caps = no_f64();
    let mut never = |case: &Case| panic!("ran {}", case.label());
    let external = |run| Platform::External { caps: &caps, run };
    let all = Runner::new(external(&mut never), RunOptions::default())
        .plan(&Su3, &one_mapping())
        .expect("plan");
    let (first, second) = (all.cases[0].clone(), all.cases[1].clone());
    let mut never = |case: &Case| panic!("ran {}", case.label());
    let resumed = Runner::new(external(&mut never), RunOptions::default())
        .resuming(vec![first])
        .plan(&Su3, &one_mapping())
        .expect("plan");
    assert_eq!(resumed.cases, [second]);
    let cpu = Runner::new(Platform::Cpu, RunOptions::default());
    let case = cpu.plan(&Su3, &one_mapping()).expect("plan").cases[0].clone();
    let recorded = cpu::recorded_case(&Su3, &case);
    assert_ne!(recorded, case, "the CPU record drops parameters");
    let cpu = cpu.resuming(vec![recorded]);
    assert!(
        cpu.plan(&Su3, &one_mapping())
            .expect("plan")
            .cases
            .is_empty()
    );
}
