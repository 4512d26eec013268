//! Skylight core: adapter and device setup, GPU timing, the precision and
//! complex WGSL preludes, the mini-apps with their CPU references and FLOP/byte
//! models, the empirical roofline and result records.
//!
//! The layers, bottom-up (each uses only those below it):
//!
//! 1. Foundations: [`error`], [`precision`] (how reals are stored),
//!    [`parallel`] (host loops), [`timing`] (timing methods, statistics),
//!    [`memo`] (host inputs shared by the cases of a request).
//! 2. Kernels as text: [`shader`] composes a kernel with its precision
//!    prelude; [`precise`] compiles df64 to SPIR-V that keeps its rounding.
//! 3. The device: [`gpu`] finds adapters, opens a [`gpu::Gpu`], builds
//!    pipelines, reads buffers back and times runs.
//! 4. What an app is: [`app`] (parameters, requests, cases, the kernel
//!    traits), [`params`] (typed parameters, the case grid) and [`layout`]
//!    (targetDP's lattice field layouts, and fields split by component
//!    group over several bindings).
//! 5. The apps: [`apps`], one module each, listed in [`registry`].
//! 6. Running: [`runner`] plans a request into cases and validates, warms
//!    up and times each one; [`scale`] splits a lattice app over ranks
//!    (the decomposition, the halo swap on the GPU, a communicator trait);
//!    [`tune`] searches each app's tunable parameters for the fastest
//!    configuration on a device and keeps it in a tuning cache, which the
//!    runner's runs then use.
//! 7. Results: [`record`] (result records and files), [`roofline`],
//!    [`native`] (native baselines as records), [`efficiency`] (Skylight
//!    beside the native code of a device), [`portability`] (Pennycook's
//!    PP across platforms) and [`compare`] (the same problems' times on
//!    several platforms); [`report`] puts them on one HTML page.
//!
//! Data flows one way: a front end builds a [`app::Request`], the [`runner`]
//! prepares and times each [`app::Case`] on a [`gpu::Gpu`] (or on the CPU
//! reference platform), and the [`record::ResultRecord`]s feed the
//! [`roofline::Roofline`]. Every GPU call is asynchronous; front ends choose
//! the executor (pollster natively, wasm-bindgen-futures in the browser).

pub mod app;
pub mod apps;
pub mod compare;
pub mod efficiency;
pub mod error;
#[cfg(test)]
mod fixtures;
pub mod gpu;
pub mod layout;
pub mod memo;
pub mod native;
pub mod parallel;
pub mod params;
pub mod portability;
#[cfg(not(target_arch = "wasm32"))]
pub mod precise;
pub mod precision;
pub mod record;
pub mod registry;
pub mod report;
pub mod roofline;
pub mod runner;
pub mod scale;
pub mod shader;
pub mod timing;
pub mod tune;

/// The adapter and device types under their first path (`skylight_core::device::Gpu`),
/// kept for front ends: they live in [`gpu`].
pub mod device {
    pub use crate::gpu::{
        AdapterEntry, Api, Capabilities, Df64Status, Gpu, PlatformInfo, Selector, list_adapters,
    };
}

pub use error::{Error, Result};
pub use precision::Precision;
