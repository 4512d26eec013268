//! The control column on the left, top to bottom: devices, benchmarks,
//! result files, messages. Each panel edits only the state it is given and
//! returns what the user asked for that needs the rest of the app.

pub mod bench;
pub mod devices;
pub mod files;
pub mod messages;
