//! Shared helpers for the integration tests: open the real adapter once per
//! test binary, and fail (never skip) when CI has none.

use skylight_core::device::{Gpu, Selector};

/// Opens the adapter chosen by `SKYLIGHT_ADAPTER` (default: auto). Panics with
/// a clear message when none exists, so a CI run without lavapipe fails.
pub fn gpu() -> Gpu {
    let sel = Selector::parse(&std::env::var("SKYLIGHT_ADAPTER").unwrap_or_default());
    match pollster::block_on(Gpu::open(&sel)) {
        Ok(g) => g,
        Err(e) => panic!(
            "no usable GPU adapter ({e}); the integration tests need one: install mesa-vulkan-drivers for lavapipe"
        ),
    }
}
