//! The central panel's pictures of the results: the roofline, the sweep
//! heat map, the portability table with its cascade and the scale-out
//! runs' scaling curves. Each keeps what it
//! derives from the results until their generation changes.

pub mod portability;
pub mod roofline;
pub mod scaling;
mod scaling_table;
pub mod sweep;
