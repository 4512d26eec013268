//! Whether an su3 lattice fits the adapter, checked when its cases are
//! made, before anything is drawn or allocated: where one binding cannot
//! hold A or C, the lattice is cut into blocks of sites
//! (`crate::apps::blocks`), each block's A and C a lattice of that many
//! sites in the case's layout, in buffers of their own; A and C must fit
//! the device's memory, the host's copies the host's.

use super::{MAX_VECTOR_SITES, MILC_SITE_REALS, Params, SITE_REALS, Strides};
use crate::apps::blocks::{self, Blocks, Footprint};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;

/// The most sites a block may hold whatever the limits: kernels index a
/// block's reals (up to [`MILC_SITE_REALS`] a site) in u32. A multiple of
/// [`MAX_VECTOR_SITES`], as every block but the last is.
const MAX_BLOCK_SITES: u64 =
    u32::MAX as u64 / MILC_SITE_REALS as u64 / MAX_VECTOR_SITES * MAX_VECTOR_SITES;

/// Bytes a site takes in A (or C) of `params`' layout, padding included.
fn site_bytes(params: &Params) -> u64 {
    Strides::new(params.layout, 1).site_bytes(params.precision)
}

/// How `params`' lattice splits into blocks of sites on `caps`: as few as
/// one binding of A allows, every block but the last a whole number of
/// 16-byte vectors of sites (so `row-vector` runs on each).
pub(super) fn blocks(params: &Params, caps: &Capabilities) -> Result<Blocks> {
    let binding = blocks::bind_bytes(params.buffer_kib, caps);
    let max = (binding / site_bytes(params)).min(MAX_BLOCK_SITES);
    Blocks::fitting(params.sites, MAX_VECTOR_SITES, max).ok_or(Error::OverLimit {
        limit: blocks::bind_limit(params.buffer_kib),
        needed: MAX_VECTOR_SITES * site_bytes(params),
        max: binding,
    })
}

/// What the case holds. The device: A, C and B. The host: A and the
/// reference C in f64, and A's upload and C's read-back in the layout's
/// bytes.
fn footprint(params: &Params) -> Footprint {
    let (sites, bytes) = (params.sites, site_bytes(params));
    Footprint {
        device: 2 * sites * bytes + SITE_REALS as u64 * params.precision.real_bytes(),
        host: 2 * sites * (SITE_REALS as u64 * 8 + bytes),
    }
}

/// `params`' blocks where they fit `caps`, its memory and the host's.
fn check(params: &Params, caps: &Capabilities) -> Result<Blocks> {
    let b = blocks(params, caps)?;
    blocks::check_footprint(footprint(params), caps)?;
    Ok(b)
}

/// The largest L whose lattice's byte counts stay within u64 (8192^4 sites
/// take 1.3e18 bytes in f32, far past any device): a larger one is
/// refused without its sites being counted.
pub(super) const MAX_L: u64 = 8192;

/// `params`' blocks, checked before any work against `caps`; the error
/// names the largest L that fits.
pub(super) fn fits(params: &Params, caps: &Capabilities) -> Result<Blocks> {
    let why = if params.l > MAX_L {
        "beyond any device's memory".to_string()
    } else {
        match check(params, caps) {
            Ok(b) => return Ok(b),
            Err(e @ Error::OverLimit { .. }) => e.to_string(),
            Err(e) => return Err(e),
        }
    };
    let at = |l: u64| Params {
        l,
        sites: l.pow(4),
        ..*params
    };
    let hi = params.l.min(MAX_L);
    let largest = match blocks::largest_fitting(hi, |l| check(&at(l), caps).is_ok()) {
        0 => "no L fits".to_string(),
        l => format!("the largest that fits is L = {l}"),
    };
    Err(Error::bad_param(
        "size",
        format!(
            "L = {} in {} on {} does not fit this adapter ({why}); {largest}",
            params.l, params.precision, params.layout
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::su3::{Layout, Mapping};
    use crate::precision::Precision;

    fn params(l: u64, layout: Layout, buffer_kib: u64) -> Params {
        Params {
            precision: Precision::F32,
            mapping: Mapping::Site,
            layout,
            wg: 128,
            l,
            sites: l.pow(4),
            buffer_kib,
        }
    }

    #[test]
    fn lattices_past_a_binding_split_into_blocks_of_sites() {
        let caps = Capabilities {
            max_storage_binding: 1 << 27,
            max_buffer: 1 << 28,
            device_memory: Some(8 << 30),
            ..Capabilities::default()
        };
        // 32^4 sites of 288 bytes: 288 MiB, three blocks of 128 MiB or less.
        let b = fits(&params(32, Layout::Aos, 0), &caps).expect("fits");
        assert_eq!(b.count(), 3);
        assert!(b.per * 288 <= 1 << 27 && b.per.is_multiple_of(4));
        // MILC's padded struct takes 320 bytes a site.
        assert_eq!(
            fits(&params(32, Layout::AosMilc, 0), &caps)
                .map(|b| b.count())
                .ok(),
            Some(3)
        );
        assert_eq!(
            fits(&params(16, Layout::Soa, 0), &caps)
                .map(|b| b.count())
                .ok(),
            Some(1)
        );
        // buffer-kib forces the split of a small lattice: 4096 sites of
        // 288 bytes in at most 256 KiB.
        let b = fits(&params(8, Layout::Soa, 256), &caps).expect("fits");
        assert_eq!((b.count(), b.per), (5, 820));
    }

    #[test]
    fn lattices_past_memory_are_refused_naming_the_largest_l() {
        let caps = Capabilities {
            max_storage_binding: 1 << 27,
            max_buffer: 1 << 28,
            device_memory: Some(1 << 30),
            ..Capabilities::default()
        };
        // 90% of 1 GiB holds A and C of 1.68 million aos sites: L = 35.
        let Err(Error::BadParameter { name, reason }) = fits(&params(64, Layout::Aos, 0), &caps)
        else {
            panic!("fits");
        };
        assert_eq!(name, "size");
        assert!(
            reason.contains("the largest that fits is L = 35"),
            "{reason}"
        );
        assert!(fits(&params(35, Layout::Aos, 0), &caps).is_ok());
    }
}
