//! How lbm's propagating kernels get the values that move along x: the
//! `pull` parameter, what `auto` resolves to, and where the rows form can run.

use super::{Params, codegen};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::scale::Part;

choice! {
    /// How the propagating kernels (propagate, fused, step's propagate)
    /// get the values that move along x.
    pub enum Pull("pull") {
        /// Rows where a workgroup is one x row of one site an invocation,
        /// load elsewhere (resolved per case: records name the form run).
        Auto = "auto",
        /// Each from its upwind site (one element off alignment along x).
        Load = "load",
        /// A workgroup's whole x rows loaded in place, every load aligned,
        /// and shifted along x through workgroup memory.
        Rows = "rows",
    }
}

impl Pull {
    /// The form `auto` takes for case `p`: rows where a workgroup is one x
    /// row (wg = L), one site an invocation, and the rows fit the
    /// workgroup memory, which also fits every box of whole rows a
    /// scale-out rank dispatches; load elsewhere. On the H100 rows made
    /// propagate 2.8% (f32) and 4.1% (f64) faster, fused 0.4% and 0.5%,
    /// and step 1.6% and 2.1% (docs/notebook/benchmarks.md, 2026-11-27 j).
    pub(super) fn resolved(self, p: &Params, caps: &Capabilities) -> Pull {
        if self != Pull::Auto {
            return self;
        }
        let one_row = p.vvl == 1 && u64::from(p.wg) == p.l;
        match one_row && rows_bytes(p) <= u64::from(caps.max_workgroup_storage) {
            true => Pull::Rows,
            false => Pull::Load,
        }
    }

    /// The entry point of the propagating `kernel` (propagate or fused) in
    /// this form.
    pub fn entry(self, kernel: &'static str) -> &'static str {
        match (self, kernel) {
            (Pull::Rows, "propagate") => "propagate_rows",
            (Pull::Rows, "fused") => "fused_rows",
            (_, k) => k,
        }
    }
}

/// Whether the rows form can run `params` over `boxes` of a lattice `nx`
/// sites along x: each workgroup must hold whole x rows of one box (wg a
/// multiple of nx, one site an invocation, sites in storage order) and
/// every box fill whole workgroups; and a row's worth of every velocity
/// that moves along x must fit the workgroup memory.
pub(super) fn check_rows(
    params: &Params,
    nx: u32,
    boxes: &[Part],
    caps: &Capabilities,
) -> Result<()> {
    let wg = params.wg;
    let unfit = |b: &&Part| {
        !b.order.is_storage() || !b.inner.is_multiple_of(nx) || !b.count().is_multiple_of(wg)
    };
    let why = if params.vvl != 1 {
        Some(format!(
            "one site an invocation: vvl must be 1, not {}",
            params.vvl
        ))
    } else if !wg.is_multiple_of(nx) {
        Some(format!(
            "a workgroup of whole x rows: wg must be a multiple of L = {nx}, not {wg}"
        ))
    } else {
        boxes.iter().find(unfit).map(|b| {
            format!(
                "whole workgroups of whole rows: a box of {} sites does not fill workgroups of {wg}",
                b.count()
            )
        })
    };
    if let Some(why) = why {
        return Err(Error::bad_param("pull", format!("rows needs {why}")));
    }
    let needed = rows_bytes(params);
    if needed > u64::from(caps.max_workgroup_storage) {
        return Err(Error::OverLimit {
            limit: "max_compute_workgroup_storage_size",
            needed,
            max: u64::from(caps.max_workgroup_storage),
        });
    }
    Ok(())
}

/// Workgroup bytes of the rows form for `p`: a row's worth of every
/// velocity that moves along x.
fn rows_bytes(p: &Params) -> u64 {
    codegen::rows_workgroup_reals(p.wg) * p.precision.real_bytes()
}
