//! Host memory the GPU reads and writes itself: pages the host already
//! holds (for scale-out, pages shared with the other processes of a node)
//! bound to a storage buffer through Vulkan's `VK_EXT_external_memory_host`.
//! A GPU writes its halo planes straight into its neighbour's pages and
//! reads its own over PCIe, so no CPU copies a byte between two GPUs of a
//! node (docs/scale-out.md). wgpu has no such buffers, so the device is
//! opened through wgpu-hal with the extension added where the adapter has
//! it, and the buffer is made with ash and handed to wgpu.

#![allow(unsafe_code)]

use std::sync::Arc;

use ash::vk;
use wgpu::hal::api::Vulkan;

use super::{Gpu, HostPages};
use crate::error::{Error, Result};

const EXT: &std::ffi::CStr = ash::ext::external_memory_host::NAME;
const HANDLE: vk::ExternalMemoryHandleTypeFlags =
    vk::ExternalMemoryHandleTypeFlags::HOST_ALLOCATION_EXT;

/// Opens a device on `adapter` as `desc` asks, with
/// `VK_EXT_external_memory_host` enabled where it is a Vulkan adapter that
/// has it (wgpu enables only the extensions its own features need);
/// elsewhere wgpu's own `request_device`.
pub(crate) async fn request_device(
    adapter: &wgpu::Adapter,
    desc: &wgpu::DeviceDescriptor<'_>,
) -> Result<(wgpu::Device, wgpu::Queue)> {
    let failed = |e: &dyn std::fmt::Display| Error::Device(format!("request_device failed: {e}"));
    // SAFETY: the hal adapter is used only to open a device of its own, with
    // the features and limits `desc` asks (which wgpu checks against the
    // adapter), plus one extension the physical device supports.
    let opened = unsafe {
        adapter.as_hal::<Vulkan>().and_then(|hal| {
            let has = hal.physical_device_capabilities().supports_extension(EXT);
            has.then(|| {
                hal.open_with_callback(
                    desc.required_features,
                    &desc.required_limits,
                    &desc.memory_hints,
                    Some(Box::new(|args| args.extensions.push(EXT))),
                )
            })
        })
    };
    match opened {
        // SAFETY: opened above on this adapter with `desc`'s features.
        Some(Ok(open)) => {
            unsafe { adapter.create_device_from_hal(open, desc) }.map_err(|e| failed(&e))
        }
        Some(Err(e)) => Err(failed(&e)),
        None => adapter.request_device(desc).await.map_err(|e| failed(&e)),
    }
}

impl Gpu {
    /// Whether [`Gpu::import_host`] can make buffers on this device.
    pub fn imports_host(&self) -> bool {
        // SAFETY: read-only queries of the open device's extension list.
        unsafe { self.device.as_hal::<Vulkan>() }
            .is_some_and(|hal| hal.enabled_device_extensions().contains(&EXT))
    }

    /// A storage buffer (also copied to and from) over all of `pages`, whose
    /// length must be a multiple of the device's import alignment (64 KiB
    /// always is); `None` where the device cannot import host memory
    /// ([`Gpu::imports_host`]). The pages stay mapped as long as the buffer.
    pub fn import_host(
        &self,
        pages: Arc<dyn HostPages>,
        label: &str,
    ) -> Result<Option<wgpu::Buffer>> {
        if !self.imports_host() {
            return Ok(None);
        }
        let bad = |what: &str, e: vk::Result| {
            Error::Device(format!("importing host memory: {what}: {e}"))
        };
        let size = pages.bytes() as u64;
        // SAFETY: every handle made here is of this device, and each is
        // either handed to wgpu (which destroys it through the callback
        // below once no work uses it) or destroyed on the error path.
        unsafe {
            let hal = self.device.as_hal::<Vulkan>().expect("a Vulkan device");
            let (instance, device) = (
                hal.shared_instance().raw_instance(),
                hal.raw_device().clone(),
            );
            let ext = ash::ext::external_memory_host::Device::new(instance, &device);
            let mut host = vk::MemoryHostPointerPropertiesEXT::default();
            (ext.fp().get_memory_host_pointer_properties_ext)(
                device.handle(),
                HANDLE,
                pages.ptr().cast(),
                &mut host,
            )
            .result()
            .map_err(|e| bad("pointer properties", e))?;
            let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(HANDLE);
            let info = vk::BufferCreateInfo::default()
                .size(size)
                .usage(
                    vk::BufferUsageFlags::STORAGE_BUFFER
                        | vk::BufferUsageFlags::TRANSFER_SRC
                        | vk::BufferUsageFlags::TRANSFER_DST,
                )
                .sharing_mode(vk::SharingMode::EXCLUSIVE)
                .push_next(&mut external);
            let buffer = device
                .create_buffer(&info, None)
                .map_err(|e| bad("buffer", e))?;
            let need = device.get_buffer_memory_requirements(buffer);
            let types = need.memory_type_bits & host.memory_type_bits;
            if types == 0 || need.size > size {
                device.destroy_buffer(buffer, None);
                return Err(Error::Device(format!(
                    "importing host memory: no memory type fits ({:#x} of the buffer, {:#x} of the pointer; {} bytes of {size})",
                    need.memory_type_bits, host.memory_type_bits, need.size
                )));
            }
            let mut import = vk::ImportMemoryHostPointerInfoEXT::default()
                .handle_type(HANDLE)
                .host_pointer(pages.ptr().cast());
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(size)
                .memory_type_index(types.trailing_zeros())
                .push_next(&mut import);
            let memory = match device.allocate_memory(&alloc, None) {
                Ok(m) => m,
                Err(e) => {
                    device.destroy_buffer(buffer, None);
                    return Err(bad("allocation", e));
                }
            };
            if let Err(e) = device.bind_buffer_memory(buffer, memory, 0) {
                device.destroy_buffer(buffer, None);
                device.free_memory(memory, None);
                return Err(bad("binding", e));
            }
            let owner = device.clone();
            let release = Box::new(move || {
                owner.destroy_buffer(buffer, None);
                owner.free_memory(memory, None);
                drop(pages);
            });
            let raw = wgpu::hal::vulkan::Buffer::from_raw_externally_owned(buffer, release);
            drop(hal);
            let desc = wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            };
            Ok(Some(
                self.device.create_buffer_from_hal::<Vulkan>(raw, &desc),
            ))
        }
    }
}
