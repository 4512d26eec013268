//! Helpers shared by the apps: fresh random inputs, size parsing, dispatch shapes.

use rand::{Rng, SeedableRng};

use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::precision::Precision;

/// Random generator seeded afresh from the clock, so every run checks new inputs.
pub fn fresh_rng() -> rand_pcg::Pcg64 {
    let nanos = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x5eed);
    rand_pcg::Pcg64::seed_from_u64(nanos)
}

/// `n` uniform values in `lo..hi`, rounded to what `p` can store so the
/// reference sees exactly the kernel's inputs.
pub fn random_reals(rng: &mut impl Rng, n: usize, lo: f64, hi: f64, p: Precision) -> Vec<f64> {
    // Chunks draw from their own generators (seeded from `rng`) in parallel:
    // full-size inputs are 10^8 numbers per case.
    const CHUNK: usize = 1 << 16;
    let seed: u64 = rng.random();
    let mut v = vec![0.0; n];
    crate::parallel::for_chunks(&mut v, CHUNK, |first, chunk| {
        let mut r = rand_pcg::Pcg64::seed_from_u64(
            seed ^ (first as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        for x in chunk.iter_mut() {
            *x = p.round(r.random_range(lo..hi));
        }
    });
    v
}

/// Rounds `values` to the nearest numbers `p` stores.
pub fn quantize(p: Precision, values: &[f64]) -> Vec<f64> {
    crate::parallel::par_map(values.len(), |i| p.round(values[i]))
}

/// Parses a size parameter: a preset name from `presets` or a whole number.
pub fn parse_size(name: &str, text: &str, presets: &[(&str, u64)]) -> Result<u64> {
    if let Some((_, v)) = presets.iter().find(|(k, _)| *k == text) {
        return Ok(*v);
    }
    let t = text.to_ascii_lowercase();
    let (digits, mul) = if let Some(d) = t.strip_suffix('k') {
        (d, 1u64 << 10)
    } else if let Some(d) = t.strip_suffix('m') {
        (d, 1 << 20)
    } else if let Some(d) = t.strip_suffix('g') {
        (d, 1 << 30)
    } else if let Some(e) = t.strip_prefix("2^") {
        let e: u32 = e
            .parse()
            .map_err(|_| Error::bad_param(name, format!("`{text}` is not a size")))?;
        return 1u64
            .checked_shl(e)
            .filter(|_| e < 63)
            .ok_or_else(|| Error::bad_param(name, format!("`{text}` is too large")));
    } else {
        (t.as_str(), 1)
    };
    let names: Vec<&str> = presets.iter().map(|(k, _)| *k).collect();
    digits
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(mul))
        .filter(|&v| v > 0)
        .ok_or_else(|| {
            Error::bad_param(
                name,
                format!(
                    "`{text}` is neither a positive number nor one of {}",
                    names.join(", ")
                ),
            )
        })
}

/// `OverLimit` unless one binding of `bytes` fits the platform.
pub fn check_binding(bytes: u64, caps: &Capabilities) -> Result<()> {
    let (limit, max) = if caps.max_storage_binding < caps.max_buffer {
        ("max_storage_buffer_binding_size", caps.max_storage_binding)
    } else {
        ("max_buffer_size", caps.max_buffer)
    };
    if bytes > max {
        return Err(Error::OverLimit {
            limit,
            needed: bytes,
            max,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        let presets = [("small", 8)];
        assert_eq!(parse_size("size", "small", &presets).ok(), Some(8));
        assert_eq!(parse_size("size", "2^25", &presets).ok(), Some(1 << 25));
        assert_eq!(parse_size("size", "16k", &presets).ok(), Some(16384));
        assert_eq!(parse_size("size", "3", &presets).ok(), Some(3));
        assert!(parse_size("size", "huge", &presets).is_err());
        assert!(parse_size("size", "0", &presets).is_err());
        assert!(parse_size("size", "2^99", &presets).is_err());
    }
}

/// Neumaier's compensated sum. Host references and conservation checks add
/// up to 10^8 terms, where a plain running sum would drift by more than the
/// kernels' own rounding that they check.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompensatedSum {
    s: f64,
    c: f64,
}

impl CompensatedSum {
    /// Adds `x`.
    pub fn add(&mut self, x: f64) {
        let t = self.s + x;
        self.c += if self.s.abs() >= x.abs() {
            (self.s - t) + x
        } else {
            (x - t) + self.s
        };
        self.s = t;
    }

    /// The sum so far.
    pub fn value(self) -> f64 {
        self.s + self.c
    }
}

/// Loads and stores a kernel requests, for
/// [`crate::app::Kernel::issued_bytes`]: reals of the case's precision (a
/// complex number is two) and 4-byte words (u32 indices, counts and
/// tables, whatever the precision).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Reals loaded or stored.
    pub reals: u64,
    /// 4-byte words loaded or stored.
    pub words: u64,
}

impl Traffic {
    /// `reals` reals and `words` words.
    pub fn new(reals: u64, words: u64) -> Traffic {
        Traffic { reals, words }
    }

    /// `n` times as much.
    pub fn times(self, n: u64) -> Traffic {
        Traffic::new(self.reals * n, self.words * n)
    }

    /// Bytes in precision `p`.
    pub fn bytes(self, p: Precision) -> f64 {
        (self.reals * p.real_bytes() + 4 * self.words) as f64
    }
}

impl std::ops::Add for Traffic {
    type Output = Traffic;

    fn add(self, o: Traffic) -> Traffic {
        Traffic::new(self.reals + o.reals, self.words + o.words)
    }
}

impl std::ops::AddAssign for Traffic {
    fn add_assign(&mut self, o: Traffic) {
        *self = *self + o;
    }
}

impl std::iter::Sum for Traffic {
    fn sum<I: Iterator<Item = Traffic>>(iter: I) -> Traffic {
        iter.fold(Traffic::default(), |a, b| a + b)
    }
}
