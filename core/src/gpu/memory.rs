//! How much memory a device and its host have. wgpu does not say; a
//! Vulkan driver does, as its memory heaps. Elsewhere (Metal, DX12, GL, the
//! browser) the device's is unknown, and its budget is bounded instead by
//! the host's and the adapter's limits (`Capabilities::device_budget`).
//! The host's is what the system calls available: `MemAvailable` of
//! `/proc/meminfo` on Linux and Android, the free and inactive pages on
//! macOS (`host_statistics64`), the available physical memory on Windows
//! (`GlobalMemoryStatusEx`). A browser does not say how much the machine
//! has, but a page's arrays live in its wasm32 memory, which cannot grow
//! past 4 GiB: there the host's is the room left in it, and the device's
//! budget is the adapter's limits' (the GPU's buffers are not in it).

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
/// system says (see the module's documentation; in a browser, the room
/// left in the page's memory); `None` where the system's call fails.
pub fn host_available_bytes() -> Option<u64> {
    #[cfg(target_os = "macos")]
    {
        macos_available()
    }
    #[cfg(windows)]
    {
        windows_available()
    }
    // Linux and Android; other Unix systems have no such file, or one
    // that says the same (FreeBSD's linprocfs).
    #[cfg(not(any(target_os = "macos", windows, target_arch = "wasm32")))]
    {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| mem_available(&text))
    }
    #[cfg(target_arch = "wasm32")]
    {
        Some(wasm_room(core::arch::wasm32::memory_size(0) as u64))
    }
}

/// The most a wasm32 memory holds (65,536 pages of 64 KiB), which browsers
/// allow a page.
const WASM32_MEMORY: u64 = 1 << 32;

/// Bytes a wasm32 memory of `pages` pages can still grow by. What its
/// allocator holds free inside those pages is not counted, so this errs
/// low by that much.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn wasm_room(pages: u64) -> u64 {
    WASM32_MEMORY.saturating_sub(pages * 65_536)
}

/// macOS's free and inactive pages (those a new allocation gets without
/// paging out: what `vm_stat` and psutil call available), in bytes.
#[cfg(target_os = "macos")]
#[allow(unsafe_code)]
fn macos_available() -> Option<u64> {
    use std::sync::OnceLock;
    // One send right to the host port for the process: each
    // `mach_host_self` adds a reference, which libc cannot release.
    static HOST: OnceLock<libc::mach_port_t> = OnceLock::new();
    // SAFETY: takes no arguments and returns this task's host port.
    #[allow(deprecated)] // libc points to the mach2 crate, not a dependency
    let host = *HOST.get_or_init(|| unsafe { libc::mach_host_self() });
    let mut stats = std::mem::MaybeUninit::<libc::vm_statistics64>::zeroed();
    let mut count = libc::HOST_VM_INFO64_COUNT;
    // SAFETY: `stats` is a zeroed `vm_statistics64` and `count` its size
    // in integers, as HOST_VM_INFO64 requires; the kernel writes at most
    // `count` integers into it (fewer on an older system, leaving zeros).
    let status = unsafe {
        libc::host_statistics64(
            host,
            libc::HOST_VM_INFO64,
            stats.as_mut_ptr().cast(),
            &mut count,
        )
    };
    if status != libc::KERN_SUCCESS {
        return None;
    }
    // SAFETY: zeroed and then written by the kernel: every field of this
    // plain integer struct is initialised.
    let stats = unsafe { stats.assume_init() };
    // SAFETY: `sysconf` only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages_bytes(
        &[stats.free_count, stats.inactive_count],
        u64::try_from(page).ok()?,
    )
}

/// `pages` of `page_size` bytes each, in bytes (`None` on overflow).
#[cfg(any(target_os = "macos", test))]
fn pages_bytes(pages: &[u32], page_size: u64) -> Option<u64> {
    pages
        .iter()
        .try_fold(0u64, |sum, &p| sum.checked_add(u64::from(p)))?
        .checked_mul(page_size)
}

/// Windows' available physical memory (`ullAvailPhys`), in bytes.
#[cfg(windows)]
#[allow(unsafe_code)]
fn windows_available() -> Option<u64> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    let mut status = MEMORYSTATUSEX {
        dwLength: u32::try_from(std::mem::size_of::<MEMORYSTATUSEX>()).ok()?,
        ..MEMORYSTATUSEX::default()
    };
    // SAFETY: a valid, writable MEMORYSTATUSEX whose `dwLength` is its
    // size, as the call requires; it writes nothing else.
    let ok = unsafe { GlobalMemoryStatusEx(&mut status) };
    (ok != 0).then_some(status.ullAvailPhys)
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
    fn a_page_has_what_its_memory_can_still_grow_by() {
        assert_eq!(wasm_room(0), 4 << 30);
        assert_eq!(wasm_room(16_384), 3 << 30);
        assert_eq!(wasm_room(65_536), 0);
        assert_eq!(wasm_room(70_000), 0);
    }

    #[test]
    fn mem_available_reads_meminfo() {
        let text = "MemTotal:       24576000 kB\nMemFree:        16000000 kB\nMemAvailable:   22000000 kB\nBuffers:          1000 kB\n";
        assert_eq!(mem_available(text), Some(22_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
    }

    /// macOS's count: free and inactive pages of 16 KiB (Apple silicon's)
    /// or 4 KiB, with no overflow wrapping into a small budget.
    #[test]
    fn pages_add_up_to_bytes() {
        assert_eq!(pages_bytes(&[1000, 24], 16 << 10), Some(1024 * (16 << 10)));
        assert_eq!(
            pages_bytes(&[u32::MAX, u32::MAX], 4096),
            Some(2 * u64::from(u32::MAX) * 4096)
        );
        assert_eq!(pages_bytes(&[], 4096), Some(0));
        assert_eq!(pages_bytes(&[2], u64::MAX), None);
    }

    /// Where the system says (Linux here), the host has some memory.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_host_says_how_much_is_available() {
        assert!(host_available_bytes().is_some_and(|b| b > 0));
    }
}
