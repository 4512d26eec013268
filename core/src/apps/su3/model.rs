//! su3's work and traffic model: the FLOPs and device-memory bytes of one
//! run, and the bytes its loads and stores request (its L1 traffic).

use super::{FLOPS_PER_SITE, Mapping, SITE_REALS, Strides};
use crate::app::Model;
use crate::precision::Precision;

impl Mapping {
    /// Reals one site's invocations load and store, every access counted
    /// as `shaders/su3` issues it: each output element is a row of A
    /// times a column of B (3 + 3 complex loads); a row's three outputs
    /// share its A row (15 complex a row, 180 a site), the element and
    /// pair mappings load the row for each output (7 complex an output).
    fn issued_reals_per_site(self) -> u64 {
        match self {
            Mapping::Element | Mapping::Pair => 36 * 7 * 2,
            Mapping::Site | Mapping::Link | Mapping::Row | Mapping::RowVector => 12 * 15 * 2,
        }
    }
}

/// Work and traffic of one run: A read and C written once per site with
/// the layout's full site size (padding included), B once.
pub(super) fn model(sites: u64, layout: &Strides, p: Precision) -> Model {
    Model {
        flops: FLOPS_PER_SITE * sites as f64,
        bytes: (2 * sites * layout.site_bytes(p) + SITE_REALS as u64 * p.real_bytes()) as f64,
    }
}

/// Bytes one run's loads and stores request under `mapping`, every
/// access counted (the L1 level's traffic; padding is never touched).
pub(super) fn issued_bytes(mapping: Mapping, sites: u64, p: Precision) -> f64 {
    (sites * mapping.issued_reals_per_site() * p.real_bytes()) as f64
}
