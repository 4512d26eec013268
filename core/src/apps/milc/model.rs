//! milc's work model: the reals each kernel moves and the FLOPs it
//! computes per site, and a case's totals over its dispatches.

use super::KernelName;
use super::links::Reconstruct;
use super::wilson::{HALF, SPINOR};
use crate::app::Model;
use crate::params::Choice;
use crate::precision::Precision;

/// Reals moved and FLOPs per site of one kernel (an entry point), as the
/// kernels move and compute them: a projection is 6 complex additions per
/// direction (the gamma entries are powers of i), a half-spinor times a
/// link 2 x 66, a reconstruction and accumulation 12 complex additions; a
/// multiply-add is one fma (2 FLOPs) per real, and so is a norm's square.
/// Links are stored and read as `r` holds them, and rebuilding a link's
/// third row adds its FLOPs to each link read. The per-workgroup partials
/// of a norm (one real per workgroup) are left out, as is every other
/// few-real access.
pub fn per_site(entry: &str, r: Reconstruct) -> (u64, u64) {
    let (s, h, u) = (SPINOR as u64, HALF as u64, r.reals_per_site());
    let link = r.flops_per_link();
    // D's FLOPs, split or fused: 8 hops of projection, link product, rebuild.
    let hops = 8 * (12 + 2 * 66 + 24 + link);
    match entry {
        "extract" => (s + h, 4 * 12),
        "extract_mul" => (s + u + h, 4 * (12 + 2 * 66 + link)),
        "shift" => (2 * h + 2 * h, 0),
        "insert_mul" => (h + u + s, 4 * (2 * 66 + 24 + link)),
        "insert" => (h + 2 * s, 4 * 24),
        // The fewest bytes: every spinor and link read once, one spinor
        // out. The 8 neighbours' spinors and the backward links are other
        // sites' data, re-read from cache (counting them put the H200 at
        // 7.8 TB/s, past its HBM); the split's FLOPs.
        "dslash_fused" => (2 * s + u, hops),
        // M = 1 - kappa D in one pass: dslash_fused's reals (the
        // site's own spinor is one of the spinors read once), plus the
        // multiply-add; `_norm` also squares and adds the 24 reals it writes.
        "m_fused" => (2 * s + u, hops + 2 * s),
        "m_fused_norm" => (2 * s + u, hops + 4 * s),
        // x, y in, out out: 72 reals.
        "axpy" => (3 * s, 2 * s),
        "axpy_norm" => (3 * s, 4 * s),
        // x, p, r in, x, p out: 120 reals, two multiply-adds per real.
        "update_xp" => (5 * s, 4 * s),
        "dot" => (2 * s, 2 * s),
        "zero" => (s, 0),
        _ => (0, 0),
    }
}

/// Work and traffic of one kernel over the lattice.
fn site_model(entry: &str, r: Reconstruct, sites: u64, p: Precision) -> Model {
    let (reals, flops) = per_site(entry, r);
    Model {
        flops: (flops * sites) as f64,
        bytes: (reals * sites * p.real_bytes()) as f64,
    }
}

/// Work and traffic of one run of `kernel`: its dispatches' per-site
/// figures (a Dslash is its five split kernels). A solve of `n` iterations
/// (see `cg.rs`) applies M 1 + 2n times: with the `fused` operator as
/// `m_fused_norm` (the start's `M^dagger b` and each `M p`) and `m_fused`
/// (each `M^dagger M p`), 432 reals a site per iteration; with `split` as
/// the five split kernels and a multiply-add (`axpy_norm` where a norm is
/// reduced), 1632 (links whole; as two rows 48 and 96 fewer, 24 for each
/// kernel that reads links). Per iteration both add `axpy_norm` (`r'`) and
/// `update_xp`, and the start a copy (`axpy`) and a zero fill. The
/// second pass of a reduction and CG's scalar updates touch a few reals
/// and are left out.
pub(super) fn case_model(
    kernel: KernelName,
    fused: bool,
    r: Reconstruct,
    sites: u64,
    iterations: u64,
    p: Precision,
) -> Model {
    case_total(kernel, fused, iterations, |entry| {
        site_model(entry, r, sites, p)
    })
}

/// Bytes one run of `kernel` requests, every load and store counted (what
/// the nearest cache serves): as [`case_model`]'s bytes, but the one-pass
/// operators read each of the 8 neighbours' spinors and links, not each
/// datum once ([`issued_per_site`]).
pub(super) fn case_issued(
    kernel: KernelName,
    fused: bool,
    r: Reconstruct,
    sites: u64,
    iterations: u64,
    p: Precision,
) -> f64 {
    let site = |entry: &str| Model {
        flops: 0.0,
        bytes: (issued_per_site(entry, r) * sites * p.real_bytes()) as f64,
    };
    case_total(kernel, fused, iterations, site).bytes
}

/// Reals per site the loads and stores of `entry` request: [`per_site`]'s,
/// except where a kernel reads other sites' data, the one-pass operators:
/// 8 neighbours' spinors (and, in `M`, the site's own), 8 links (its 4 and
/// the 4 backward ones), one spinor out.
pub fn issued_per_site(entry: &str, r: Reconstruct) -> u64 {
    let (s, u) = (SPINOR as u64, r.reals_per_site());
    match entry {
        "dslash_fused" => 8 * s + 2 * u + s,
        "m_fused" | "m_fused_norm" => 9 * s + 2 * u + s,
        other => per_site(other, r).0,
    }
}

/// A run's totals over its dispatches, `site` giving one dispatch of an
/// entry point: a Dslash is its five split kernels, and a solve of `n`
/// iterations (see `cg.rs`) applies M 1 + 2n times.
fn case_total(
    kernel: KernelName,
    fused: bool,
    iterations: u64,
    site: impl Fn(&str) -> Model,
) -> Model {
    let times = |entry: &str, n: u64| {
        let m = site(entry);
        Model {
            flops: m.flops * n as f64,
            bytes: m.bytes * n as f64,
        }
    };
    let split = |n: u64| {
        ["extract", "extract_mul", "shift", "insert_mul", "insert"]
            .iter()
            .map(|e| times(e, n))
            .fold(Model::default(), add_models)
    };
    let n = iterations;
    let apply_m = match fused {
        true => vec![times("m_fused_norm", 1 + n), times("m_fused", n)],
        false => vec![
            split(1 + 2 * n),
            times("axpy_norm", 1 + n),
            times("axpy", n),
        ],
    };
    match kernel {
        KernelName::Dslash => split(1),
        KernelName::Cg => apply_m
            .into_iter()
            .chain([
                times("axpy_norm", n),
                times("update_xp", n),
                times("axpy", 1),
                times("zero", 1),
            ])
            .fold(Model::default(), add_models),
        k => times(&k.name().replace('-', "_"), 1),
    }
}

fn add_models(a: Model, b: Model) -> Model {
    Model {
        flops: a.flops + b.flops,
        bytes: a.bytes + b.bytes,
    }
}
