//! The mini-apps, one module each (their WGSL lives in `shaders/<app>/`).

pub mod cache;
pub mod common;
pub mod peak;
pub mod stream;
