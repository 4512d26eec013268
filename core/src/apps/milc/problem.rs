//! milc's problem parameters given as text: the lattice size, numbers
//! such as kappa and the tolerance, and CG's tolerance when none is given.

use crate::app::{ParamKind, ParamSpec};
use crate::apps::common::parse_size;
use crate::error::{Error, Result};
use crate::precision::Precision;

/// Lattice sizes (L, T): the CI preset and the default for a large GPU
/// (2^21 sites: 4.4 GB of fields for a CG solve in f32, 8.9 GB in f64).
const SIZES: &[(&str, (u64, u64))] = &[("small", (4, 8)), ("default", (32, 64))];

/// Default hopping parameter: below the free-field critical 1/8, so
/// `M^dagger M` is well conditioned for any gauge field.
pub(super) const KAPPA: &str = "0.12";

/// `small`, `default`, `L` (T = 2L) or `LxT`.
pub(super) fn parse_lattice(text: &str) -> Result<(u64, u64)> {
    if let Some((_, lt)) = SIZES.iter().find(|(k, _)| *k == text) {
        return Ok(*lt);
    }
    let (l, t) = match text.split_once(['x', 'X']) {
        Some((l, t)) => (parse_size("size", l, &[])?, parse_size("size", t, &[])?),
        None => {
            let l = parse_size("size", text, &[])?;
            // Saturating: a huge L is rejected as too large, later, not here.
            (l, l.saturating_mul(2))
        }
    };
    // An extent of 1 would make a site its own neighbour.
    if l < 2 || t < 2 {
        return Err(Error::bad_param(
            "size",
            format!("{l}^3 x {t}: every extent must be at least 2"),
        ));
    }
    Ok((l, t))
}

/// A finite number, or a clear error naming the parameter.
pub(super) fn parse_number(name: &str, text: &str) -> Result<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Error::bad_param(name, format!("`{text}` is not a number")))
}

/// CG's tolerance when the user sets none.
pub(super) fn default_tol(p: Precision) -> f64 {
    match p {
        Precision::F32 => 1e-6,
        Precision::F64 | Precision::Df64 => 1e-12,
    }
}

/// The `buffer-kib` parameter (see `fit`).
pub(super) fn buffer_param() -> ParamSpec {
    ParamSpec {
        name: super::fit::BUFFER_PARAM,
        help: "the most KiB one buffer of a field may hold: auto (the adapter's storage binding limit) or a smaller number; a field larger is split over buffers by groups of components, invisibly to the kernels' arithmetic (a small number runs the split on a small lattice)",
        kind: ParamKind::Text,
        default: "auto",
    }
}

/// `auto` (0) or a whole number of KiB, at least 1.
pub(super) fn parse_buffer_kib(text: &str) -> Result<u64> {
    if text == "auto" {
        return Ok(0);
    }
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|&v| (1..1 << 34).contains(&v))
        .ok_or_else(|| {
            Error::bad_param(
                super::fit::BUFFER_PARAM,
                format!("`{text}` is not auto or a whole number of KiB from 1"),
            )
        })
}
