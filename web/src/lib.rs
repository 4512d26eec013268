//! Skylight in the browser: the desktop crate's [`skylight_desktop::SkylightApp`]
//! on a canvas, benchmarking the browser's WebGPU adapter.
//!
//! The page (`web/index.html`) checks for WebGPU before loading this module
//! and explains how to enable it when it is missing. URL parameters become a
//! preset ([`query`]); when a run ends its result file, the same JSON the CLI
//! writes, is published as `window.skylightResults` and through a
//! `skylight-results` event (the page's download link and the end-to-end test
//! read it), and the app's Export buttons turn into downloads.

pub mod query;

#[cfg(target_arch = "wasm32")]
mod page;
