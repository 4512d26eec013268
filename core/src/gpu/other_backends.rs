//! Metal's and DX12's reported features and limits, as wgpu 30's backends
//! report them, fed into the choices Skylight makes from an adapter's
//! capabilities: which precisions run, how runs are timed, whether df64
//! may be passed through as SPIR-V, and which subgroup reductions a
//! workgroup size allows. Linux CI has no Metal or DX12 adapter to open,
//! so these check the choices the way those adapters would drive them.
//!
//! The figures come from wgpu-hal 30.0.1: `metal/adapter.rs` (no
//! `SHADER_F64` at all; `TIMESTAMP_QUERY` from counter sampling at stage
//! boundaries, which Apple GPUs have, while `TIMESTAMP_QUERY_INSIDE_ENCODERS`
//! and `_INSIDE_PASSES` need sampling at blit and dispatch boundaries,
//! which only AMD and Intel Macs have), `metal/mod.rs` (subgroup sizes
//! fixed at 4..64), and `dx12/adapter.rs` (every timestamp feature, no
//! `SHADER_F64` and no `SHADER_FLOAT32_ATOMIC`, subgroup sizes from
//! `WaveLaneCountMin`/`Max`). GL runs in CI (Mesa's llvmpipe), but the
//! timing choice of a GL driver without `GL_ARB_timer_query` (wgpu's
//! `gles/adapter.rs` reports every timestamp feature with it, none
//! without) is checked here too.

use super::adapter::Capabilities;
use super::pipeline::precise_passthrough;
use super::timer::method_for;
use crate::app::{App, Request};
use crate::apps::gpp::Gpp;
use crate::apps::su3::Su3;
use crate::error::Error;
use crate::precision::Precision;
use crate::runner::plan;
use crate::timing::TimingMethod;
use wgpu::Features as F;

/// What an Apple-silicon Metal adapter (Apple7+, MSL 3) reports of the
/// features Skylight asks for.
fn metal_apple_features() -> F {
    F::TIMESTAMP_QUERY | F::SUBGROUP | F::SHADER_FLOAT32_ATOMIC | F::PASSTHROUGH_SHADERS
}

/// What a DX12 adapter with shader model 6 wave ops reports of them.
fn dx12_features() -> F {
    F::TIMESTAMP_QUERY
        | F::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | F::TIMESTAMP_QUERY_INSIDE_PASSES
        | F::SUBGROUP
        | F::PASSTHROUGH_SHADERS
}

/// Capabilities of an adapter on `backend` reporting `features`, its
/// subgroup sizes `subgroups`, and limits like Metal's on an M-series GPU
/// and DX12's (1024 invocations, 32 KiB of workgroup memory, 65535
/// workgroups per dimension).
fn caps(backend: wgpu::Backend, features: F, subgroups: (u32, u32)) -> Capabilities {
    let limits = wgpu::Limits {
        max_compute_invocations_per_workgroup: 1024,
        max_compute_workgroup_storage_size: 32 << 10,
        max_compute_workgroups_per_dimension: 0xFFFF,
        max_storage_buffer_binding_size: (1 << 31) - 1,
        max_buffer_size: (1 << 31) - 1,
        ..wgpu::Limits::default()
    };
    let info = wgpu::AdapterInfo {
        subgroup_min_size: subgroups.0,
        subgroup_max_size: subgroups.1,
        ..wgpu::AdapterInfo::new(wgpu::DeviceType::IntegratedGpu, backend)
    };
    Capabilities::from_adapter(features, &limits, &info)
}

/// What wgpu's GL backend reports on Mesa's llvmpipe (GL 4.5 through EGL):
/// timestamps with `GL_ARB_timer_query`, nothing else Skylight asks for.
fn gl(timer_query: bool) -> Capabilities {
    let features = match timer_query {
        true => {
            F::TIMESTAMP_QUERY
                | F::TIMESTAMP_QUERY_INSIDE_ENCODERS
                | F::TIMESTAMP_QUERY_INSIDE_PASSES
        }
        false => F::empty(),
    };
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 128 << 20,
        max_storage_buffers_per_shader_stage: 16,
        ..wgpu::Limits::default()
    };
    let info = wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Gl);
    Capabilities::from_adapter(features, &limits, &info)
}

fn metal() -> Capabilities {
    caps(wgpu::Backend::Metal, metal_apple_features(), (4, 64))
}

/// An NVIDIA GPU through DX12 (32-wide waves).
fn dx12() -> Capabilities {
    caps(wgpu::Backend::Dx12, dx12_features(), (32, 32))
}

/// su3 with one mapping, in the precisions `precisions` (the app's own
/// default set where empty).
fn su3_request(precisions: &[Precision]) -> Request {
    Request::default()
        .set("size", "2")
        .set("wg", "32")
        .set("variant", "site")
        .set("layout", "aos")
        .precisions(precisions)
}

