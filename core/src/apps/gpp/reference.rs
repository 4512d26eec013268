//! The host side of gpp: the inputs, the f64 reference sums (factored, and
//! in the reference's own loop order for the CPU platform), and the checks.

#[cfg(not(target_arch = "wasm32"))]
use rayon::prelude::*;

use super::{DEFAULT_DIMS, Dims, InputSet, PUBLISHED_ACHTEMP0, PUBLISHED_TOL, Params, model, wx};
use crate::app::{CpuKernel, Model, Validation};
use crate::apps::common::{CompensatedSum, fresh_rng, random_reals};
use crate::precision::Precision;

/// A complex number on the host.
type C = (f64, f64);

fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// Six compensated sums: achtemp[0..3] as (re, im).
#[derive(Clone, Copy, Default)]
struct Sums([CompensatedSum; 6]);

impl Sums {
    fn add_c(&mut self, iw: usize, v: C) {
        self.0[2 * iw].add(v.0);
        self.0[2 * iw + 1].add(v.1);
    }

    fn merge(mut self, o: &Sums) -> Sums {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            a.add(b.value());
        }
        self
    }

    fn values(&self) -> [f64; 6] {
        let mut v = [0.0; 6];
        for (o, s) in v.iter_mut().zip(&self.0) {
            *o = s.value();
        }
        v
    }
}

/// Sums of `f(i)` for i in 0..n, merged in index order (deterministic).
fn par_sums(n: usize, f: impl Fn(usize) -> Sums + Sync + Send) -> Sums {
    #[cfg(not(target_arch = "wasm32"))]
    let parts: Vec<Sums> = (0..n).into_par_iter().map(f).collect();
    #[cfg(target_arch = "wasm32")]
    let parts: Vec<Sums> = (0..n).map(f).collect();
    parts.iter().fold(Sums::default(), |acc, s| acc.merge(s))
}

/// The inputs, as f64 values the kernel's precision can store exactly.
/// With `shared_rows` (the published inputs, every row equal) each 2-D array
/// holds one row, so the host reference needs no gigabytes at the default size.
pub(super) struct Inputs {
    pub(super) d: Dims,
    shared_rows: bool,
    /// aqsmtemp, aqsntemp: bands x ncouls complex (interleaved re, im).
    pub(super) aqsm: Vec<f64>,
    pub(super) aqsn: Vec<f64>,
    /// I_eps_array, wtilde_array: ngpown x ncouls complex.
    pub(super) eps: Vec<f64>,
    pub(super) wtilde: Vec<f64>,
    /// vcoul: ncouls reals.
    pub(super) vcoul: Vec<f64>,
}

impl Inputs {
    pub(super) fn new(d: Dims, kind: InputSet, p: Precision) -> Inputs {
        let m = d.ncouls as usize;
        if kind == InputSet::Reference {
            return Inputs {
                d,
                shared_rows: true,
                aqsm: vec![0.5; 2 * m],
                aqsn: vec![0.5; 2 * m],
                eps: vec![0.5; 2 * m],
                wtilde: vec![0.5; 2 * m],
                vcoul: vec![1.0; m],
            };
        }
        // Ranges around the reference's 0.5 and 1: all sums stay far from
        // cancellation and wx - wtilde far from zero, so relative errors of
        // the final sums measure the arithmetic, not the conditioning.
        let mut rng = fresh_rng();
        let (xm, nm) = (2 * d.bands as usize * m, 2 * d.ngpown as usize * m);
        Inputs {
            d,
            shared_rows: false,
            aqsm: random_reals(&mut rng, xm, 0.25, 0.75, p),
            aqsn: random_reals(&mut rng, xm, 0.25, 0.75, p),
            eps: random_reals(&mut rng, nm, 0.25, 0.75, p),
            wtilde: random_reals(&mut rng, nm, 0.25, 0.75, p),
            vcoul: random_reals(&mut rng, m, 0.5, 1.5, p),
        }
    }

    fn row(&self, i: u64) -> usize {
        if self.shared_rows { 0 } else { i as usize }
    }

    fn at(&self, a: &[f64], row: u64, col: u64) -> C {
        let k = 2 * (self.row(row) * self.d.ncouls as usize + col as usize);
        (a[k], a[k + 1])
    }

    fn igp(&self, my_igp: u64) -> u64 {
        ((my_igp + 1) * self.d.ncouls / self.d.ngpown).min(self.d.ncouls - 1)
    }

    fn sch_store1(&self, n1: u64, my_igp: u64) -> C {
        let igp = self.igp(my_igp);
        let a = self.at(&self.aqsm, n1, igp);
        let b = self.at(&self.aqsn, n1, igp);
        let pair = cmul((a.0, -a.1), b);
        let s = 0.5 * self.vcoul[igp as usize];
        cmul((pair.0 * s, pair.1 * s), self.at(&self.wtilde, my_igp, igp))
    }

    /// 1 / (wx - wt), as the kernel forms it.
    fn delw(wx: f64, wt: C) -> C {
        let re = wx - wt.0;
        let inv = 1.0 / (re * re + wt.1 * wt.1);
        (re * inv, wt.1 * inv)
    }

