//! The one error type of the core library.

use thiserror::Error;

/// Everything that can go wrong between a front end's request and a result record.
#[derive(Debug, Error)]
pub enum Error {
    /// No adapter (GPU or software driver) was found, or none matched the selector.
    #[error("no adapter found{0}")]
    NoAdapter(String),
    /// The adapter lacks a feature that the requested run needs.
    #[error("missing feature: {0} (the adapter does not support it)")]
    MissingFeature(&'static str),
    /// A requested size exceeds one of the adapter's limits.
    #[error("size over the adapter limit {limit}: needs {needed} bytes, the limit is {max} bytes")]
    OverLimit {
        /// Name of the wgpu limit, e.g. `max_storage_buffer_binding_size`.
        limit: &'static str,
        /// Bytes (or count) the run would need.
        needed: u64,
        /// The adapter's limit.
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
    #[error("unknown app `{0}` (try `skylight list-apps`)")]
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
    /// I/O failure (writing results, reading files). Transparent, so a
    /// context chain names the cause once.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Result type of the core library.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Shorthand for a [`Error::BadParameter`].
    pub fn bad_param(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::BadParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }
}
