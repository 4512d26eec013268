//! milc's problem parameters given as text: the lattice size, numbers
//! such as kappa and the tolerance, and CG's tolerance when none is given;
//! and the one-pass operator's dispatch orders a request asks for.

use crate::app::{ParamKind, ParamSpec};
use crate::apps::common::parse_size;
use crate::error::{Error, Result};
use crate::params::Resolved;
use crate::precision::Precision;
use crate::scale::Part;

use super::wilson::LINKS;

/// Lattice sizes (L, T): the CI preset and the default for a large GPU
/// (2^21 sites: 4.4 GB of fields for a CG solve in f32, 8.9 GB in f64).
const SIZES: &[(&str, (u64, u64))] = &[("small", (4, 8)), ("default", (32, 64))];

/// Default hopping parameter: below the free-field critical 1/8, so
/// `M^dagger M` is well conditioned for any gauge field.
pub(super) const KAPPA: &str = "0.12";

/// Sites of an L^3 x T lattice whose link reals (`LINKS` a site) the
/// shaders' u32 indices reach; `None` past them.
pub(super) fn indexed_sites(l: u64, t: u64) -> Option<u64> {
    l.checked_pow(3).and_then(|s| s.checked_mul(t)).filter(|s| {
        s.checked_mul(LINKS as u64)
            .is_some_and(|r| r <= u64::from(u32::MAX))
    })
}

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

/// An extent of the one-pass operator's dispatch order.
pub(super) fn order_param(
    name: &'static str,
    help: &'static str,
    default: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        help,
        kind: ParamKind::UInt { min: 1, max: 64 },
        default,
    }
}

/// The requested dispatch orders (block, tile) as `Part::ordered` cuts
/// them to the whole lattice of one device (L along y and z, T along t),
/// so what a case records is the order it ran there (a rank cuts them
/// again to its box).
pub(super) fn orders(r: &Resolved, l: u32, t: u32) -> Vec<([u32; 3], u32)> {
    let lattice = Part::planes(l * l, l, t);
    let mut orders = Vec::new();
    for y in r.uints("block-y") {
        for z in r.uints("block-z") {
            for bt in r.uints("block-t") {
                for tile in r.uints("tile-t") {
                    let want = [y, z, bt].map(|n| n as u32);
                    let o = lattice.ordered(l, want, tile as u32).order;
                    let o = (o.block, o.group * o.block[2]);
                    if !orders.contains(&o) {
                        orders.push(o);
                    }
                }
            }
        }
    }
    orders
}
