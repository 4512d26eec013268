//! Data-parallel loops for the CPU references: rayon natively, plain loops
//! in the browser (which has no threads).

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

/// `out[i] = f(i)` for every i.
pub fn fill(out: &mut [f64], f: impl Fn(usize) -> f64 + Sync + Send) {
    #[cfg(not(target_arch = "wasm32"))]
    out.par_iter_mut().enumerate().for_each(|(i, o)| *o = f(i));
    #[cfg(target_arch = "wasm32")]
    out.iter_mut().enumerate().for_each(|(i, o)| *o = f(i));
}

/// `[f(0), .., f(n-1)]`.
pub fn par_map(n: usize, f: impl Fn(usize) -> f64 + Sync + Send) -> Vec<f64> {
    let mut v = vec![0.0; n];
    fill(&mut v, f);
    v
}

/// `f(0) + .. + f(n-1)`.
pub fn sum(n: usize, f: impl Fn(usize) -> f64 + Sync + Send) -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    return (0..n).into_par_iter().map(f).sum();
    #[cfg(target_arch = "wasm32")]
    return (0..n).map(f).sum();
}

/// How many `i` in `0..n` satisfy `f(i)`.
pub fn count(n: usize, f: impl Fn(usize) -> bool + Sync + Send) -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    return (0..n).into_par_iter().filter(|&i| f(i)).count();
    #[cfg(target_arch = "wasm32")]
    return (0..n).filter(|&i| f(i)).count();
}

/// Calls `f(first_index, chunk)` on consecutive chunks of `out` of `len` elements.
pub fn for_chunks(out: &mut [f64], len: usize, f: impl Fn(usize, &mut [f64]) + Sync + Send) {
    #[cfg(not(target_arch = "wasm32"))]
    out.par_chunks_mut(len)
        .enumerate()
        .for_each(|(c, chunk)| f(c * len, chunk));
    #[cfg(target_arch = "wasm32")]
    out.chunks_mut(len)
        .enumerate()
        .for_each(|(c, chunk)| f(c * len, chunk));
}

/// `[f(0), .., f(n-1)]` for any sendable result.
pub fn collect<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    return (0..n).into_par_iter().map(f).collect();
    #[cfg(target_arch = "wasm32")]
    return (0..n).map(f).collect();
}

/// Calls `f(i, chunk)` on the `i`-th `width`-byte chunk of `out` (encoding
/// values into a buffer's bytes).
pub fn for_byte_chunks(out: &mut [u8], width: usize, f: impl Fn(usize, &mut [u8]) + Sync + Send) {
    #[cfg(not(target_arch = "wasm32"))]
    out.par_chunks_exact_mut(width)
        .enumerate()
        .for_each(|(i, c)| f(i, c));
    #[cfg(target_arch = "wasm32")]
    out.chunks_exact_mut(width)
        .enumerate()
        .for_each(|(i, c)| f(i, c));
}

/// Calls `f` on every item (items need to be sendable only where there
/// are threads: a mapped view of a buffer is not in the browser).
pub fn each<T: wgpu::WasmNotSend>(items: Vec<T>, f: impl Fn(T) + Sync + Send) {
    #[cfg(not(target_arch = "wasm32"))]
    items.into_par_iter().for_each(f);
    #[cfg(target_arch = "wasm32")]
    items.into_iter().for_each(f);
}

/// `f` of every `width`-byte chunk of `bytes`, in order (decoding a
/// buffer's bytes into values).
pub fn map_byte_chunks(
    bytes: &[u8],
    width: usize,
    f: impl Fn(&[u8]) -> f64 + Sync + Send,
) -> Vec<f64> {
    #[cfg(not(target_arch = "wasm32"))]
    return bytes.par_chunks_exact(width).map(f).collect();
    #[cfg(target_arch = "wasm32")]
    return bytes.chunks_exact(width).map(f).collect();
}

/// The largest `f(i)` over `0..n` with its index (the first of equals),
/// and how many `i` gave `None`: the worst error of a comparison and its
/// count of elements that could not be compared.
pub fn worst(n: usize, f: impl Fn(usize) -> Option<f64> + Sync + Send) -> (f64, usize, usize) {
    let one = |i: usize| match f(i) {
        Some(e) => (e, i, 0),
        None => (0.0, i, 1),
    };
    let pick = |a: (f64, usize, usize), b: (f64, usize, usize)| {
        let missing = a.2 + b.2;
        if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
            (b.0, b.1, missing)
        } else {
            (a.0, a.1, missing)
        }
    };
    #[cfg(not(target_arch = "wasm32"))]
    return (0..n).into_par_iter().map(one).reduce(|| (0.0, 0, 0), pick);
    #[cfg(target_arch = "wasm32")]
    return (0..n).map(one).fold((0.0, 0, 0), pick);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_finds_the_first_largest_and_counts_the_missing() {
        let v = [0.5, 2.0, f64::NAN, 2.0, 1.0];
        let (e, at, missing) = worst(v.len(), |i| v[i].is_finite().then_some(v[i]));
        assert_eq!((e, at, missing), (2.0, 1, 1));
    }

    #[test]
    fn bytes_round_trip_through_chunks() {
        let vals = [1.5f64, -2.25, 3.0];
        let mut out = vec![0u8; 24];
        for_byte_chunks(&mut out, 8, |i, c| {
            c.copy_from_slice(&vals[i].to_le_bytes())
        });
        let back = map_byte_chunks(&out, 8, |c| {
            f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))
        });
        assert_eq!(back, vals);
    }
}
