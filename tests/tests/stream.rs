//! stream's arrays past a buffer: split into blocks of elements (here
//! below the adapter's limit through `buffer-kib`), every kernel and both
//! allocations validating in f32 and df64; and a size past the device's
//! memory refused before any work, naming the largest that fits.

use skylight_core::app::Request;
use skylight_core::apps::stream::Stream;
use skylight_core::{Error, Precision};

/// 4104 elements in blocks of at most 4 KiB: five blocks in f32 (the last
/// shorter), nine in df64; packed blocks hold a, b and c 64 bytes apart.
#[test]
fn arrays_over_a_buffer_are_split_and_validate() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "4104")
        .set("buffer-kib", "4")
        .set("alloc", "separate,packed")
        .set("pad", "64")
        .set("wg", "64")
        .precisions(&[Precision::F32, Precision::Df64]);
    // Six kernels, two allocations, two precisions; the driver copy once.
    let records = skylight_tests::run_validated(&gpu, &Stream, &req, 6 * 2 * 2 + 1);
    for r in &records {
        let want = match r.case.precision {
            Precision::F32 => 5.0,
            _ => 9.0,
        };
        assert_eq!(r.metrics.get("blocks"), Some(&want), "{}", r.case.label());
    }
}

#[test]
fn a_size_past_device_memory_is_refused_naming_the_largest() {
    let gpu = skylight_tests::gpu();
    if gpu.caps.device_memory.is_none() {
        eprintln!("skipped: the adapter reports no device memory");
        return;
    }
    // 2^40 f32 elements: 4 TiB an array, three of them.
    let req = Request::default()
        .set("size", "2^40")
        .set("kernel", "triad")
        .precisions(&[Precision::F32]);
    match skylight_tests::try_run(&gpu, &Stream, &req) {
        Err(Error::BadParameter { name, reason }) => {
            assert_eq!(name, "size");
            assert!(reason.contains("device memory"), "{reason}");
            assert!(reason.contains("the largest that fits is "), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}
