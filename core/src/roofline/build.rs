//! A roofline from result records: device memory from `stream`, the
//! cache levels from the `cache` sweeps, workgroup memory from `cache
//! --kernel shared`, compute from `peak --kernel fma`, and every other
//! validated kernel as a point rated against its level.

use std::collections::BTreeMap;

use super::levels::{MemoryLevel, plateaus};
use super::{Ceiling, Point, Roofline, rating};
use crate::gpu::PlatformInfo;
use crate::precision::Precision;
use crate::record::ResultRecord;

const BANDWIDTH_APP: &str = "stream";
const LEVELS_APP: &str = "cache";
const READ_KERNEL: &str = "read";
const SHARED_KERNEL: &str = "shared";
const COMPUTE_APP: &str = "peak";
const COMPUTE_KERNEL: &str = "fma";

impl Roofline {
    /// Builds the roofline of the validated records of the first record's
    /// platform (records of other platforms are left out); `None`
    /// when they hold no device-memory bandwidth (`stream`) measurement.
    pub fn from_records(records: &[ResultRecord]) -> Option<Roofline> {
        let platform = records
            .iter()
            .find(|r| r.validation.usable())?
            .platform
            .clone();
        let ok: Vec<&ResultRecord> = records
            .iter()
            .filter(|r| {
                r.validation.usable()
                    && r.platform.name == platform.name
                    && r.platform.backend == platform.backend
            })
            .collect();
        let dram = ok
            .iter()
            .filter(|r| r.case.app == BANDWIDTH_APP)
            .max_by(|a, b| a.gbps.total_cmp(&b.gbps))?;
        let mut dram_ceiling = Ceiling::new(
            format!("stream {} {}", dram.case.kernel, dram.case.precision),
            dram.gbps,
            None,
        );
        dram_ceiling.level = Some(MemoryLevel::Dram);
        let mut bandwidth = vec![dram_ceiling];
        let sweep = read_sweep(&ok);
        bandwidth.extend(level_ceilings(
            &ok,
            &sweep,
            dram.gbps,
            cache_levels(&platform),
        ));
        let mut roof = Roofline {
            platform,
            bandwidth,
            compute: compute_ceilings(&ok),
            points: Vec::new(),
            sweep,
        };
        roof.points = ok
            .iter()
            .filter(|r| r.gflops > 0.0 && r.arithmetic_intensity > 0.0)
            .filter(|r| !(r.case.app == COMPUTE_APP && r.case.kernel == COMPUTE_KERNEL))
            .map(|r| {
                let rated = rating::rate(&roof, r);
                Point {
                    app: r.case.app.clone(),
                    kernel: r.case.kernel.clone(),
                    variant: r.case.variant.clone(),
                    precision: r.case.precision,
                    ai: r.arithmetic_intensity,
                    issued_ai: r
                        .issued_bytes
                        .filter(|&b| b > 0.0)
                        .map(|b| r.model.flops / b),
                    gflops: r.gflops,
                    gbps: r.gbps,
                    fraction_of_roof: rated.as_ref().map(|x| x.fraction),
                    level: rated.map(|x| x.level),
                }
            })
            .collect();
        Some(roof)
    }
}

/// The read sweep's best rate of each working set (the best workgroup
/// size), by set. Records from before each workgroup read its own window
/// (no working set of their own) measured each invocation's footprint,
/// not the set's: they are left out.
fn read_sweep(ok: &[&ResultRecord]) -> Vec<[f64; 2]> {
    let mut sweep: BTreeMap<u64, f64> = BTreeMap::new();
    for r in ok.iter().filter(|r| {
        r.case.app == LEVELS_APP && r.case.kernel == READ_KERNEL && r.working_set_bytes.is_some()
    }) {
        let best = sweep.entry(r.working_set() as u64).or_default();
        *best = best.max(r.gbps);
    }
    sweep.into_iter().map(|(ws, g)| [ws as f64, g]).collect()
}

