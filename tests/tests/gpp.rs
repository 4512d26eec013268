//! `gpp` beyond the every-app smoke test: bit-identical sums run to run in
//! every variant, and a clean over-limit error where the default size does
//! not fit one binding (lavapipe's 128 MiB).

use skylight_core::app::{Request, Timestamps};
use skylight_core::error::Error;
use skylight_core::registry;

/// Runs every small case twice on the same inputs: the six output reals
/// must match bit for bit (the reduction order is fixed).
#[test]
fn sums_are_bit_identical_run_to_run() {
    let gpu = skylight_tests::gpu();
    let app = registry::find("gpp").expect("gpp");
    let req = Request::default()
        .set("size", "small")
        .set("inputs", "random");
    let cases = app.cases(&req, &gpu.caps).expect("cases");
    assert!(!cases.is_empty());
    for case in &cases {
        if case.precision == skylight_core::Precision::F64 && !gpu.caps.f64 {
            continue;
        }
        let k = app.prepare(&gpu, case).expect("prepare");
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            k.encode(&mut enc, Timestamps::None);
            gpu.queue.submit([enc.finish()]);
            let out = pollster::block_on(gpu.read_buffers(&k.outputs())).expect("read");
            runs.push(out);
        }
        assert_eq!(runs[0], runs[1], "{}: sums differ run to run", case.label());
        let v = k.validate(&runs[1]);
        assert!(v.passed, "{}: {}", case.label(), v.detail);
    }
}

/// The default size's N x M arrays need 859 MB in f64: where that passes the
/// binding limit the request is an `OverLimit` error naming it, not a crash.
#[test]
fn default_size_over_the_binding_limit_is_a_clean_error() {
    let gpu = skylight_tests::gpu();
    let app = registry::find("gpp").expect("gpp");
    let req = Request::default().precisions(&[skylight_core::Precision::Df64]);
    let needed = 1638u64 * 32768 * 16;
    match app.cases(&req, &gpu.caps) {
        Err(Error::OverLimit { limit, .. }) => {
            assert!(needed > gpu.caps.max_storage_binding.min(gpu.caps.max_buffer));
            assert!(limit.starts_with("max_"), "{limit}");
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(cases) => assert!(needed <= gpu.caps.max_storage_binding && !cases.is_empty()),
    }
}
