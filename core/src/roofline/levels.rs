//! Memory levels and how the `cache` app's working-set sweep is cut into
//! them: runs of neighbouring working sets at about the same bandwidth
//! (plateaus) are one level each, named from the smallest set up (L1, L2,
//! L3), except those at the device-memory ceiling, which are DRAM.

use serde::{Deserialize, Serialize};

/// A level of the memory hierarchy a bandwidth ceiling belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryLevel {
    /// Workgroup (shared, LDS) memory.
    Shared,
    /// The first cache level the sweep finds.
    L1,
    /// The second.
    L2,
    /// The third.
    L3,
    /// Device memory (main memory on a CPU).
    Dram,
}

impl MemoryLevel {
    /// Cache levels in the order a growing working set meets them.
    pub const CACHES: [MemoryLevel; 3] = [MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::L3];

    /// Its name in tables and plots.
    pub fn name(self) -> &'static str {
        match self {
            MemoryLevel::Shared => "shared",
            MemoryLevel::L1 => "L1",
            MemoryLevel::L2 => "L2",
            MemoryLevel::L3 => "L3",
            MemoryLevel::Dram => "DRAM",
        }
    }
}

impl std::fmt::Display for MemoryLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Neighbouring working sets within this factor of a plateau's first
/// bandwidth belong to it.
const PLATEAU_SPREAD: f64 = 1.2;

/// A plateau within this factor of the device-memory ceiling is device memory.
const DRAM_SPREAD: f64 = 1.3;

/// One level found in a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Plateau {
    /// The level.
    pub level: MemoryLevel,
    /// Smallest and largest working set on it, bytes.
    pub range: [f64; 2],
    /// Median bandwidth over it, GB/s.
    pub gbps: f64,
}

/// Cuts `sweep` (working set in bytes, GB/s; any order, one point a set)
/// into plateaus of at least two sets, and names them against `dram`, the
/// device-memory ceiling in GB/s: plateaus within [`DRAM_SPREAD`] of it
/// are one DRAM level, the faster ones L1, L2, L3 from the smallest set
/// (beyond three, the slowest are left out: no device here has more).
/// Sets between plateaus (the steps) belong to none.
pub fn plateaus(sweep: &[(f64, f64)], dram: f64) -> Vec<Plateau> {
    let mut points: Vec<(f64, f64)> = sweep
        .iter()
        .copied()
        .filter(|&(ws, g)| ws > 0.0 && g > 0.0)
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    for p in points {
        match runs.last_mut() {
            Some(run) if within(run[0].1, p.1, PLATEAU_SPREAD) => run.push(p),
            _ => runs.push(vec![p]),
        }
    }
    let mut caches = MemoryLevel::CACHES.iter();
    let mut found: Vec<Plateau> = Vec::new();
    for run in runs.into_iter().filter(|r| r.len() >= 2) {
        let gbps = median(run.iter().map(|p| p.1).collect());
        let range = [run[0].0, run[run.len() - 1].0];
        if dram > 0.0 && gbps <= dram * DRAM_SPREAD {
            match found.last_mut() {
                Some(last) if last.level == MemoryLevel::Dram => {
                    last.range[1] = range[1];
                }
                _ => found.push(Plateau {
                    level: MemoryLevel::Dram,
                    range,
                    gbps,
                }),
            }
        } else if let Some(&level) = caches.next() {
            found.push(Plateau { level, range, gbps });
        }
    }
    found
}

fn within(a: f64, b: f64, factor: f64) -> bool {
    a.max(b) <= a.min(b) * factor
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: f64 = 1024.0;
    const M: f64 = K * K;

    /// The shape of an H200's sweep: L1, a step, L2, a step, device memory.
    fn gpu_like() -> Vec<(f64, f64)> {
        vec![
            (16.0 * K, 30000.0),
            (32.0 * K, 31000.0),
            (64.0 * K, 29500.0),
            (256.0 * K, 18000.0),
            (1.0 * M, 11000.0),
            (4.0 * M, 10500.0),
            (16.0 * M, 10000.0),
            (64.0 * M, 6000.0),
            (256.0 * M, 4100.0),
            (1024.0 * M, 4000.0),
        ]
    }

    #[test]
    fn finds_and_names_each_level() {
        let p = plateaus(&gpu_like(), 4200.0);
        let levels: Vec<MemoryLevel> = p.iter().map(|p| p.level).collect();
        assert_eq!(
            levels,
            [MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::Dram]
        );
        assert_eq!(p[0].range, [16.0 * K, 64.0 * K]);
        assert_eq!(p[0].gbps, 30000.0);
        assert_eq!(p[1].range, [1.0 * M, 16.0 * M]);
        assert_eq!(p[2].range, [256.0 * M, 1024.0 * M]);
    }

    #[test]
    fn a_lone_step_is_no_level_and_order_does_not_matter() {
        let mut sweep = gpu_like();
        sweep.reverse();
        let p = plateaus(&sweep, 4200.0);
        assert!(p.iter().all(|p| p.range[0] != 256.0 * K));
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn a_sweep_that_never_leaves_the_caches_has_no_dram_level() {
        let sweep: Vec<(f64, f64)> = gpu_like().into_iter().take(6).collect();
        let p = plateaus(&sweep, 4200.0);
        assert!(p.iter().all(|p| p.level != MemoryLevel::Dram));
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn flat_sweep_at_the_memory_ceiling_is_one_dram_level() {
        let sweep = [(16.0 * K, 20.0), (1.0 * M, 21.0), (64.0 * M, 19.0)];
        let p = plateaus(&sweep, 20.0);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].level, MemoryLevel::Dram);
        assert!(plateaus(&[], 20.0).is_empty());
    }
}
