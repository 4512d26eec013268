//! Whether a stream case fits the adapter, checked when its cases are made,
//! before anything is drawn or allocated: arrays larger than a binding are
//! cut into blocks of elements (`crate::apps::blocks`), block k of a, b and
//! c in buffers of their own (one when packed), and the arrays must fit the
//! device's memory, their host copies the host's.

use super::{Alloc, KernelName, Load, Params};
use crate::apps::blocks::{self, Blocks, Footprint};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;

/// What packed arrays' starts may round up by beyond `pad`: WebGPU's
/// largest `min_storage_buffer_offset_alignment`.
const MAX_ALIGN: u64 = 256;

/// The most elements a block may hold whatever the limits: kernels index
/// a block's vectors and invocations in u32.
const MAX_BLOCK: u64 = 1 << 31;

/// Whether the case's arrays share one buffer a block (the driver copy
/// cannot copy within one buffer: it always uses three).
pub(super) fn packed(params: &Params) -> bool {
    params.alloc == Alloc::Packed && params.kernel != KernelName::CopyBuffer
}

/// How `params`' arrays split into blocks on `caps`: as few as one
/// binding of an array (and, packed, one buffer of the three) allow, each
/// a whole number of 16-byte vectors.
pub(super) fn blocks(params: &Params, caps: &Capabilities) -> Result<Blocks> {
    let p = params.precision;
    let rb = p.real_bytes();
    let binding = blocks::bind_bytes(params.buffer_kib, caps);
    let buffer = match packed(params) {
        true => caps.max_buffer.saturating_sub(2 * (params.pad + MAX_ALIGN)) / 3,
        false => caps.max_buffer,
    };
    let lanes = Load::Vector.lanes(p);
    let max = (binding.min(buffer) / rb).min(MAX_BLOCK);
    Blocks::fitting(params.n, lanes, max).ok_or(Error::OverLimit {
        limit: match binding <= buffer {
            true => blocks::bind_limit(params.buffer_kib),
            false => "max_buffer_size",
        },
        needed: lanes * rb,
        max: binding.min(buffer),
    })
}

/// What the case holds split as `b`. The device: the three arrays, packed
/// arrays' gaps, and the partial sums (one a workgroup, at most one an
/// element of a workgroup). The host: the three arrays in f64 and in the
/// buffers' bytes (`Inputs`), and the read-back array (packed, the whole
/// buffer of the three).
pub(super) fn footprint(params: &Params, b: &Blocks) -> Footprint {
    // Saturating: a size up to 2^62 parses, and must be refused, not wrap.
    let (n, rb) = (params.n, params.precision.real_bytes());
    let arrays = n.saturating_mul(3 * rb);
    let gaps = match packed(params) {
        true => 2 * b.count() as u64 * (params.pad + MAX_ALIGN),
        false => 0,
    };
    let read = match packed(params) {
        true => arrays.saturating_add(gaps),
        false => n.saturating_mul(rb),
    };
    let partials = n.div_ceil(u64::from(params.wg)) * rb;
    Footprint {
        device: arrays.saturating_add(gaps).saturating_add(partials),
        host: n
            .saturating_mul(3 * 8)
            .saturating_add(arrays)
            .saturating_add(read),
    }
}

/// `params`' blocks where they fit `caps`, its memory and the host's.
pub(super) fn check(params: &Params, caps: &Capabilities) -> Result<Blocks> {
    let b = blocks(params, caps)?;
    blocks::check_footprint(footprint(params, &b), caps)?;
    Ok(b)
}

/// The largest element count (a whole number of 16-byte vectors) at which
/// `params` fits `caps`; 0 where none does.
pub(super) fn largest(params: &Params, caps: &Capabilities) -> u64 {
    let lanes = Load::Vector.lanes(params.precision);
    let fit = |v: u64| {
        check(
            &Params {
                n: v * lanes,
                ..*params
            },
            caps,
        )
        .is_ok()
    };
    blocks::largest_fitting(params.n / lanes, fit) * lanes
}

