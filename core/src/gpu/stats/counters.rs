//! The hardware counters a Vulkan driver offers through
//! `VK_KHR_performance_query` on the compute queue family: what could
//! measure bytes per memory level where the FLOP/byte models cannot say
//! them. Listing only: a driver that offers none says so.

use ash::vk;

use super::Counter;
use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// The driver's counters on `gpu`'s adapter, or why there are none.
pub(super) fn list(gpu: &Gpu) -> Result<Vec<Counter>> {
    // SAFETY: the handles are used only for queries while `gpu` (which
    // owns the adapter) is borrowed.
    #[allow(unsafe_code)]
    let hal = unsafe { gpu.adapter.as_hal::<wgpu::hal::api::Vulkan>() }
        .ok_or(Error::MissingFeature("Vulkan (performance counters)"))?;
    let ext = ash::khr::performance_query::NAME;
    if !hal.physical_device_capabilities().supports_extension(ext) {
        return Err(Error::MissingFeature("VK_KHR_performance_query"));
    }
    let shared = hal.shared_instance();
    let (instance, phd) = (shared.raw_instance(), hal.raw_physical_device());
    let query = ash::khr::performance_query::Instance::new(shared.entry(), instance);
    // SAFETY: a valid physical device of this instance.
    #[allow(unsafe_code)]
    let families = unsafe { instance.get_physical_device_queue_family_properties(phd) };
    let family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or(Error::MissingFeature("a compute queue family"))? as u32;
    let fail = |e: vk::Result| Error::Device(format!("listing performance counters: {e}"));
    // SAFETY: the count call, then buffers of that count for the second.
    #[allow(unsafe_code)]
    let (counters, descriptions) = unsafe {
        let n = query
            .enumerate_physical_device_queue_family_performance_query_counters_len(phd, family)
            .map_err(fail)?;
        let mut counters = vec![vk::PerformanceCounterKHR::default(); n];
        let mut descriptions = vec![vk::PerformanceCounterDescriptionKHR::default(); n];
        query
            .enumerate_physical_device_queue_family_performance_query_counters(
                phd,
                family,
                &mut counters,
                &mut descriptions,
            )
            .map_err(fail)?;
        (counters, descriptions)
    };
    Ok(counters
        .iter()
        .zip(&descriptions)
        .map(|(c, d)| Counter {
            name: text(&d.name),
            category: text(&d.category),
            description: text(&d.description),
            unit: format!("{:?}", c.unit),
        })
        .collect())
}

/// A fixed-size C string field as text.
fn text(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
