//! Memory levels and how the `cache` app's working-set sweep is cut into
//! them: the largest sets at the device-memory ceiling are DRAM, the rest
//! is cut at the steps between levels and each part is a cache level,
//! named from the smallest sets up (L1, L2, L3).

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

/// A sweep is cut where one working set's bandwidth is this factor from
/// the next one's (the steps between levels), never inside a run of
/// smaller changes (the slow slide of a level whose far parts are slower,
/// as the H200's two L2 halves are).
const STEP: f64 = 1.2;

/// Sets this far under the level's ceiling at its large end are the step
/// into the next level, not the level.
const TAIL: f64 = 0.85;

/// A plateau within this factor of the device-memory ceiling is device memory.
const DRAM_SPREAD: f64 = 1.3;

/// One level found in a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Plateau {
    /// The level.
    pub level: MemoryLevel,
    /// Smallest and largest working set on it, bytes.
    pub range: [f64; 2],
    /// What it sustains as it fills: the median over the larger half of
    /// its sets, GB/s.
    pub gbps: f64,
}

/// Cuts `sweep` (working set in bytes, GB/s; any order, one point a set)
/// into levels, against `dram`, the device-memory ceiling in GB/s: the
/// largest sets within [`DRAM_SPREAD`] of it are device memory; the rest
/// is cut at its largest steps while any step passes [`STEP`], and each
/// part of at least two sets is a cache level, named L1, L2, L3 from the
/// smallest sets. A device has at most `caches` levels (two on a GPU:
/// L1 per compute unit, then one L2 whose halves, near and far, can look
/// like two steps; three on a CPU): the parts past the last level's start
/// are that level.
pub fn plateaus(sweep: &[(f64, f64)], dram: f64, caches: usize) -> Vec<Plateau> {
    let points = octaves(sweep);
    let caches_end = points
        .iter()
        .rposition(|p| dram <= 0.0 || p.1 > dram * DRAM_SPREAD)
        .map_or(0, |i| i + 1);
    let (cached, memory) = points.split_at(caches_end);
    // Where each part of two or more sets starts, in `cached`.
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    for part in split_at_steps(cached) {
        if part.len() >= 2 {
            starts.push(at);
        }
        at += part.len();
    }
    starts.truncate(caches.clamp(1, MemoryLevel::CACHES.len()));
    let mut found: Vec<Plateau> = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        // A part ends where the next level starts; the last one runs to
        // device memory, over any lone sets and smaller parts past it.
        let end = match starts.get(k + 1) {
            Some(&next) => split_at_steps(&cached[start..next])[0].len() + start,
            None => cached.len(),
        };
        found.extend(level_of_part(&cached[start..end], MemoryLevel::CACHES[k]));
    }
    if memory.len() >= 2 {
        found.extend(level_of_part(memory, MemoryLevel::Dram));
    }
    found
}

/// One point per octave of working set (the one nearest its power of
/// two), in order, so that a dense sweep (gpu-benches measures every few
/// KiB) has steps of the same size as Skylight's sweep of powers of two.
fn octaves(sweep: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut by_octave: std::collections::BTreeMap<i32, (f64, f64)> = Default::default();
    for &(ws, g) in sweep.iter().filter(|&&(ws, g)| ws > 0.0 && g > 0.0) {
        let k = ws.log2().floor() as i32;
        let entry = by_octave.entry(k).or_insert((ws, g));
        if ws.log2() - f64::from(k) < entry.0.log2() - f64::from(k) {
            *entry = (ws, g);
        }
    }
    by_octave.into_values().collect()
}

/// `points` cut at every step of more than [`STEP`], largest first.
fn split_at_steps(points: &[(f64, f64)]) -> Vec<&[(f64, f64)]> {
    let biggest = (1..points.len())
        .map(|i| (i, ratio(points[i - 1].1, points[i].1)))
        .filter(|&(_, r)| r > STEP)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    match biggest {
        Some((i, _)) => {
            let (lo, hi) = points.split_at(i);
            let mut parts = split_at_steps(lo);
            parts.extend(split_at_steps(hi));
            parts
        }
        None if points.is_empty() => Vec::new(),
        None => vec![points],
    }
}

/// The level a part of the sweep is: its ceiling from the larger half of
/// its sets, its range without the tail that falls towards the next level.
fn level_of_part(part: &[(f64, f64)], level: MemoryLevel) -> Option<Plateau> {
    let upper = &part[part.len() / 2..];
    let gbps = median(upper.iter().map(|p| p.1).collect());
    let end = part.iter().rposition(|p| p.1 >= gbps * TAIL)?;
    let kept = &part[..=end];
    (kept.len() >= 2 || level == MemoryLevel::Dram).then(|| Plateau {
        level,
        range: [kept[0].0, kept[kept.len() - 1].0],
        gbps,
    })
}