/// None of Metal, DX12 and GL has f64: its cases are reported unsupported
/// while f32 and df64 (which need no f64) run, and a request that names
/// f64 on a strict runner is an error naming the feature.
#[test]
fn f64_is_skipped_where_the_adapter_lacks_it() {
    for (name, caps) in [("metal", metal()), ("dx12", dx12()), ("gl", gl(true))] {
        assert!(!caps.f64, "{name}");
        let p = plan(&Su3, &su3_request(&[]), &caps, true).expect("plan");
        let ran: Vec<Precision> = p.cases.iter().map(|c| c.precision).collect();
        assert!(!ran.contains(&Precision::F64), "{name}: {ran:?}");
        assert!(ran.contains(&Precision::F32) && ran.contains(&Precision::Df64));
        assert_eq!(p.skipped.len(), 1, "{name}");
        let named = su3_request(&[Precision::F32, Precision::F64]);
        assert!(matches!(
            plan(&Su3, &named, &caps, true),
            Err(Error::MissingFeature("SHADER_F64"))
        ));
    }
}

/// Pass timestamps wherever the adapter has `TIMESTAMP_QUERY`; a kernel
/// that is not all compute passes is timed in the encoder on DX12 but by
/// the host clock on Apple's Metal, which has no encoder timestamps.
#[test]
fn timing_follows_the_reported_timestamp_features() {
    let (metal, dx12) = (metal(), dx12());
    assert!(metal.timestamps && !metal.timestamps_in_encoders && !metal.timestamps_in_passes);
    assert!(dx12.timestamps && dx12.timestamps_in_encoders && dx12.timestamps_in_passes);
    assert_eq!(method_for(&metal, true), TimingMethod::GpuTimestampsPasses);
    assert_eq!(method_for(&metal, false), TimingMethod::WallClock);
    assert_eq!(method_for(&dx12, true), TimingMethod::GpuTimestampsPasses);
    assert_eq!(method_for(&dx12, false), TimingMethod::GpuTimestampsEncoder);
}

/// GL with `GL_ARB_timer_query` times like DX12; a GL driver without it
/// (OpenGL ES drivers lacking a timer query) times every kernel on the
/// host.
#[test]
fn gl_times_by_its_timer_query() {
    let (with, without) = (gl(true), gl(false));
    assert_eq!(method_for(&with, true), TimingMethod::GpuTimestampsPasses);
    assert_eq!(method_for(&with, false), TimingMethod::GpuTimestampsEncoder);
    assert_eq!(method_for(&without, true), TimingMethod::WallClock);
    assert_eq!(method_for(&without, false), TimingMethod::WallClock);
    assert!(!with.subgroups && !with.float32_atomics);
}

/// Metal and DX12 report `PASSTHROUGH_SHADERS` for MSL and DXIL, which
/// the SPIR-V df64 path cannot use; only Vulkan with it passes through.
#[test]
fn only_vulkan_passes_spirv_through() {
    assert!(!precise_passthrough(
        wgpu::Backend::Metal,
        metal_apple_features()
    ));
    assert!(!precise_passthrough(wgpu::Backend::Dx12, dx12_features()));
    assert!(!precise_passthrough(
        wgpu::Backend::Gl,
        F::PASSTHROUGH_SHADERS
    ));
    assert!(precise_passthrough(
        wgpu::Backend::Vulkan,
        F::PASSTHROUGH_SHADERS
    ));
    assert!(!precise_passthrough(wgpu::Backend::Vulkan, F::empty()));
}

/// The subgroup reduction needs whole subgroups of the largest size the
/// adapter reports: Metal's 64, so a 32-wide workgroup is refused there
/// and accepted on 32-wide DX12 waves.
#[test]
fn subgroup_reductions_follow_the_reported_subgroup_size() {
    let req = Request::default()
        .set("size", "small")
        .set("reduction", "subgroup")
        .set("wg", "32")
        .set("share", "16")
        .precisions(&[Precision::F32]);
    assert_eq!(metal().subgroup_size, (4, 64));
    match Gpp.cases(&req, &metal()) {
        Err(Error::BadParameter { name, .. }) => assert_eq!(name, "wg"),
        other => panic!("metal: {other:?}"),
    }
    assert!(Gpp.cases(&req.clone().set("wg", "64"), &metal()).is_ok());
    assert!(Gpp.cases(&req, &dx12()).is_ok());
}

/// DX12 has no f32 atomics; Metal on Apple7+ has them.
#[test]
fn float_atomics_follow_the_reported_feature() {
    assert!(metal().float32_atomics);
    assert!(!dx12().float32_atomics);
}
