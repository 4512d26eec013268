//! Fields larger than one storage binding, for kernels whose every element
//! (or site) is computed from that element alone (stream's arrays, su3's
//! links): the field is cut into blocks of consecutive elements, each block
//! in buffers of its own, and the unchanged kernel is dispatched once a
//! block with that block's buffers bound. The WGSL is the same whether a
//! field is split or not, so the split costs no instruction, and a
//! dispatch binds one block at a time, so the split never needs more
//! storage bindings than the unsplit kernel
//! (`max_storage_buffers_per_shader_stage` cannot bind it). Fields whose
//! elements read their neighbours (lbm, milc) split by component group
//! instead (`crate::layout::Groups`).
//!
//! The `buffer-kib` parameter lowers the most bytes a buffer may hold
//! below the adapter's limits, so tests run the split on small problems.

use crate::app::{ParamKind, ParamSpec};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;

/// The `buffer-kib` parameter's name.
pub const BUFFER_PARAM: &str = "buffer-kib";

/// The `buffer-kib` parameter: `auto` (the adapter's limit) or a smaller
/// number of KiB.
pub fn buffer_param() -> ParamSpec {
    ParamSpec {
        name: BUFFER_PARAM,
        help: "the most KiB one buffer of a field may hold: auto (the adapter's storage binding limit) or a smaller number; a field larger is split over buffers, invisibly to the kernels' arithmetic (a small number runs the split on a small problem)",
        kind: ParamKind::Text,
        default: "auto",
    }
}

/// `auto` (0) or a whole number of KiB, at least 1.
pub fn parse_buffer_kib(text: &str) -> Result<u64> {
    if text == "auto" {
        return Ok(0);
    }
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|&v| (1..1 << 34).contains(&v))
        .ok_or_else(|| {
            Error::bad_param(
                BUFFER_PARAM,
                format!("`{text}` is not auto or a whole number of KiB from 1"),
            )
        })
}

/// The most bytes one buffer of a field may hold on `caps`: the storage
/// binding and buffer limits, or `buffer_kib` KiB where that is smaller
/// (0: the adapter's limits alone).
pub fn bind_bytes(buffer_kib: u64, caps: &Capabilities) -> u64 {
    let adapter = caps.max_storage_binding.min(caps.max_buffer);
    match buffer_kib {
        0 => adapter,
        kib => adapter.min(kib << 10),
    }
}

/// The limit [`bind_bytes`] applies, for errors.
pub fn bind_limit(buffer_kib: u64) -> &'static str {
    match buffer_kib {
        0 => "max_storage_buffer_binding_size",
        _ => BUFFER_PARAM,
    }
}

/// What a case holds while it runs, in bytes: its buffers on the device,
/// and on the host its inputs, references and read-backs. Each app with a
/// size that scales says what its cases hold in one function, checked with
/// [`check_footprint`] when its cases are made, before anything is drawn
/// or allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes of the case's buffers.
    pub device: u64,
    /// Bytes of the case's host copies.
    pub host: u64,
}

/// `OverLimit` where `needed` bytes pass the device's budget
/// ([`Capabilities::device_budget`]; nothing is known of a backend that
/// reports no memory on a host that reports none).
fn check_memory(needed: u64, caps: &Capabilities) -> Result<()> {
    match caps.device_budget() {
        Some((limit, max)) if needed > max => Err(Error::OverLimit { limit, needed, max }),
        _ => Ok(()),
    }
}

/// `OverLimit` where `needed` bytes pass the host's budget
/// ([`Capabilities::host_budget`]; unchecked where the system does not say).
fn check_host(needed: u64, caps: &Capabilities) -> Result<()> {
    match caps.host_budget() {
        Some(max) if needed > max => Err(Error::OverLimit {
            limit: "host memory",
            needed,
            max,
        }),
        _ => Ok(()),
    }
}

/// `OverLimit` where `f` passes the device's or the host's budget.
pub fn check_footprint(f: Footprint, caps: &Capabilities) -> Result<()> {
    check_memory(f.device, caps)?;
    check_host(f.host, caps)
}

/// The largest size from 1 to `hi` that `fits` (which must hold for every
/// size below one that it holds for), or 0 where none does.
pub fn largest_fitting(hi: u64, fits: impl Fn(u64) -> bool) -> u64 {
    let (mut lo, mut hi) = (0, hi.saturating_add(1));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// `total` elements cut into blocks of `per` consecutive elements (the last
/// block holds the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    /// Elements of the whole field.
    pub total: u64,
    /// Elements of every block but the last.
    pub per: u64,
}

impl Blocks {
    /// The fewest blocks, as even as `multiple` allows (every block but
    /// the last holds a multiple of it), of at most `max` elements each;
    /// `None` where `max` holds no multiple.
    pub fn fitting(total: u64, multiple: u64, max: u64) -> Option<Blocks> {
        let fit = max / multiple * multiple;
        if fit == 0 {
            return None;
        }
        let count = total.div_ceil(fit).max(1);
        let per = total.div_ceil(count).div_ceil(multiple) * multiple;
        Some(Blocks { total, per })
    }

