//! su3 on the real adapter: su3_bench's reference initialisation through the
//! same kernels and buffers the runner times, and a clean error past the
//! binding limit.

use skylight_core::Error;
use skylight_core::Precision;
use skylight_core::app::{App, Kernel, Request, Timestamps};
use skylight_core::apps::su3::{Init, Layout, Mapping, Su3, prepare_with};
use skylight_core::params::Choice;
use skylight_core::runner::Outcome;

/// One run of `kernel` over its poisoned output, read back.
fn run_once(gpu: &skylight_core::gpu::Gpu, kernel: &dyn Kernel) -> Vec<Vec<u8>> {
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    kernel.encode(&mut enc, Timestamps::None);
    gpu.queue.submit([enc.finish()]);
    pollster::block_on(gpu.read_buffers(&kernel.outputs())).expect("readback")
}

/// A = (1, 0), B = (1/3, 0): every element of C is (1, 0) and the checksum
/// of a site is 36, for every mapping and layout, in every precision the
/// adapter has.
#[test]
fn reference_init_checksum_is_36_on_the_gpu() {
    let gpu = skylight_tests::gpu();
    let precisions: Vec<Precision> = Precision::ALL
        .into_iter()
        .filter(|&p| gpu.require(p).is_ok())
        .collect();
    let req = Request::default()
        .set("size", "4")
        .set("wg", "64")
        .precisions(&precisions);
    let cases = Su3.cases(&req, &gpu.caps).expect("cases");
    // row-vector runs on soa alone.
    assert_eq!(
        cases.len(),
        ((Mapping::ALL.len() - 1) * Layout::ALL.len() + 1) * precisions.len()
    );
    for case in &cases {
        let kernel = pollster::block_on(gpu.scoped(|| prepare_with(&gpu, case, Init::Reference)))
            .unwrap_or_else(|e| panic!("{}: {e}", case.label()));
        let out = run_once(&gpu, kernel.as_ref());
        let out = skylight_tests::parts(&out);
        let v = kernel.validate(&out);
        assert!(v.passed, "{}: {}", case.label(), v.detail);
        let sum = kernel.metrics(&out)["checksum"];
        let tol = if case.precision == Precision::F32 {
            1e-5
        } else {
            1e-12
        };
        assert!(
            (sum - 36.0).abs() <= 36.0 * tol,
            "{}: checksum {sum}",
            case.label()
        );
    }
}

/// A lattice whose arrays pass the binding limit fails cleanly with an error
/// naming the limit, and the device survives it.
#[test]
fn over_the_binding_limit_is_a_clean_error() {
    let gpu = skylight_tests::gpu();
    // Smallest L whose aos f32 arrays (288 bytes per site) pass the limit.
    let limit = gpu.caps.max_storage_binding.min(gpu.caps.max_buffer);
    let l = (1u64..).find(|l| l.pow(4) * 288 > limit).expect("some L");
    let req = Request::default()
        .set("size", l.to_string())
        .set("mapping", "site")
        .set("layout", "aos")
        .precisions(&[Precision::F32]);
    let out = skylight_tests::run(&gpu, &Su3, &req, skylight_tests::ONCE);
    assert_eq!(out.len(), 1);
    match &out[0] {
        Outcome::Failed { error, .. } => assert!(
            matches!(error, Error::OverLimit { limit, .. } if limit.starts_with("max_")),
            "{error}"
        ),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(gpu.check_lost().is_ok());
}
