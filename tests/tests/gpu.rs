//! The device layer on the real adapter: a [`Gpu`] around a device the
//! caller opened itself (as a front end or a test brings its own, the way
//! wgpu's examples receive theirs) runs cases like one the suite opened.

use skylight_core::Precision;
use skylight_core::app::Request;
use skylight_core::apps::su3::Su3;
use skylight_core::gpu::{Gpu, select_adapter};
use skylight_core::runner::Outcome;
use skylight_core::timing::TimingMethod;

#[test]
fn a_device_opened_elsewhere_runs_cases() {
    let (sel, api) = skylight_tests::adapter_choice();
    let (adapter, entry) = pollster::block_on(select_adapter(&sel, api)).expect("an adapter");
    // wgpu's defaults: no optional features, so no f64 and no timestamps.
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
            .expect("a device");
    let gpu = pollster::block_on(Gpu::from_device(&adapter, device, queue)).expect("wrapped");
    assert_eq!(gpu.info.name, entry.info.name);
    assert_eq!(gpu.info.index, None);
    assert!(!gpu.caps.f64 && !gpu.caps.timestamps);
    assert!(gpu.info.df64.is_some(), "the df64 self-test ran");
    let req = Request::default()
        .set("size", "2")
        .set("variant", "site")
        .set("layout", "aos")
        .set("wg", "32")
        .precisions(&[Precision::F32, Precision::Df64]);
    let out = skylight_tests::run(&gpu, &Su3, &req, skylight_tests::QUICK);
    assert_eq!(out.len(), 2);
    for o in &out {
        match o {
            Outcome::Done(r) => {
                assert!(r.validation.passed, "{}", r.validation.detail);
                assert_eq!(r.timing, TimingMethod::WallClock);
                skylight_tests::assert_spans_fifty_quanta(r);
            }
            other => panic!("{other:?}"),
        }
    }
}

/// The keep-warm kernel compiles and runs on the adapter, and stopping it
/// ends its thread (the runner itself heats only GPUs, not CPU adapters).
#[test]
fn the_heater_runs_until_stopped() {
    use skylight_core::gpu::heater::{Heater, SOURCE};
    use skylight_core::gpu::{Bind, Busy};
    use skylight_core::shader::ShaderSpec;

    let gpu = skylight_tests::gpu();
    let spec = ShaderSpec::new("heater", SOURCE, Precision::F32);
    let pipe = gpu
        .pipeline(&spec, "keep_warm", &[Bind::ReadWrite, Bind::Uniform])
        .expect("the keep-warm kernel compiles");
    let heat = Heater::new(&gpu.device, &gpu.queue, &pipe).start();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let since = heat.since();
    let runs = heat.stop();
    assert!(runs > 0, "no keep-warm dispatch completed in 0.2 s");
    let busy = Busy::default();
    busy.record(since, std::time::Instant::now());
    assert!(busy.seconds() >= 0.2);
}

/// Cases of one request that share a problem share its host inputs (a
/// sweep over layouts, mappings and workgroup sizes draws them once): every
/// case still validates against them, and records where its time went.
#[test]
fn variants_share_inputs_and_still_validate() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "4")
        .set("variant", "site,element")
        .set("layout", "aos,soa")
        .set("wg", "32,64")
        .precisions(&[Precision::F32]);
    let out = skylight_tests::run(&gpu, &Su3, &req, skylight_tests::QUICK);
    assert_eq!(out.len(), 8);
    for o in &out {
        match o {
            Outcome::Done(r) => {
                assert!(r.validation.passed, "{}", r.validation.detail);
                let phases = r.phases.as_ref().expect("GPU runs record their phases");
                assert!(phases.wall_s >= phases.prepare_s + phases.validate_s);
            }
            other => panic!("{other:?}"),
        }
    }
}

/// Samples spanning several back-to-back runs, recorded in one pass: runs
/// of one dispatch (su3, stream) and of several (lbm's step, milc, comd's
/// step) validate, time every sample and say how many runs a sample holds;
/// stream's one-real loads validate in every precision.
#[test]
fn samples_of_several_runs_time_their_mean() {
    use skylight_core::apps::comd::Comd;
    use skylight_core::apps::lbm::Lbm;
    use skylight_core::apps::milc::Milc;
    use skylight_core::apps::stream::Stream;
    use skylight_core::runner::RunOptions;

    let gpu = skylight_tests::gpu();
    let opts = RunOptions {
        runs_per_sample: 3,
        ..skylight_tests::QUICK
    };
    let su3 = Request::default()
        .set("size", "2")
        .set("variant", "element")
        .set("layout", "aos-milc")
        .set("wg", "32")
        .precisions(&[Precision::F32]);
    let stream = Request::default()
        .set("size", "small")
        .set("kernel", "copy,triad,dot")
        .set("load", "real")
        .set("wg", "64")
        .precisions(&skylight_tests::precisions(&gpu));
    let lbm = Request::default()
        .set("size", "4")
        .set("kernel", "step")
        .precisions(&[Precision::F32]);
    let milc = Request::default()
        .set("size", "3x4")
        .set("kernel", "dslash-fused")
        .set("wg", "32")
        .precisions(&[Precision::F32]);
    let comd = Request::default()
        .set("size", "small")
        .set("kernel", "step")
        .set("variant", "cell")
        .set("layout", "aos")
        .precisions(&[Precision::F32]);
    let mut out = skylight_tests::run(&gpu, &Su3, &su3, opts);
    out.extend(skylight_tests::run(&gpu, &Stream, &stream, opts));
    out.extend(skylight_tests::run(&gpu, &Lbm, &lbm, opts));
    out.extend(skylight_tests::run(&gpu, &Milc, &milc, opts));
    out.extend(skylight_tests::run(&gpu, &Comd, &comd, opts));
    assert_eq!(out.len(), 4 + 3 * skylight_tests::precisions(&gpu).len());
    for o in &out {
        match o {
            Outcome::Done(r) => {
                assert!(r.validation.passed, "{}", r.validation.detail);
                assert_eq!(r.runs_per_sample, 3, "{}", r.case.label());
                assert_ne!(r.timing, TimingMethod::WallClock, "{}", r.case.label());
                assert!(r.samples_s.iter().all(|s| *s > 0.0), "{}", r.case.label());
            }
            other => panic!("{other:?}"),
        }
    }
}
