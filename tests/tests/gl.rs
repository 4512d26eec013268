//! wgpu's GL backend (OpenGL ES compute through EGL; Mesa's llvmpipe in
//! CI) as a platform of its own beside the Vulkan one the other tests use:
//! every app's CI preset validates there in f32 and df64 (GL has no f64),
//! and a device without timestamps is timed on the host. Fails, never
//! skips, where EGL finds no GL adapter.

use skylight_core::app::Request;
use skylight_core::apps::stream::Stream;
use skylight_core::gpu::{Api, Gpu, Selector, select_adapter};
use skylight_core::runner::{Outcome, RunOptions};
use skylight_core::timing::TimingMethod;
use skylight_core::{Error, Precision, registry};
use skylight_tests::{assert_all_passed, assert_spans_fifty_quanta, small};

/// One sample a case: the apps' own tests time them; this checks that
/// each compiles, runs and validates through GL.
const OPTS: RunOptions = RunOptions {
    warmup: 0,
    warmup_s: 0.0,
    samples: 1,
    budget_s: 0.0,
    runs_per_sample: 1,
};

const GL_MISSING: &str = "no GL adapter: the GL tests need one (apt-get install libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri for Mesa's llvmpipe)";

fn gl() -> Gpu {
    pollster::block_on(Gpu::open(&Selector::Auto, Some(Api::Gl)))
        .unwrap_or_else(|e| panic!("{GL_MISSING}: {e}"))
}

#[test]
fn every_app_validates_on_gl() {
    let gpu = gl();
    assert_eq!(gpu.info.backend, "gl");
    for app in registry::apps() {
        let req = small(app.name()).precisions(&[Precision::F32, Precision::Df64]);
        let out = skylight_tests::try_run_with(&gpu, app, &req, OPTS)
            .unwrap_or_else(|e| panic!("{} on GL: {e}", app.name()));
        assert_all_passed(&out, OPTS, &gpu.caps);
    }
}

/// On Linux the device runs on Skylight's own EGL context: the driver
/// says EGL's version and the version asked for, the driver info is the
/// context's `GL_VERSION`. Listing the adapters again on the thread (which
/// makes another adapter on the same context) leaves the device working.
#[cfg(target_os = "linux")]
#[test]
fn gl_runs_on_skylights_own_context() {
    let gpu = gl();
    let info = &gpu.info;
    eprintln!("GL: {} | {} | {}", info.name, info.driver, info.driver_info);
    assert!(
        info.driver.starts_with("EGL ") && info.driver.contains("(asked OpenGL"),
        "{info:?}"
    );
    assert!(!info.driver_info.is_empty(), "{info:?}");
    let listed = pollster::block_on(skylight_core::gpu::list_adapters());
    assert!(listed.iter().any(|e| e.info.backend == "gl"), "{listed:?}");
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "copy")
        .precisions(&[Precision::F32]);
    let out = skylight_tests::try_run_with(&gpu, &Stream, &req, OPTS).expect("stream on GL");
    assert_all_passed(&out, OPTS, &gpu.caps);
}

/// GL has no `SHADER_F64`: naming f64 is the missing-feature error.
#[test]
fn f64_on_gl_is_the_missing_feature_error() {
    let gpu = gl();
    assert!(!gpu.caps.f64, "{:?}", gpu.caps.feature_names());
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "copy")
        .precisions(&[Precision::F64]);
    match skylight_tests::try_run_with(&gpu, &Stream, &req, OPTS) {
        Err(Error::MissingFeature("SHADER_F64")) => {}
        other => panic!("{other:?}"),
    }
}

/// A GL device opened without timestamp queries is timed by the host
/// clock, with as many runs a sample as 50 quanta of its resolution take.
#[test]
fn a_gl_device_without_timestamps_is_timed_on_the_host() {
    let (adapter, _) = pollster::block_on(select_adapter(&Selector::Auto, Some(Api::Gl)))
        .unwrap_or_else(|e| panic!("{GL_MISSING}: {e}"));
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
            .expect("a device");
    let gpu = pollster::block_on(Gpu::from_device(&adapter, device, queue)).expect("wrapped");
    assert!(!gpu.caps.timestamps);
    let req = Request::default()
        .set("size", "1024")
        .set("kernel", "copy")
        .precisions(&[Precision::F32]);
    let out = skylight_tests::run(&gpu, &Stream, &req, OPTS);
    let Some(Outcome::Done(r)) = out.first() else {
        panic!("{out:?}")
    };
    assert!(r.validation.passed, "{}", r.validation.detail);
    assert_eq!(r.timing, TimingMethod::WallClock);
    assert_spans_fifty_quanta(r);
    // 4 KiB copies take far less than 50 round trips of a submission.
    assert!(r.runs_per_sample > 1, "{} runs", r.runs_per_sample);
}

/// GL maps no storage buffers, so a scale-out rank's halos take the other
/// path: packed, copied down and read back, then written, copied up and
/// unpacked, each copy on the GPU's queue. On one rank (its own
/// neighbour, no MPI), with and without the interior overlapping the
/// swap, the NaN-poisoned halos fail validation unless every swap lands.
#[test]
fn one_rank_scale_out_copies_its_halos_on_gl() {
    let gpu = gl();
    let mapped = (gpu.device.features()).contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
    assert!(
        !mapped,
        "GL maps storage buffers now: this test no longer covers the copies"
    );
    let req = Request::default()
        .set("size", "4")
        .set("kernel", "fused,step")
        .set("steps", "3")
        .precisions(&[Precision::F32, Precision::Df64]);
    let cases = skylight_core::runner::plan(&skylight_core::apps::lbm::Lbm, &req, &gpu.caps, true)
        .expect("plan")
        .cases;
    for (case, overlap) in cases.iter().flat_map(|c| [(c, false), (c, true)]) {
        let r = skylight_tests::one_rank_lbm(&gpu, case, overlap);
        // Both copies ran, timed on the GPU where it times inside
        // encoders (llvmpipe's GL does).
        let t = r.scale.expect("scale-out part").split;
        let timed = gpu.caps.timestamps_in_encoders;
        assert_eq!(t.copy_down_s > 0.0, timed, "{t:?}");
        assert_eq!(t.copy_up_s > 0.0, timed, "{t:?}");
        assert!(t.transfer_s >= t.copy_down_s + t.copy_up_s, "{t:?}");
    }
}