    /// Blocks of the field.
    pub fn count(&self) -> usize {
        self.total.div_ceil(self.per).max(1) as usize
    }

    /// The first element of block `k`.
    pub fn first(&self, k: usize) -> u64 {
        k as u64 * self.per
    }

    /// Elements of block `k`.
    pub fn len(&self, k: usize) -> u64 {
        self.per.min(self.total - self.first(k))
    }

    /// The block holding element `i`, and its index there.
    pub fn locate(&self, i: u64) -> (usize, u64) {
        ((i / self.per) as usize, i % self.per)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_even_blocks_fit() {
        let b = Blocks::fitting(1000, 4, 1000).expect("fits");
        assert_eq!((b.count(), b.per, b.len(0)), (1, 1000, 1000));
        // 1000 in at most 300: 4 blocks of 252 (a multiple of 4), 244 last.
        let b = Blocks::fitting(1000, 4, 300).expect("fits");
        assert_eq!((b.count(), b.per, b.len(3)), (4, 252, 244));
        assert_eq!(b.locate(757), (3, 1));
        assert_eq!((0..4).map(|k| b.len(k)).sum::<u64>(), 1000);
        assert_eq!(Blocks::fitting(1000, 4, 3), None);
        // Blocks never pass the most a buffer holds.
        for max in [8, 12, 100, 999] {
            let b = Blocks::fitting(1001, 4, max).expect("fits");
            assert!(b.per <= max && b.per.is_multiple_of(4), "{max}: {b:?}");
            assert_eq!((0..b.count()).map(|k| b.len(k)).sum::<u64>(), 1001);
        }
    }

    #[test]
    fn buffer_kib_lowers_the_binding_and_parses() {
        let caps = Capabilities {
            max_storage_binding: 1 << 27,
            max_buffer: 1 << 28,
            ..Capabilities::default()
        };
        assert_eq!(bind_bytes(0, &caps), 1 << 27);
        assert_eq!(bind_bytes(64, &caps), 64 << 10);
        assert_eq!(bind_bytes(1 << 30, &caps), 1 << 27);
        assert_eq!(parse_buffer_kib("auto").ok(), Some(0));
        assert_eq!(parse_buffer_kib("32").ok(), Some(32));
        assert!(parse_buffer_kib("0").is_err() && parse_buffer_kib("lots").is_err());
        assert_eq!(largest_fitting(100, |n| n * n <= 50), 7);
        assert_eq!(largest_fitting(100, |_| false), 0);
        assert_eq!(largest_fitting(100, |_| true), 100);
    }

    #[test]
    fn footprints_are_checked_against_device_and_host_budgets() {
        let caps = Capabilities {
            device_memory: Some(1000),
            host_memory: Some(2000),
            ..Capabilities::default()
        };
        let f = |device, host| check_footprint(Footprint { device, host }, &caps);
        assert!(f(900, 1800).is_ok());
        let limit = |r: Result<()>| match r {
            Err(Error::OverLimit { limit, max, .. }) => Some((limit, max)),
            _ => None,
        };
        assert_eq!(limit(f(901, 0)), Some(("device memory", 900)));
        assert_eq!(limit(f(0, 1801)), Some(("host memory", 1800)));
        // Unknown host memory is not checked.
        let blind = Capabilities {
            host_memory: None,
            ..caps.clone()
        };
        assert!(check_host(u64::MAX, &blind).is_ok());
    }

    #[test]
    fn unreported_device_memory_is_bounded_by_the_host_and_the_limits() {
        // Metal, DX12, GL, the browser: no device memory.
        let caps = Capabilities {
            max_buffer: 1 << 30,
            max_storage_buffers: 8,
            host_memory: Some(4 << 30),
            ..Capabilities::default()
        };
        let over = |caps: &Capabilities, needed| match check_memory(needed, caps) {
            Err(Error::OverLimit { limit, max, .. }) => Some((limit, max)),
            _ => None,
        };
        let host = (4u64 << 30) / 10 * 9;
        assert_eq!(over(&caps, host), None);
        assert_eq!(
            over(&caps, host + 1),
            Some(("device memory (bounded by host memory)", host))
        );
        // A host that says nothing leaves the limits: 8 buffers of 1 GiB.
        let blind = Capabilities {
            host_memory: None,
            ..caps.clone()
        };
        assert_eq!(over(&blind, 8 << 30), None);
        assert!(over(&blind, (8 << 30) + 1).is_some_and(|(l, _)| l.contains("max_buffer_size")));
        // Reported device memory is the budget, whatever the host has.
        let vulkan = Capabilities {
            device_memory: Some(100 << 30),
            ..caps
        };
        assert_eq!(over(&vulkan, 80 << 30), None);
    }
}