/// `params`' blocks, checked before any work against `caps`; the error
/// names the largest size that fits.
pub(super) fn fits(params: &Params, caps: &Capabilities) -> Result<Blocks> {
    let e = match check(params, caps) {
        Ok(b) => return Ok(b),
        Err(e @ Error::OverLimit { .. }) => e,
        Err(e) => return Err(e),
    };
    let largest = match largest(params, caps) {
        0 => "no size fits".to_string(),
        n => format!("the largest that fits is {n}"),
    };
    Err(Error::bad_param(
        "size",
        format!(
            "{} elements of {} for {} do not fit this adapter ({e}); {largest}",
            params.n, params.precision, params.kernel
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precision::Precision;

    fn params(n: u64, alloc: Alloc, buffer_kib: u64) -> Params {
        Params {
            precision: Precision::F32,
            kernel: KernelName::Triad,
            n,
            wg: 256,
            epi: 1,
            load: Load::Vector,
            alloc,
            pad: 0,
            buffer_kib,
        }
    }

    fn caps(memory: u64) -> Capabilities {
        Capabilities {
            max_storage_binding: 1 << 27,
            max_buffer: 1 << 28,
            device_memory: Some(memory),
            ..Capabilities::default()
        }
    }

    #[test]
    fn arrays_past_a_binding_split_into_blocks_of_vectors() {
        let c = caps(8 << 30);
        // 2^25 f32 elements: 128 MiB, one binding.
        let one = fits(&params(1 << 25, Alloc::Separate, 0), &c).expect("fits");
        assert_eq!(one.count(), 1);
        // 2^28 + 4: nine blocks, each a multiple of 4 within 2^25.
        let b = fits(&params((1 << 28) + 4, Alloc::Separate, 0), &c).expect("fits");
        assert_eq!(b.count(), 9);
        assert!(b.per <= 1 << 25 && b.per.is_multiple_of(4));
        // Packed, three arrays share a buffer of 256 MiB: blocks of at most
        // a third of it.
        let b = fits(&params(1 << 25, Alloc::Packed, 0), &c).expect("fits");
        assert_eq!(b.count(), 2);
        // buffer-kib forces the split of a small case.
        let b = fits(&params(1 << 16, Alloc::Separate, 64), &c).expect("fits");
        assert_eq!((b.count(), b.per), (4, 1 << 14));
    }

    #[test]
    fn arrays_past_memory_are_refused_naming_the_largest_size() {
        // 90% of 1 GiB holds three arrays of about 80 million f32 elements.
        let c = caps(1 << 30);
        let p = params(1 << 28, Alloc::Separate, 0);
        let Err(Error::BadParameter { name, reason }) = fits(&p, &c) else {
            panic!("fits");
        };
        assert_eq!(name, "size");
        let n = largest(&p, &c);
        assert!(
            reason.contains(&format!("the largest that fits is {n}")),
            "{reason}"
        );
        assert!(fits(&params(n, Alloc::Separate, 0), &c).is_ok());
        assert!(fits(&params(n + 4, Alloc::Separate, 0), &c).is_err());
        assert!(n.is_multiple_of(4));
    }

    #[test]
    fn host_copies_past_host_memory_are_refused_naming_the_largest_size() {
        // A device of 8 GiB, a host with 1 GiB available: 90% of it holds
        // the host's 40 bytes an f32 element (three f64 arrays, their
        // bytes, the read-back array), about 24 million elements.
        let c = Capabilities {
            host_memory: Some(1 << 30),
            ..caps(8 << 30)
        };
        let p = params(1 << 28, Alloc::Separate, 0);
        let Err(Error::BadParameter { reason, .. }) = fits(&p, &c) else {
            panic!("fits");
        };
        assert!(reason.contains("host memory"), "{reason}");
        let n = largest(&p, &c);
        assert_eq!(n, (1u64 << 30) / 10 * 9 / 40 / 4 * 4);
        assert!(fits(&params(n, Alloc::Separate, 0), &c).is_ok());
        assert!(fits(&params(n + 4, Alloc::Separate, 0), &c).is_err());
        // Without a device figure (Metal, DX12, GL), the host's bounds the
        // device's too.
        let metal = Capabilities {
            device_memory: None,
            max_storage_buffers: 31,
            ..c
        };
        assert_eq!(largest(&p, &metal), n);
    }
}
