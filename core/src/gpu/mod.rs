//! The device layer, one job per file, bottom-up: [`backend`] names the
//! graphics APIs; [`adapter`] finds adapters, [`caps`] says what each can
//! do and what of it a result records, [`memory`] how much memory it and
//! its host have; [`resources`] makes buffers and bind groups and maps
//! buffers; [`readback`] reads buffers back through one kept staging
//! buffer; [`poison`] fills outputs with a pattern on the device;
//! [`uploads`] keeps read-only inputs on the device for a problem's cases;
//! [`pipeline`] compiles kernels into pipelines; [`df64`] tests which df64
//! formulation a device computes exactly; [`device`] holds an open device
//! as a [`Gpu`] (opened here, or brought by a front end); `egl` makes the
//! GL contexts of Linux's GL adapters; [`timer`] times runs with GPU
//! timestamps and [`clock`] says what a timer resolves; [`heater`] keeps
//! the GPU's clocks up between cases; `host_import` opens Vulkan devices
//! able to import host memory and makes storage buffers over it; [`stats`] asks a Vulkan driver what
//! it compiled each kernel to (registers, instructions).

pub mod adapter;
pub mod backend;
pub mod caps;
pub mod clock;
pub mod device;
pub mod df64;
#[cfg(target_os = "linux")]
mod egl;
pub mod heater;
#[cfg(vulkan)]
mod host_import;
#[cfg(not(vulkan))]
#[path = "host_import_none.rs"]
mod host_import;
pub mod memory;
#[cfg(test)]
mod other_backends;
pub mod pipeline;
pub mod poison;
pub mod readback;
pub mod resources;
#[cfg(not(target_arch = "wasm32"))]
pub mod stats;
pub mod timer;
pub mod uploads;

pub use adapter::{
    AdapterEntry, Capabilities, DeviceOffers, PlatformInfo, Selector, adapters, adapters_on,
    instance, list_adapters, select_adapter,
};
pub use backend::Api;
pub use device::Gpu;
pub use df64::Df64Status;
pub use heater::Busy;
pub use pipeline::{Bind, Pipeline, PipelineSource, dispatch_shape};
pub use resources::HostPages;
pub use timer::{Timer, Timestamps};
