//! Builds without wgpu's Vulkan backend (Apple targets, the browser):
//! devices are wgpu's own and import no host memory (see `host_import.rs`
//! where Vulkan is built).

use std::sync::Arc;

use super::{Gpu, HostPages};
use crate::error::{Error, Result};

/// wgpu's own `request_device`.
pub(crate) async fn request_device(
    adapter: &wgpu::Adapter,
    desc: &wgpu::DeviceDescriptor<'_>,
) -> Result<(wgpu::Device, wgpu::Queue)> {
    adapter
        .request_device(desc)
        .await
        .map_err(|e| Error::Device(format!("request_device failed: {e}")))
}

impl Gpu {
    /// Never: no device here imports host memory.
    pub fn imports_host(&self) -> bool {
        false
    }

    /// `None`: no device here imports host memory.
    pub fn import_host(
        &self,
        _pages: Arc<dyn HostPages>,
        _label: &str,
    ) -> Result<Option<wgpu::Buffer>> {
        Ok(None)
    }
}
