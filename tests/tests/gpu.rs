//! The device layer on the real adapter: a [`Gpu`] around a device the
//! caller opened itself (as a front end or a test brings its own, the way
//! wgpu's examples receive theirs) runs cases like one the suite opened.

use skylight_core::Precision;
use skylight_core::app::Request;
use skylight_core::apps::su3::Su3;
use skylight_core::gpu::{Gpu, Selector, instance, select_adapter};
use skylight_core::runner::Outcome;
use skylight_core::timing::TimingMethod;

#[test]
fn a_device_opened_elsewhere_runs_cases() {
    let inst = instance();
    let sel = Selector::parse(&std::env::var("SKYLIGHT_ADAPTER").unwrap_or_default());
    let (adapter, entry) = pollster::block_on(select_adapter(&inst, &sel)).expect("an adapter");
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
            }
            other => panic!("{other:?}"),
        }
    }
}
