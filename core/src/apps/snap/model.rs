//! The work and traffic model of the snap kernels (FLOPs and bytes per
//! run), from the index tables.

use super::KernelName;
use super::sna::{Config, Tables};
use crate::app::Model;
use crate::precision::Precision;

/// Work of one run of `kernel` from the tables: complex multiplies and adds
/// as the kernels do them (6 and 2 flops, 2 for a real scale). fused moves
/// compute_dU's work into compute_dE and its traffic to U and Y alone; the
/// staircase rows its chain walks repeat are not counted (useful work, the
/// same count as the other variants and TestSNAP's records).
pub(super) fn model(
    kernel: KernelName,
    t: &Tables,
    c: &Config,
    steps: u64,
    p: Precision,
    fused: bool,
) -> Model {
    let (ny, pairs, atoms) = (t.ny() as f64, c.pairs() as f64, c.nlocal as f64);
    let nu = t.nu() as f64;
    let rb = p.real_bytes() as f64;
    let y_flops: f64 = t
        .terms
        .iter()
        .map(|x| x.nb as f64 * (x.na as f64 * 10.0 + 4.0) + 4.0)
        .sum();
    let du = Model {
        flops: pairs * 3.0 * ny * 44.0,
        bytes: (pairs * 8.0 + 2.0 * pairs * ny + 6.0 * pairs * ny) * rb,
    };
    let de = Model {
        flops: pairs * 3.0 * ny * 6.0,
        bytes: (6.0 * pairs * ny + 2.0 * atoms * ny + 3.0 * pairs) * rb,
    };
    let (du, de) = if fused {
        let bytes = (pairs * 8.0 + 2.0 * pairs * ny + 2.0 * atoms * ny + 3.0 * pairs) * rb;
        let flops = du.flops + de.flops;
        (
            Model {
                flops: 0.0,
                bytes: 0.0,
            },
            Model { flops, bytes },
        )
    } else {
        (du, de)
    };
    let stages = [
        Model {
            flops: pairs * ny * 18.0 + atoms * ny * c.nnbr as f64 * 4.0,
            bytes: (pairs * 8.0 + 2.0 * pairs * ny + 2.0 * atoms * nu) * rb,
        },
        Model {
            flops: atoms * y_flops,
            bytes: (2.0 * atoms * nu + 2.0 * atoms * ny) * rb,
        },
        du,
        de,
    ];
    match kernel {
        KernelName::Force => Model {
            flops: steps as f64 * stages.iter().map(|s| s.flops).sum::<f64>(),
            bytes: steps as f64 * (stages.iter().map(|s| s.bytes).sum::<f64>() + 6.0 * pairs * rb),
        },
        k => stages[k.stage()],
    }
}
