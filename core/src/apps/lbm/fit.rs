//! Whether a lattice fits the adapter, checked before anything is drawn or
//! allocated: how its fields split over buffers (by groups of velocities,
//! where one binding cannot hold a field), the bindings a kernel then
//! needs, and both fields against the device's memory, the host's copies
//! against the host's.

use super::d3q19::NVEL;
use super::{Check, Params};
use crate::apps::blocks::{self, Footprint};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::layout::{Groups, Layout};

/// How a field of `sites` sites of `params` splits over buffers on an
/// adapter of `caps`: one buffer where one binding holds it, else one a
/// group of velocities, as few as the binding limit allows. Errs naming
/// the limit when none fits: one velocity over a binding, more bindings
/// than a kernel may have, or [`footprint`] over the device's or the
/// host's memory.
pub(super) fn fields(params: &Params, sites: u64, caps: &Capabilities) -> Result<Groups> {
    let p = params.precision;
    let layout = Layout::new(params.layout, sites as u32, NVEL as u32);
    let binding = caps.max_storage_binding.min(caps.max_buffer);
    let groups = Groups::fitting(layout, p.real_bytes(), binding).ok_or(Error::OverLimit {
        limit: "max_storage_buffer_binding_size",
        needed: layout.with_ncomp(1).reals() * p.real_bytes(),
        max: binding,
    })?;
    // Both fields' buffers and the coefficients.
    let bindings = 2 * groups.count() + 1;
    if bindings > caps.max_storage_buffers {
        return Err(Error::OverLimit {
            limit: "max_storage_buffers_per_shader_stage",
            needed: u64::from(bindings),
            max: u64::from(caps.max_storage_buffers),
        });
    }
    blocks::check_footprint(footprint(params, sites), caps)?;
    Ok(groups)
}

/// What a lattice of `sites` sites of `params` holds. The device: both
/// fields. The host: the start in f64 (and, checked whole, the first
/// step's collision and propagation, the reference and the read-back
/// field in f64), and the field's bytes twice (the upload and the
/// read-back).
fn footprint(params: &Params, sites: u64) -> Footprint {
    let reals = sites * NVEL as u64;
    let rb = params.precision.real_bytes();
    let f64_fields = match params.check {
        Check::Sample => 1,
        Check::Auto | Check::Whole => 5,
    };
    Footprint {
        device: 2 * reals * rb,
        host: reals * (8 * f64_fields + 2 * rb),
    }
}

/// The largest L whose sites a u32 indexes (sites and each buffer's
/// elements are u32 in the shaders).
const MAX_L: u64 = 1625;

/// Checks before any work that `params`' lattice fits the adapter; the
/// error names the largest box that does.
pub(super) fn fits(params: &Params, caps: &Capabilities) -> Result<()> {
    let e = match params.l <= MAX_L {
        true => match fields(params, params.sites, caps) {
            Ok(_) => return Ok(()),
            Err(e) => e.to_string(),
        },
        false => format!("its sites pass a u32 index, L <= {MAX_L}"),
    };
    let lo = blocks::largest_fitting(params.l.min(MAX_L), |l| {
        fields(params, l.pow(3), caps).is_ok()
    });
    Err(Error::bad_param(
        "size",
        format!(
            "L = {} in {} does not fit this adapter ({e}); the largest box that fits is L = {lo}",
            params.l, params.precision
        ),
    ))
}
