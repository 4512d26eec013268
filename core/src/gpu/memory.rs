//! How much memory a device has. wgpu does not say; a Vulkan driver does,
//! as its memory heaps. Elsewhere (Metal, DX12, GL, the browser) nothing is
//! known, and sizes are checked against the binding and buffer limits only.

/// Bytes of the largest device-local memory heap of `adapter`, where its
/// backend reports heaps (Vulkan).
pub fn device_local_bytes(adapter: &wgpu::Adapter) -> Option<u64> {
    #[cfg(vulkan)]
    {
        vulkan_device_local(adapter)
    }
    #[cfg(not(vulkan))]
    {
        let _ = adapter;
        None
    }
}

/// The largest heap with `DEVICE_LOCAL` of a Vulkan adapter (a discrete
/// GPU's memory; a CPU driver's heap is host memory).
#[cfg(vulkan)]
fn vulkan_device_local(adapter: &wgpu::Adapter) -> Option<u64> {
    use ash::vk;
    // SAFETY: the handle is used only to query the physical device's memory
    // properties, while the adapter (which owns it) is borrowed.
    #[allow(unsafe_code)]
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    // SAFETY: a valid physical device of this instance.
    #[allow(unsafe_code)]
    let props = unsafe {
        hal.shared_instance()
            .raw_instance()
            .get_physical_device_memory_properties(hal.raw_physical_device())
    };
    props
        .memory_heaps_as_slice()
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .max()
}
