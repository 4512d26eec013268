//! Whether a case fits the adapter, checked when its cases are made, before
//! anything is drawn or allocated: how each field splits over buffers (by
//! groups of components, where one binding cannot hold it), the bindings a
//! kernel then needs, and the case's fields against the device's memory,
//! their host copies against the host's.

use super::codegen::{Build, Field, MODULES};
use super::gpu::Plan;
use super::{KernelName, Operator, Params};
use crate::apps::blocks::{self, Footprint};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Capabilities};

/// The most bytes one buffer of a field may hold on `caps`: the storage
/// binding and buffer limits, or `params`' smaller `buffer-kib`.
pub(super) fn bind_bytes(params: &Params, caps: &Capabilities) -> u64 {
    blocks::bind_bytes(params.buffer_kib, caps)
}

/// Fields a case holds at once (inputs, outputs and intermediates), as
/// (spinor fields, half-spinor fields, link fields).
fn fields_held(params: &Params) -> (u64, u64, u64) {
    // A split Dslash: psi, the four half-spinor intermediates, acc, out.
    let split_dslash = (3, 4, 1);
    match params.kernel {
        KernelName::Extract => (1, 1, 0),
        KernelName::ExtractMul => (1, 1, 1),
        KernelName::Shift => (0, 4, 0),
        KernelName::InsertMul => (1, 1, 1),
        KernelName::Insert => (2, 1, 0),
        KernelName::Axpy => (3, 0, 0),
        KernelName::Dot => (2, 0, 0),
        KernelName::Dslash => split_dslash,
        KernelName::DslashFused => (2, 0, 1),
        // b, x, p, M p, A p and r twice; the split operator adds its
        // intermediates, acc and D src.
        KernelName::Cg => match params.operator {
            Operator::Fused => (7, 0, 1),
            Operator::Split => (9, 4, 1),
        },
    }
}

/// Checks `build` (of `params`) against `caps`: every field splits into
/// groups a binding holds, no kernel needs more storage bindings than a
/// stage may have, and the fields fit the device's memory and the host's.
pub(super) fn check(build: &Build, params: &Params, caps: &Capabilities) -> Result<()> {
    let p = params.precision;
    for field in [Field::Spinor, Field::Half, Field::Links] {
        let layout = build.layout.with_ncomp(build.stored(field).ncomp());
        let g = build.groups(field).expect("a field");
        if g.bytes(p).iter().any(|&b| b > build.bind_bytes) {
            let w = u64::from(layout.width);
            return Err(Error::OverLimit {
                limit: blocks::bind_limit(params.buffer_kib),
                needed: layout.with_ncomp(layout.width).reals() / w * w * p.real_bytes(),
                max: build.bind_bytes,
            });
        }
    }
    let bindings = MODULES
        .iter()
        .map(|m| {
            m.binds
                .iter()
                .filter(|b| b.2 != Bind::Uniform)
                .map(|b| build.count(b.1))
                .sum::<u32>()
        })
        .max()
        .unwrap_or(0);
    if bindings > caps.max_storage_buffers {
        return Err(Error::OverLimit {
            limit: "max_storage_buffers_per_shader_stage",
            needed: u64::from(bindings),
            max: u64::from(caps.max_storage_buffers),
        });
    }
    let bytes = |f: Field| {
        build
            .groups(f)
            .map_or(0, |g| g.bytes(p).iter().sum::<u64>())
    };
    let (s, h, l) = fields_held(params);
    let device = s * bytes(Field::Spinor) + h * bytes(Field::Half) + l * bytes(Field::Links);
    blocks::check_footprint(footprint(device, p.real_bytes()), caps)
}

/// What a case whose fields take `device` bytes of reals of `rb` bytes
/// holds: on the host, an f64 copy of every field (the inputs drawn and
/// the references computed from them) and its bytes once more (the
/// upload or the read-back).
fn footprint(device: u64, rb: u64) -> Footprint {
    Footprint {
        device,
        host: device / rb * 8 + device,
    }
}

/// Checks before any work that `params`' lattice fits the adapter; the
/// error names the largest L that does at the same T.
pub(super) fn fits(params: &Params, caps: &Capabilities) -> Result<()> {
    let at = |l: u64| {
        let sized = Params {
            l,
            sites: l.pow(3) * params.t,
            ..*params
        };
        check(&Plan::build(&sized, caps), &sized, caps)
    };
    let Err(e) = at(params.l) else {
        return Ok(());
    };
    if !matches!(e, Error::OverLimit { .. }) {
        return Err(e);
    }
    let (mut lo, mut hi) = (1, params.l);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if at(mid).is_ok() { lo = mid } else { hi = mid }
    }
    let largest = match lo {
        1 => "no L fits".to_string(),
        l => format!("the largest that fits is L = {l}"),
    };
    Err(Error::bad_param(
        "size",
        format!(
            "{}^3 x {} in {} for {} does not fit this adapter ({e}); at T = {}, {largest}",
            params.l, params.t, params.precision, params.kernel, params.t
        ),
    ))
}
