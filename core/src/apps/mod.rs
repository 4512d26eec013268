//! The mini-apps, one module each (their WGSL lives in `shaders/<app>/`).

pub mod blocks;
pub mod cache;
pub mod comd;
pub mod common;
pub mod gpp;
pub mod lbm;
pub mod milc;
pub mod peak;
pub mod snap;
pub mod stream;
pub mod su3;
