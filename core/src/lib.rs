//! Skylight core: adapter and device setup, GPU timing, the precision and
//! complex WGSL preludes, the mini-apps with their CPU references and FLOP/byte
//! models, the empirical roofline and result records.
//!
//! Data flows one way: a front end builds a [`app::Request`], the [`runner`]
//! prepares and times each [`app::Case`] on a [`device::Gpu`] (or on the CPU
//! reference platform), and the [`record::ResultRecord`]s feed the
//! [`roofline::Roofline`]. Every GPU call is asynchronous; front ends choose
//! the executor (pollster natively, wasm-bindgen-futures in the browser).

pub mod app;
pub mod apps;
pub mod device;
pub mod df64check;
pub mod efficiency;
pub mod error;
pub mod gpu;
pub mod native;
pub mod parallel;
pub mod portability;
#[cfg(not(target_arch = "wasm32"))]
pub mod precise;
pub mod precision;
pub mod record;
pub mod registry;
pub mod roofline;
pub mod runner;
pub mod shader;
pub mod timing;

pub use error::{Error, Result};
pub use precision::Precision;