/// The cache levels `sweep` shows, against device memory's `dram` GB/s,
/// and workgroup memory's ceiling. The copy sweep is no ceiling: where the
/// set is small every workgroup writes the same lines, which measures
/// contended writes (a fifth of the read rate at 16 KiB on an H200), not
/// the level.
fn level_ceilings(
    ok: &[&ResultRecord],
    sweep: &[[f64; 2]],
    dram: f64,
    caches: usize,
) -> Vec<Ceiling> {
    let shared = ok
        .iter()
        .filter(|r| r.case.app == LEVELS_APP && r.case.kernel == SHARED_KERNEL)
        .max_by(|a, b| a.gbps.total_cmp(&b.gbps));
    let mut ceilings = Vec::new();
    if let Some(s) = shared {
        let mut c = Ceiling::new("cache shared (workgroup memory)", s.gbps, None);
        c.level = Some(MemoryLevel::Shared);
        ceilings.push(c);
    }
    let points: Vec<(f64, f64)> = sweep.iter().map(|&[ws, g]| (ws, g)).collect();
    for p in plateaus(&points, dram, caches)
        .into_iter()
        .filter(|p| p.level != MemoryLevel::Dram)
    {
        let mut c = Ceiling::new(format!("cache read {}", p.level), p.gbps, None);
        c.level = Some(p.level);
        c.working_set = Some(p.range);
        ceilings.push(c);
    }
    ceilings.sort_by(|a, b| a.level.cmp(&b.level).then(b.value.total_cmp(&a.value)));
    ceilings
}

/// The ceilings the native baselines among `records` measure on the
/// roofline's device, to set beside Skylight's: device memory from the
/// best native `stream` run (BabelStream), and the levels each native
/// cache sweep (gpu-benches' `gpu-cache`, `gpu-l2-cache`) finds, cut as
/// Skylight's sweep is, against that device-memory ceiling (Skylight's
/// where no native one is there).
pub fn native_ceilings(roof: &Roofline, records: &[ResultRecord]) -> Vec<Ceiling> {
    let native: Vec<&ResultRecord> = records
        .iter()
        .filter(|r| {
            r.native.is_some() && r.validation.usable() && r.platform.name == roof.platform.name
        })
        .collect();
    let mut out = Vec::new();
    let best_stream = native
        .iter()
        .filter(|r| r.case.app == BANDWIDTH_APP)
        .max_by(|a, b| a.gbps.total_cmp(&b.gbps));
    let dram = best_stream.map_or(roof.bandwidth_peak(), |r| r.gbps);
    if let Some(r) = best_stream {
        let code = r.native.as_ref().map_or("", |n| n.code.as_str());
        let mut c = Ceiling::new(
            format!("{code} {} {}", r.case.kernel, r.case.precision),
            r.gbps,
            None,
        );
        c.level = Some(MemoryLevel::Dram);
        out.push(c);
    }
    let mut sweeps: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in native.iter().filter(|r| r.case.app == LEVELS_APP) {
        let config = r
            .case
            .params
            .get("native-config")
            .cloned()
            .unwrap_or_default();
        sweeps
            .entry(config)
            .or_default()
            .push((r.working_set(), r.gbps));
    }
    for (config, sweep) in sweeps {
        for p in plateaus(&sweep, dram, cache_levels(&roof.platform)) {
            // A sweep that starts past L1 (gpu-l2-cache) finds L2 first:
            // each cache part takes the level Skylight's sweep found for
            // the sets in its middle.
            let level = match p.level {
                MemoryLevel::Dram => MemoryLevel::Dram,
                _ => roof.level_of((p.range[0] * p.range[1]).sqrt()),
            };
            let mut c = Ceiling::new(format!("{config} {level}"), p.gbps, None);
            c.level = Some(level);
            c.working_set = Some(p.range);
            out.push(c);
        }
    }
    out
}

/// How many cache levels a sweep on `platform` can find: three on a CPU
/// (the Vulkan or OpenGL driver's device type), two on a GPU.
fn cache_levels(platform: &PlatformInfo) -> usize {
    if platform.device_type == "cpu" { 3 } else { 2 }
}

/// The best `peak` FMA rate of each precision measured.
fn compute_ceilings(ok: &[&ResultRecord]) -> Vec<Ceiling> {
    Precision::ALL
        .into_iter()
        .filter_map(|p| {
            ok.iter()
                .filter(|r| {
                    r.case.app == COMPUTE_APP
                        && r.case.kernel == COMPUTE_KERNEL
                        && r.case.precision == p
                })
                .max_by(|a, b| a.gflops.total_cmp(&b.gflops))
                .map(|r| Ceiling::new(format!("FMA peak {p}"), r.gflops, Some(p)))
        })
        .collect()
}