fn ratio(a: f64, b: f64) -> f64 {
    a.max(b) / a.min(b)
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

    /// The H200's read sweep (GB/s), 2026-11-28.
    fn gpu_like() -> Vec<(f64, f64)> {
        [
            (16.0 * K, 27369.0),
            (32.0 * K, 27280.0),
            (64.0 * K, 27214.0),
            (128.0 * K, 27038.0),
            (256.0 * K, 15294.0),
            (512.0 * K, 16648.0),
            (1.0 * M, 14519.0),
            (2.0 * M, 13263.0),
            (4.0 * M, 11446.0),
            (8.0 * M, 9801.0),
            (16.0 * M, 9258.0),
            (32.0 * M, 8862.0),
            (64.0 * M, 7031.0),
            (128.0 * M, 4707.0),
            (256.0 * M, 4494.0),
            (512.0 * M, 4395.0),
            (1024.0 * M, 4388.0),
        ]
        .to_vec()
    }

    #[test]
    fn finds_and_names_each_level() {
        let p = plateaus(&gpu_like(), 4376.5, 2);
        let levels: Vec<MemoryLevel> = p.iter().map(|p| p.level).collect();
        assert_eq!(
            levels,
            [MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::Dram]
        );
        assert_eq!(p[0].range, [16.0 * K, 128.0 * K]);
        assert_eq!(p[0].gbps, (27214.0 + 27038.0) / 2.0);
        // The L2 slides from 16.6 to 8.9 TB/s over its two halves; the
        // step to 64 MiB (7.0) is the way into device memory.
        assert_eq!(p[1].range, [256.0 * K, 32.0 * M]);
        assert_eq!(p[1].gbps, 9258.0);
        assert_eq!(p[2].range, [128.0 * M, 1024.0 * M]);
    }

    #[test]
    fn a_dense_sweep_is_read_by_octaves() {
        // Every 8 KiB from 8 KiB to 1 MiB: L1 to 160 KiB, a slope, then L2.
        let sweep: Vec<(f64, f64)> = (1..=128)
            .map(|i| {
                let ws = f64::from(i) * 8.0 * K;
                let g = match ws {
                    w if w <= 160.0 * K => 27000.0,
                    w if w < 400.0 * K => 27000.0 - (w - 160.0 * K) / (240.0 * K) * 17000.0,
                    _ => 10000.0,
                };
                (ws, g)
            })
            .collect();
        let p = plateaus(&sweep, 4000.0, 2);
        let levels: Vec<MemoryLevel> = p.iter().map(|p| p.level).collect();
        assert_eq!(levels, [MemoryLevel::L1, MemoryLevel::L2]);
        assert_eq!(p[0].range, [8.0 * K, 128.0 * K]);
        assert_eq!(p[1].gbps, 10000.0);
    }

    #[test]
    fn a_gpu_has_one_level_past_l1() {
        // The same H200 on another run: 256 KiB to 2 MiB near L1's rate,
        // then the far half's slope, all one L2.
        let mut sweep = gpu_like();
        for (p, g) in sweep
            .iter_mut()
            .skip(4)
            .zip([21291.0, 23375.0, 21352.0, 20498.0, 15720.0, 10519.0])
        {
            p.1 = g;
        }
        let p = plateaus(&sweep, 4376.5, 2);
        let levels: Vec<MemoryLevel> = p.iter().map(|p| p.level).collect();
        assert_eq!(
            levels,
            [MemoryLevel::L1, MemoryLevel::L2, MemoryLevel::Dram]
        );
        assert_eq!(p[0].range, [16.0 * K, 128.0 * K]);
        assert_eq!(p[1].range, [256.0 * K, 32.0 * M]);
        // A CPU would see three caches in the same curve.
        assert_eq!(plateaus(&sweep, 4376.5, 3).len(), 4);
    }

    #[test]
    fn order_does_not_matter() {
        let mut sweep = gpu_like();
        sweep.reverse();
        assert_eq!(
            plateaus(&sweep, 4376.5, 2),
            plateaus(&gpu_like(), 4376.5, 2)
        );
    }

    #[test]
    fn a_sweep_that_never_leaves_the_caches_has_no_dram_level() {
        let sweep: Vec<(f64, f64)> = gpu_like().into_iter().take(8).collect();
        let p = plateaus(&sweep, 4376.5, 2);
        assert!(p.iter().all(|p| p.level != MemoryLevel::Dram));
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn flat_sweep_at_the_memory_ceiling_is_one_dram_level() {
        let sweep = [(16.0 * K, 20.0), (1.0 * M, 21.0), (64.0 * M, 19.0)];
        let p = plateaus(&sweep, 20.0, 3);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].level, MemoryLevel::Dram);
        assert!(plateaus(&[], 20.0, 3).is_empty());
    }
}
