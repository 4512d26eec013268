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
