//! Moving data on the real adapter: parallel uploads and writes, poisoning
//! on the device, readback through the kept staging buffer, inputs shared
//! on the device, and the poison every case's outputs hold before its
//! validation run (the first case of a problem and the ones reusing its
//! inputs alike).

use std::cell::Cell;
use std::sync::Arc;

use skylight_core::app::Request;
use skylight_core::registry;

/// Bytes `i` of a recognisable pattern.
fn pattern(n: usize, salt: usize) -> Vec<u8> {
    (0..n).map(|i| ((i * 7 + salt) % 251) as u8).collect()
}

/// Uploads and writes above the parallel threshold (of a length that is no
/// multiple of 4) and a poisoned range land exactly where asked, and a
/// read of several buffers gives each its own bytes.
#[test]
fn uploads_writes_and_poison_land_where_asked() {
    let gpu = skylight_tests::gpu();
    let n = (3 << 20) + 5;
    let mut want = pattern(n, 0);
    let buf = gpu.storage_init("upload", &want).expect("upload");
    let written = pattern(2 << 20, 3);
    gpu.write(&buf, 4096, &written).expect("write");
    want[4096..4096 + written.len()].copy_from_slice(&written);
    let poison = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let (at, len) = (8192 + (1 << 20), 1 << 20);
    gpu.poison_range(&buf, at as u64, len as u64, &poison);
    for (i, b) in want[at..at + len].iter_mut().enumerate() {
        *b = poison[i % poison.len()];
    }
    let small = gpu.storage_init("small", &[9u8; 12]).expect("small");
    let back = pollster::block_on(gpu.read_buffers(&[&small, &buf])).expect("read");
    assert_eq!(back[0], [9u8; 12]);
    assert_eq!(back[1].len(), n.next_multiple_of(4));
    assert!(
        back[1][..n] == want[..],
        "bytes differ from what was uploaded"
    );
}

/// An upload is made once per group, item and source; another source
/// (data drawn again) or another group uploads again.
#[test]
fn uploads_are_shared_per_source_and_dropped_with_their_group() {
    let gpu = skylight_tests::gpu();
    let made = Cell::new(0);
    let upload = |group: &str, item: &str, source: &Arc<Vec<u8>>| {
        gpu.uploads
            .get_or_upload(group, item, source, |bytes| {
                made.set(made.get() + 1);
                Ok(vec![gpu.storage_init("input", bytes)?])
            })
            .expect("upload");
    };
    let (one, two) = (Arc::new(vec![1u8; 64]), Arc::new(vec![2u8; 64]));
    upload("p", "a", &one);
    upload("p", "a", &one);
    upload("p", "b", &one);
    assert_eq!(made.get(), 2);
    upload("p", "a", &two);
    assert_eq!(made.get(), 3);
    upload("q", "a", &two);
    upload("p", "b", &one);
    assert_eq!(
        made.get(),
        5,
        "another group drops the entries of the first"
    );
    assert!(gpu.uploads.clear());
    assert!(!gpu.uploads.clear());
}

/// A prepared case's outputs read back before any run fail its check
/// (every element unwritten), for the first case of a problem and for a
/// second one that reuses its inputs (or, for snap and milc, the same
/// problem's shared references and fields); outputs are large enough to be
/// poisoned on the device.
#[test]
fn outputs_are_poisoned_before_every_validation_run() {
    let gpu = skylight_tests::gpu();
    let f32 = [skylight_core::Precision::F32];
    let requests = [
        (
            "su3",
            Request::default()
                .set("size", "4")
                .set("layout", "aos")
                .set("variant", "site,link"),
        ),
        (
            "lbm",
            Request::default()
                .set("size", "12")
                .set("kernel", "collide")
                .set("wg", "32,64"),
        ),
        (
            "stream",
            Request::default()
                .set("size", "small")
                .set("kernel", "triad")
                .set("wg", "64,128"),
        ),
        (
            "peak",
            Request::default()
                .set("size", "65536")
                .set("kernel", "fma")
                .set("chains", "8")
                .set("wg", "64,128"),
        ),
        (
            "snap",
            Request::default()
                .set("size", "3")
                .set("twojmax", "2")
                .set("variant", "reorder")
                .set("kernel", "compute_dU,compute_dE"),
        ),
        (
            "milc",
            Request::default()
                .set("size", "small")
                .set("kernel", "extract-mul,dslash-fused")
                .set("layout", "soa")
                .set("vvl", "1"),
        ),
    ];
    for (name, req) in requests {
        let app = registry::find(name).expect("app");
        let cases = app.cases(&req.precisions(&f32), &gpu.caps).expect("cases");
        assert_eq!(cases.len(), 2, "{name}");
        for case in &cases {
            let k = pollster::block_on(gpu.scoped(|| app.prepare(&gpu, case))).expect("prepare");
            let v = pollster::block_on(gpu.read_with(&k.outputs(), |out| k.validate(out)))
                .expect("read");
            assert!(
                !v.passed && v.detail.contains("unwritten"),
                "{}: an unrun kernel's outputs are not all poison: {}",
                case.label(),
                v.detail
            );
        }
    }
    gpu.end_request();
}
