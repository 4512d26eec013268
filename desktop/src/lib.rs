//! Skylight's desktop front end, as a library so other eframe front ends (the
//! `web/` crate, which runs it on a browser canvas) reuse the same
//! [`SkylightApp`].
//!
//! The window has four parts:
//!
//! * a device panel listing every adapter with its features and key limits,
//!   where the user picks the one to benchmark;
//! * a benchmark panel generated from core's registry: each app's parameter
//!   list becomes checkboxes (choices) and text fields (numbers, sizes), so
//!   adding an app to core needs no UI code here;
//! * a live roofline: ceilings measured by `stream` and `peak`, one point per
//!   result the moment it completes, and points loaded from other machines'
//!   result files overlaid in their own colour set;
//! * a sortable results table with validation status, JSON/CSV export and
//!   loading, and built-in reference runs ([`reference`](mod@reference)) to
//!   overlay.
//!
//! # Why benchmarks get their own device
//!
//! Benchmarks run as a job ([`worker`]) that opens its own
//! [`skylight_core::device::Gpu`] (natively on a thread of its own, in a
//! browser as a future on the page's event loop); they never share egui's
//! wgpu device. Queue submissions on a shared device would interleave with
//! the UI's frames, so measured kernel times could include rendering; a
//! separate device keeps the timings identical to the CLI's, lets the user
//! benchmark an adapter other than the one drawing the window, and confines a
//! lost device to the job. The UI stays responsive because the job only talks
//! to it through a channel and repaint requests.

pub mod app;
mod demo;
mod forms;
mod io;
mod palette;
mod panels;
pub mod plot;
pub mod reference;
mod scaling;
mod state;
pub mod sweep;
mod table;
mod tuning;
mod views;
pub mod worker;

pub use app::{DemoOptions, FailHook, FinishHook, Preset, SaveHook, SkylightApp};
