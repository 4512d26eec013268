//! The launch plan of a gpp case, computed without a device: the rows of
//! the N x M and X x M arrays each binding holds, and the pass-1 dispatch
//! of every pair of row chunks.

use super::{Order, Params};
use crate::apps::common::check_binding;
use crate::error::{Error, Result};
use crate::gpu::Capabilities;

/// Binding chunks and dispatches of one case.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// Bytes of one row (M complex).
    pub row: u64,
    /// Pairs (X x N), one partial sum each.
    pub groups: u64,
    /// (bands rows, ngpown rows) of each pass-1 dispatch, as (first, count).
    pub pairs: Vec<((u64, u64), (u64, u64))>,
    /// The workgroup grid of each pass-1 dispatch (a workgroup takes
    /// `share` bands of one my_igp).
    pub grids: Vec<(u32, u32)>,
    /// Whether some dispatch's band count is not a multiple of `share`, so
    /// its last workgroups hold teams past its bands.
    pub ragged: bool,
}

impl Plan {
    /// The plan of `params` on an adapter with `caps` whose storage
    /// bindings start at multiples of `align` bytes.
    pub fn new(params: &Params, caps: &Capabilities, align: u64) -> Result<Plan> {
        let d = params.dims;
        let rb = params.precision.real_bytes();
        let groups = d.bands * d.ngpown;
        check_binding(6 * groups * rb, caps)?;
        let row = 2 * d.ncouls * rb;
        let max = caps.max_storage_binding;
        let (limit, by) = match params.chunk {
            0 => (max, "max_storage_buffer_binding_size"),
            c => (c.min(max), "chunk"),
        };
        let rows = chunk_rows(row, limit, align, by)?;
        let pairs: Vec<((u64, u64), (u64, u64))> = ranges(d.bands, rows)
            .into_iter()
            .flat_map(|n1| ranges(d.ngpown, rows).into_iter().map(move |igp| (n1, igp)))
            .collect();
        let share = u64::from(params.share);
        let grids = pairs
            .iter()
            .map(|(n1, igp)| {
                let bands = n1.1.div_ceil(share) as u32;
                match params.order {
                    Order::Xn => (igp.1 as u32, bands),
                    Order::Nx => (bands, igp.1 as u32),
                }
            })
            .collect();
        let ragged = pairs.iter().any(|(n1, _)| n1.1 % share != 0);
        Ok(Plan {
            row,
            groups,
            pairs,
            grids,
            ragged,
        })
    }
}

/// Rows of the N x M and X x M arrays per binding: as many as fit `limit`
/// bytes, a multiple of the rows between aligned binding offsets.
fn chunk_rows(row_bytes: u64, limit: u64, align: u64, by: &'static str) -> Result<u64> {
    let step = align / gcd(row_bytes, align);
    let rows = limit / row_bytes / step * step;
    if rows == 0 {
        return Err(Error::OverLimit {
            limit: by,
            needed: row_bytes * step,
            max: limit,
        });
    }
    Ok(rows)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The (first row, rows) ranges of `n` rows in chunks of `rows`.
fn ranges(n: u64, rows: u64) -> Vec<(u64, u64)> {
    (0..n.div_ceil(rows))
        .map(|k| (k * rows, rows.min(n - k * rows)))
        .collect()
}
