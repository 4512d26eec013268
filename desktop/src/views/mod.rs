//! The central panel's two pictures of the results: the roofline and the
//! sweep heat map. Each keeps what it derives from the results until their
//! generation changes.

pub mod roofline;
pub mod sweep;
