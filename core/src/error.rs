//! The one error type of the core library.

use std::sync::Arc;

use thiserror::Error;

/// Everything that can go wrong between a front end's request and a result record.
#[derive(Clone, Debug, Error)]
pub enum Error {
    /// No adapter (GPU or software driver) was found, or none matched the selector.
    #[error("no adapter found{0}")]
    NoAdapter(String),
    /// The adapter lacks a feature that the requested run needs.
    #[error("missing feature: {0} (the adapter does not support it)")]
    MissingFeature(&'static str),
    /// A requested size or count exceeds one of the adapter's limits.
    #[error(
        "over the adapter limit {limit}: needs {needed}{unit}, the limit is {max}{unit}",
        unit = limit_unit(limit)
    )]
    OverLimit {
        /// Name of the wgpu limit, e.g. `max_storage_buffer_binding_size`
        /// (or of the parameter that set a smaller one, e.g. `chunk`).
        limit: &'static str,
        /// What the run would need, in the limit's unit.
        needed: u64,
        /// The limit.
        max: u64,
    },
    /// A parameter given by the user is malformed or out of range.
    #[error("bad parameter `{name}`: {reason}")]
    BadParameter {
        /// Parameter name as the user typed it.
        name: String,
        /// Why it was rejected.
        reason: String,
    },
    /// No app of that name is registered.
    #[error("unknown app `{0}` (try `skylight apps`)")]
    UnknownApp(String),
    /// The device was lost or a GPU operation failed.
    #[error("device error: {0}")]
    Device(String),
    /// A kernel produced a result outside its tolerance.
    #[error("validation failed: {0}")]
    Validation(String),
    /// A shader failed to parse or validate.
    #[error("shader `{name}` is invalid: {message}")]
    Shader {
        /// Kernel name.
        name: String,
        /// The compiler's message.
        message: String,
    },
    /// A result or reference-data file could not be read or parsed.
    #[error("malformed file {path}: {reason}")]
    BadFile {
        /// File path.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file that is no Skylight result file at all: JSON without a
    /// `schema_version`, such as another tool's output. Readers of many
    /// files skip it; a reader of one file reports it.
    #[error("{0} is not a Skylight result file (no schema_version)")]
    NotResultFile(String),
    /// A case run in a process of its own (`--isolate`) failed there; the
    /// child's account of it.
    #[error("{0}")]
    Isolated(String),
    /// A lattice cannot be split over the ranks asked for (scale-out).
    /// Transparent: the reason already says what was split and how.
    #[error(transparent)]
    Decomposition(#[from] DecompError),
    /// A collective operation between ranks failed (scale-out).
    #[error("communication between ranks failed: {0}")]
    Comm(String),
    /// I/O failure (writing results, reading files). Transparent, so a
    /// context chain names the cause once.
    #[error(transparent)]
    Io(Arc<std::io::Error>),
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(Arc::new(e))
    }
}

/// The unit of a limit's figures: bytes for the size limits, memory (and
/// `chunk`), none for counts (invocations, workgroups).
fn limit_unit(limit: &str) -> &'static str {
    if limit.ends_with("_size") || limit.contains("memory") || limit == "chunk" {
        " bytes"
    } else {
        ""
    }
}

/// Result type of the core library.
pub type Result<T> = std::result::Result<T, Error>;

/// How a [`Error::Device`] for exhausted device memory starts.
const OUT_OF_MEMORY: &str = "out of device memory: ";

impl Error {
    /// Shorthand for a [`Error::BadParameter`].
    pub fn bad_param(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::BadParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// The device ran out of memory (wgpu's account of it).
    pub fn out_of_memory(detail: impl std::fmt::Display) -> Self {
        Error::Device(format!("{OUT_OF_MEMORY}{detail}"))
    }

    /// Whether this is [`Error::out_of_memory`].
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, Error::Device(m) if m.starts_with(OUT_OF_MEMORY))
    }
}

// The scale-out planner's errors live here, below `scale`, so that the
// one error type needs nothing from the layers above it.

/// Why a lattice cannot be split over the ranks asked for.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecompError {
    /// Zero ranks.
    #[error("a decomposition needs at least one rank")]
    NoRanks,
    /// The split axis does not divide evenly.
    #[error(
        "{ranks} ranks do not divide the {axis} axis of {extent} sites: choose a rank count that divides {extent}"
    )]
    Indivisible {
        /// Name of the split axis (`z` for lbm, `t` for milc).
        axis: &'static str,
        /// Its extent in sites.
        extent: usize,
        /// Ranks asked for.
        ranks: usize,
    },
    /// No grid over two axes fits.
    #[error(transparent)]
    NoGrid(#[from] NoGrid),
    /// Each rank would own fewer planes than one halo holds.
    #[error(
        "{ranks} ranks leave {local} plane(s) of the {axis} axis per rank, fewer than the {halo}-plane halo: use at most {max} ranks"
    )]
    TooThin {
        /// Name of the split axis.
        axis: &'static str,
        /// Planes per rank.
        local: usize,
        /// Halo depth in planes.
        halo: usize,
        /// Ranks asked for.
        ranks: usize,
        /// The most ranks this axis allows.
        max: usize,
    },
}

/// A lattice that no grid of ranks over two axes splits.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "no grid of {ranks} ranks over the {second} and {slowest} axes ({extents:?} sites) divides both and leaves each rank at least {halo} plane(s) along each: choose another rank count, or split one axis"
)]
pub struct NoGrid {
    /// Ranks asked for.
    pub ranks: usize,
    /// Names of the two axes.
    pub second: &'static str,
    /// Name of the slowest axis.
    pub slowest: &'static str,
    /// Their extents (second, slowest).
    pub extents: [usize; 2],
    /// Halo depth in planes.
    pub halo: usize,
}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn limits_name_their_unit() {
        let bytes = Error::OverLimit {
            limit: "max_storage_buffer_binding_size",
            needed: 10,
            max: 8,
        };
        assert!(
            bytes
                .to_string()
                .ends_with("needs 10 bytes, the limit is 8 bytes")
        );
        let count = Error::OverLimit {
            limit: "max_compute_invocations_per_workgroup",
            needed: 2048,
            max: 1024,
        };
        assert!(count.to_string().ends_with("needs 2048, the limit is 1024"));
    }
}