    /// achtemp by the factored sum: sch_store1 is the only factor that
    /// depends on n1, so sum it over the bands first. O(X*N + N*M) work, so
    /// the check costs little even at the default size; compensated sums.
    pub(super) fn expected(&self) -> [f64; 6] {
        let w = wx();
        par_sums(self.d.ngpown as usize, |g| {
            let g = g as u64;
            let mut band = [CompensatedSum::default(), CompensatedSum::default()];
            for n1 in 0..self.d.bands {
                let s = self.sch_store1(n1, g);
                band[0].add(s.0);
                band[1].add(s.1);
            }
            let s1 = (band[0].value(), band[1].value());
            let mut out = Sums::default();
            for ig in 0..self.d.ncouls {
                let t = cmul(self.at(&self.eps, g, ig), s1);
                let wt = self.at(&self.wtilde, g, ig);
                for (iw, &x) in w.iter().enumerate() {
                    out.add_c(iw, cmul(Self::delw(x, wt), t));
                }
            }
            out
        })
        .values()
    }

    /// achtemp by the reference's own loops (bands in parallel): the CPU
    /// platform's benchmark kernel. Plain sums along each ig row, compensated
    /// sums across rows.
    pub(super) fn direct(&self) -> [f64; 6] {
        let w = wx();
        par_sums(self.d.bands as usize, |n1| {
            let n1 = n1 as u64;
            let mut out = Sums::default();
            for g in 0..self.d.ngpown {
                let mut acc = [(0.0, 0.0); 3];
                for ig in 0..self.d.ncouls {
                    let eps = self.at(&self.eps, g, ig);
                    let wt = self.at(&self.wtilde, g, ig);
                    for (a, &x) in acc.iter_mut().zip(&w) {
                        let v = cmul(Self::delw(x, wt), eps);
                        a.0 += v.0;
                        a.1 += v.1;
                    }
                }
                // As the GPU kernel: sch_store1 multiplies the pair's sums once.
                let s1 = self.sch_store1(n1, g);
                for (iw, a) in acc.iter().enumerate() {
                    out.add_c(iw, cmul(*a, s1));
                }
            }
            out
        })
        .values()
    }

    /// `a` (one shared row or all rows) as the kernel's buffer bytes for `rows` rows.
    pub(super) fn encode(&self, a: &[f64], rows: u64, p: Precision) -> Vec<u8> {
        let bytes = p.encode(a);
        if self.shared_rows {
            bytes.repeat(rows as usize)
        } else {
            bytes
        }
    }
}

/// Relative error bound of the final sums against the host f64 reference.
/// f64: a few ulps per term plus ~log2 levels of pairwise-ish summation;
/// df64: 2^-48 arithmetic; f32: measured (see the report) with margin.
pub fn tolerance(p: Precision) -> f64 {
    match p {
        Precision::F64 => 1e-13,
        Precision::Df64 => 1e-12,
        Precision::F32 => 1e-4,
    }
}

/// Worst complex-relative error `|got - want| / |want|` over the three frequencies.
pub(super) fn compare(got: &[f64], want: &[f64; 6], tol: f64, what: &str) -> Validation {
    if got.len() != 6 || got.iter().any(|v| !v.is_finite()) {
        return Validation::fail(format!("{what}: achtemp not written ({got:?})"));
    }
    let mut worst = 0.0f64;
    for iw in 0..3 {
        let (dr, di) = (
            got[2 * iw] - want[2 * iw],
            got[2 * iw + 1] - want[2 * iw + 1],
        );
        let e = dr.hypot(di) / want[2 * iw].hypot(want[2 * iw + 1]);
        worst = worst.max(e);
    }
    Validation {
        reference: false,
        max_error: worst,
        tolerance: tol,
        passed: worst <= tol,
        detail: format!(
            "{what}: achtemp(0) = ({:.6}, {:.6}), max rel. error {worst:.3e} (tol {tol:.1e})",
            got[0], got[1]
        ),
    }
}

/// Checks achtemp against the host reference and, for the published inputs
/// at the published size, against the published achtemp(0).
pub(super) fn validate(
    got: &[f64],
    want: &[f64; 6],
    d: Dims,
    inputs: InputSet,
    p: Precision,
) -> Validation {
    let v = compare(got, want, tolerance(p), "vs host f64 sums");
    if inputs == InputSet::Reference && d == DEFAULT_DIMS {
        let (re, im) = PUBLISHED_ACHTEMP0;
        let published = [re, im, re, im, re, im];
        // Only achtemp(0) is published: compare it alone.
        let mut g = got.to_vec();
        g[2..].copy_from_slice(&published[2..]);
        return v.and(compare(
            &g,
            &published,
            PUBLISHED_TOL.max(tolerance(p)),
            "vs published achtemp(0)",
        ));
    }
    v
}

/// The reference's loops on the CPU in f64 (bands in parallel).
pub(super) struct GppCpu {
    inputs: Inputs,
    kind: InputSet,
    want: [f64; 6],
    got: [f64; 6],
}

impl GppCpu {
    /// The inputs of `params` in f64 and their factored sums.
    pub(super) fn new(params: &Params) -> GppCpu {
        let inputs = Inputs::new(params.dims, params.inputs, Precision::F64);
        let want = inputs.expected();
        GppCpu {
            inputs,
            kind: params.inputs,
            want,
            got: [f64::NAN; 6],
        }
    }
}

impl CpuKernel for GppCpu {
    fn run(&mut self) {
        self.got = self.inputs.direct();
    }

    fn validate(&self) -> Validation {
        validate(
            &self.got,
            &self.want,
            self.inputs.d,
            self.kind,
            Precision::F64,
        )
    }

    fn model(&self) -> Model {
        model(self.inputs.d, Precision::F64)
    }
}
