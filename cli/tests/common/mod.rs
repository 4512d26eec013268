//! What the CLI's test binaries share.

/// Flags that make a run CI-sized: the small problem, two samples, no
/// warm-up wait, no progress output.
pub const FAST: [&str; 7] = [
    "--size",
    "small",
    "--samples",
    "2",
    "--warmup-s",
    "0",
    "--quiet",
];
