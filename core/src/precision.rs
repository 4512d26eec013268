//! Floating-point precisions of the suite and their host-side encodings.
//!
//! Kernels are written once against the `Real` type of `shaders/common/`; the
//! precision decides which prelude is composed in front of them and how the host
//! packs `f64` values into the buffers those kernels read.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// Arithmetic a kernel runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// IEEE single precision.
    F32,
    /// Native IEEE double precision (needs `SHADER_F64`).
    F64,
    /// Double emulated by an unevaluated sum of two f32 (hi + lo).
    Df64,
}

impl Precision {
    /// Every precision, in report order.
    pub const ALL: [Precision; 3] = [Precision::F32, Precision::F64, Precision::Df64];

    /// Lower-case name used on the command line and in result files.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::Df64 => "df64",
        }
    }

    /// Bytes one real number occupies in a storage buffer.
    pub fn real_bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F64 | Precision::Df64 => 8,
        }
    }

    /// Unit roundoff of the arithmetic (half an ulp of 1.0).
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Precision::F32 => f32::EPSILON as f64 / 2.0,
            Precision::F64 => f64::EPSILON / 2.0,
            // Two f32 significands give 2 x 24 bits, minus the sign of the low word.
            Precision::Df64 => 2f64.powi(-48),
        }
    }

    /// Machine epsilon as BabelStream uses it for its tolerances.
    pub fn epsilon(self) -> f64 {
        2.0 * self.unit_roundoff()
    }

    /// Packs `values` the way the precision's prelude stores reals (in
    /// parallel: inputs run to gigabytes).
    pub fn encode(self, values: &[f64]) -> Vec<u8> {
        self.encode_with(values.len(), |i| values[i])
    }

    /// `n` reals, slot `j` holding `value(j)`, packed as [`Precision::encode`]
    /// packs them: a layout's gather and the encoding in one pass, without
    /// an intermediate array of f64.
    pub fn encode_with(self, n: usize, value: impl Fn(usize) -> f64 + Sync + Send) -> Vec<u8> {
        let width = self.real_bytes() as usize;
        let mut out = vec![0u8; n * width];
        crate::parallel::for_byte_chunks(&mut out, width, |i, c| self.put(c, value(i)));
        out
    }

    /// Writes `x` into the bytes of one real (`real_bytes` long).
    #[inline]
    pub fn put(self, out: &mut [u8], x: f64) {
        match self {
            Precision::F32 => out.copy_from_slice(&(x as f32).to_le_bytes()),
            Precision::F64 => out.copy_from_slice(&x.to_le_bytes()),
            Precision::Df64 => {
                let [hi, lo] = split_df64(x);
                out[..4].copy_from_slice(&hi.to_le_bytes());
                out[4..].copy_from_slice(&lo.to_le_bytes());
            }
        }
    }

    /// The real stored in the bytes of one real (`real_bytes` long).
    #[inline]
    pub fn get(self, c: &[u8]) -> f64 {
        let word = |c: &[u8]| f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        match self {
            Precision::F32 => f64::from(word(c)),
            Precision::F64 => f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
            Precision::Df64 => f64::from(word(c)) + f64::from(word(&c[4..])),
        }
    }

    /// Real `i` of a buffer's bytes: a check reads what it compares in
    /// place instead of decoding the whole buffer first.
    #[inline]
    pub fn read(self, bytes: &[u8], i: usize) -> f64 {
        let width = self.real_bytes() as usize;
        self.get(&bytes[i * width..(i + 1) * width])
    }

    /// `x` rounded to the nearest number the precision stores: what
    /// encoding and decoding it gives.
    #[inline]
    pub fn round(self, x: f64) -> f64 {
        match self {
            Precision::F32 => f64::from(x as f32),
            Precision::F64 => x,
            Precision::Df64 => {
                let [hi, lo] = split_df64(x);
                f64::from(hi) + f64::from(lo)
            }
        }
    }

    /// Unpacks reals written by a kernel of this precision.
    pub fn decode(self, bytes: &[u8]) -> Vec<f64> {
        let width = self.real_bytes() as usize;
        crate::parallel::map_byte_chunks(bytes, width, |c| self.get(c))
    }

    /// The bytes of one real set to a quiet NaN, to poison outputs before a run.
    pub fn poison_pattern(self) -> Vec<u8> {
        match self {
            Precision::F32 => f32::NAN.to_le_bytes().to_vec(),
            Precision::F64 => f64::NAN.to_le_bytes().to_vec(),
            Precision::Df64 => [f32::NAN.to_le_bytes(), f32::NAN.to_le_bytes()].concat(),
        }
    }
}

/// Splits an `f64` into the (hi, lo) pair of f32 whose sum represents it.
pub fn split_df64(x: f64) -> [f32; 2] {
    let hi = x as f32;
    let lo = (x - hi as f64) as f32;
    [hi, lo]
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Precision {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "single" => Ok(Precision::F32),
            "f64" | "double" => Ok(Precision::F64),
            "df64" => Ok(Precision::Df64),
            other => Err(Error::bad_param(
                "precision",
                format!("`{other}` is not one of f32, f64, df64"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn df64_split_round_trips_to_48_bits() {
        for &x in &[1.0 / 3.0, std::f64::consts::PI, -2.5e7 / 7.0, 1e-20] {
            let [hi, lo] = split_df64(x);
            let back = hi as f64 + lo as f64;
            assert!(((back - x) / x).abs() < 2f64.powi(-47), "{x} -> {back}");
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let v = [0.1, -3.75, 1e10];
        for p in Precision::ALL {
            let back = p.decode(&p.encode(&v));
            for (a, b) in v.iter().zip(&back) {
                assert!(
                    ((a - b) / a).abs() <= 2.0 * p.unit_roundoff(),
                    "{p}: {a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn one_real_at_a_time_agrees_with_whole_buffers() {
        let v = [0.1, -3.75, 1e10, 1.0 / 3.0];
        for p in Precision::ALL {
            let bytes = p.encode(&v);
            let whole = p.decode(&bytes);
            for (i, x) in v.iter().enumerate() {
                assert_eq!(p.read(&bytes, i).to_bits(), whole[i].to_bits(), "{p}");
                assert_eq!(p.round(*x).to_bits(), whole[i].to_bits(), "{p}");
            }
            assert_eq!(p.encode_with(v.len(), |i| v[i]), bytes);
        }
    }

    #[test]
    fn parses_names_and_rejects_others() {
        assert_eq!("DF64".parse::<Precision>().ok(), Some(Precision::Df64));
        assert!("f16".parse::<Precision>().is_err());
    }
}
