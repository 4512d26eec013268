//! The central panel's pictures of the results: the roofline, the sweep
//! heat map and the portability table with its cascade. Each keeps what it
//! derives from the results until their generation changes.

pub mod portability;
pub mod roofline;
pub mod sweep;
