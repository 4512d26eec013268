//! su3 on the real adapter: su3_bench's reference initialisation through the
//! same kernels and buffers the runner times, lattices split over buffers,
//! and a clean error past the device's memory.

use skylight_core::Error;
use skylight_core::Precision;
use skylight_core::app::{App, Kernel, Request, Timestamps};
use skylight_core::apps::su3::{Init, Layout, Mapping, Su3, prepare_with};
use skylight_core::params::Choice;

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

/// A and C past a buffer (here below the adapter's limit through
/// `buffer-kib`: 16 KiB holds at most 56 sites of 288 bytes) are split
/// into blocks of sites, invisibly to the kernels: every mapping on every
/// layout validates in f32, and in df64 the mappings that index a block
/// most differently (`pair` across its halves, `row-vector` by vectors of
/// sites).
#[test]
fn lattices_over_a_buffer_are_split_and_validate() {
    let gpu = skylight_tests::gpu();
    let every = (Mapping::ALL.len() - 1) * Layout::ALL.len() + 1;
    for (p, mappings, cases) in [
        (
            Precision::F32,
            "site,link,row,element,pair,row-vector",
            every,
        ),
        (Precision::Df64, "pair,row-vector", Layout::ALL.len() + 1),
    ] {
        let req = Request::default()
            .set("size", "4")
            .set("buffer-kib", "16")
            .set("mapping", mappings)
            .set("wg", "32")
            .precisions(&[p]);
        for r in skylight_tests::run_validated(&gpu, &Su3, &req, cases) {
            let blocks = r.metrics.get("blocks").copied().unwrap_or(1.0);
            assert!(blocks >= 5.0, "{}: {blocks} blocks", r.case.label());
            assert!(
                r.validation.detail.contains("blocks"),
                "{}",
                r.validation.detail
            );
        }
    }
}

/// A lattice past the device's memory is refused before any work, naming
/// the largest L that fits.
#[test]
fn a_lattice_past_device_memory_is_refused_naming_the_largest() {
    let gpu = skylight_tests::gpu();
    if gpu.caps.device_memory.is_none() {
        eprintln!("skipped: the adapter reports no device memory");
        return;
    }
    let req = Request::default()
        .set("size", "1000")
        .set("mapping", "site")
        .set("layout", "aos")
        .precisions(&[Precision::F32]);
    match skylight_tests::try_run(&gpu, &Su3, &req) {
        Err(Error::BadParameter { name, reason }) => {
            assert_eq!(name, "size");
            assert!(reason.contains("device memory"), "{reason}");
            assert!(reason.contains("the largest that fits is L = "), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(gpu.check_lost().is_ok());
}
