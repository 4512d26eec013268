//! How much memory a device and its host have. wgpu does not say; a
//! Vulkan driver does, as its memory heaps. Elsewhere (Metal, DX12, GL, the
//! browser) the device's is unknown, and its budget is bounded instead by
//! the host's and the adapter's limits (`Capabilities::device_budget`).
//! The host's is what Linux calls available (`MemAvailable` of
//! `/proc/meminfo`, Android's too); other systems' std has no account of
//! it, so there (macOS, Windows, the browser) the host is not checked.

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

/// Bytes of host memory available to a new allocation now, where the
/// system says (`MemAvailable` of `/proc/meminfo`: Linux, Android).
pub fn host_available_bytes() -> Option<u64> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| mem_available(&text))
    }
    #[cfg(target_arch = "wasm32")]
    {
        None
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes (the file says kB,
/// meaning KiB).
pub fn mem_available(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let kib = line.strip_prefix("MemAvailable:")?.trim();
        let kib = kib.strip_suffix("kB").unwrap_or(kib).trim();
        kib.parse::<u64>().ok()?.checked_mul(1024)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_reads_meminfo() {
        let text = "MemTotal:       24576000 kB\nMemFree:        16000000 kB\nMemAvailable:   22000000 kB\nBuffers:          1000 kB\n";
        assert_eq!(mem_available(text), Some(22_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
    }
}
