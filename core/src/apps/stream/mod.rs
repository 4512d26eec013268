//! `stream`: BabelStream's bandwidth kernels (copy, mul, add, triad, dot,
//! nstream) in every precision, plus the driver's own buffer copy as an
//! in-run reference. Bytes are counted as BabelStream counts them.

use std::sync::OnceLock;

mod cpu;
mod fit;
mod gpu;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Validation, wg_param,
};
use crate::apps::blocks;
use crate::apps::common::{fresh_rng, parse_size, random_reals};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

const SOURCE: &str = include_str!("../../../../shaders/stream/stream.wgsl");
const LOAD_VECTOR: &str = include_str!("../../../../shaders/stream/load_vector.wgsl");
const LOAD_REAL: &str = include_str!("../../../../shaders/stream/load_real.wgsl");

/// BabelStream's scalar.
const SCALAR: f64 = 0.4;

choice! {
    /// The kernels, in BabelStream's order, and the driver copy.
    pub enum KernelName("kernel") {
        /// c = a.
        Copy = "copy",
        /// b = s c.
        Mul = "mul",
        /// c = a + b.
        Add = "add",
        /// a = b + s c.
        Triad = "triad",
        /// sum a b.
        Dot = "dot",
        /// a += b + s c.
        Nstream = "nstream",
        /// The driver's buffer copy of a to c.
        CopyBuffer = "copy-buffer",
    }
}

choice! {
    /// What one load or store of a kernel moves.
    pub enum Load("load") {
        /// A 16-byte vector of reals.
        Vector = "vector",
        /// One real (BabelStream's CUDA loads).
        Real = "real",
    }
}

impl Load {
    /// Reals one load moves in precision `p` (`SV_LANES` of the kernels).
    fn lanes(self, p: Precision) -> u64 {
        match self {
            Load::Vector => 16 / p.real_bytes(),
            Load::Real => 1,
        }
    }
}

choice! {
    /// Where the three arrays live.
    pub enum Alloc("alloc") {
        /// One allocation per array (BabelStream).
        Separate = "separate",
        /// One allocation, arrays `pad` bytes apart.
        Packed = "packed",
    }
}

/// One stream case, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Kernel.
    pub kernel: KernelName,
    /// Elements per array.
    pub n: u64,
    /// Workgroup size.
    pub wg: u32,
    /// Loads per array per invocation.
    pub epi: u32,
    /// What one load moves.
    pub load: Load,
    /// Where the arrays live.
    pub alloc: Alloc,
    /// Bytes between packed arrays.
    pub pad: u64,
    /// The most KiB one block of an array may hold (0: the adapter's limit).
    pub buffer_kib: u64,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every stream result file).
    pub fn case(&self) -> Case {
        // Vector loads, the default, keep the labels earlier records have.
        let load = match self.load {
            Load::Vector => "",
            Load::Real => "/real",
        };
        let variant = match (self.kernel, self.alloc) {
            (KernelName::CopyBuffer, _) => "driver".to_string(),
            (_, Alloc::Packed) => {
                format!("wg{}/epi{}{load}/packed{}", self.wg, self.epi, self.pad)
            }
            (_, Alloc::Separate) => format!("wg{}/epi{}{load}", self.wg, self.epi),
        };
        // Cases at the adapter's limit keep the labels and parameters
        // earlier records have.
        let (variant, kib) = match self.buffer_kib {
            0 => (variant, None),
            kib => (format!("{variant}/buffer{kib}KiB"), Some(kib)),
        };
        let case = Case::new("stream", self.kernel.name(), &variant, self.precision)
            .param("n", self.n)
            .param("wg", self.wg)
            .param("epi", self.epi)
            .param("load", self.load)
            .param("alloc", self.alloc)
            .param("pad", self.pad);
        match kib {
            None => case,
            Some(kib) => case.param(blocks::BUFFER_PARAM, kib),
        }
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            precision: case.precision,
            kernel: case.kernel_as()?,
            n: case.uint("n")?,
            wg: case.u32("wg")?,
            epi: case.u32("epi")?,
            load: case.choice()?,
            alloc: case.choice()?,
            pad: case.uint("pad")?,
            buffer_kib: match case.text(blocks::BUFFER_PARAM) {
                "" => 0,
                _ => case.uint(blocks::BUFFER_PARAM)?,
            },
        })
    }
}

/// Default array length: BabelStream's 2^25.
const DEFAULT_N: u64 = 1 << 25;

/// Arrays moved per element and FLOPs per element (BabelStream's counting).
fn per_element(kernel: KernelName) -> (u64, u64) {
    match kernel {
        KernelName::Copy | KernelName::CopyBuffer => (2, 0),
        KernelName::Mul => (2, 1),
        KernelName::Add => (3, 1),
        KernelName::Triad => (3, 2),
        KernelName::Dot => (2, 2),
        KernelName::Nstream => (4, 3),
    }
}

/// The `stream` app.
pub struct Stream;

impl App for Stream {
    fn name(&self) -> &'static str {
        "stream"
    }

    /// The problem is the element count.
    fn problem(&self) -> &'static [&'static str] {
        &["n"]
    }

    fn about(&self) -> &'static str {
        "BabelStream bandwidth kernels (copy, mul, add, triad, dot, nstream) and the driver's buffer copy"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "which kernels to run",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "copy,mul,add,triad,dot,nstream,copy-buffer",
            },
            ParamSpec {
                name: "size",
                help: "elements per array: default (2^25, capped by the device's and the host's memory), small (2^16), or a number up to what the device's and the host's memory hold (arrays past a binding are split over buffers)",
                kind: ParamKind::Text,
                default: "default",
            },
            wg_param("256"),
            ParamSpec {
                name: "epi",
                help: "loads per array per invocation",
                kind: ParamKind::UInt { min: 1, max: 64 },
                default: "1",
            },
            ParamSpec {
                name: "load",
                help: "what a load moves: vector (16 bytes) or real (4 bytes in f32, 8 in f64 and df64, as BabelStream's CUDA code)",
                kind: ParamKind::Choice(Load::NAMES),
                default: "vector",
            },
            ParamSpec {
                name: "alloc",
                help: "separate: one allocation per array (BabelStream); packed: one allocation, arrays `pad` bytes apart",
                kind: ParamKind::Choice(Alloc::NAMES),
                default: "separate",
            },
            ParamSpec {
                name: "pad",
                help: "bytes between packed arrays (STREAM's OFFSET), rounded up to the binding alignment",
                kind: ParamKind::UInt {
                    min: 0,
                    max: 1 << 30,
                },
                default: "0",
            },
            blocks::buffer_param(),
        ]
    }

    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("wg", "64,128,256,512,1024"),
            ("epi", "1,2,4"),
            ("load", "vector,real"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let size = r.text("size");
        let explicit = !matches!(size, "default" | "small");
        let kernels: Vec<KernelName> = r.choices();
        let wgs = r.wgs(caps)?;
        if kernels.contains(&KernelName::Dot)
            && let Some(wg) = wgs.iter().find(|wg| !wg.is_power_of_two())
        {
            return Err(Error::bad_param(
                "wg",
                format!("dot needs a power-of-two workgroup size, not {wg}"),
            ));
        }
        let epis: Vec<u32> = r.uints("epi").into_iter().map(|e| e as u32).collect();
        let buffer_kib = blocks::parse_buffer_kib(r.text(blocks::BUFFER_PARAM))?;
        let mut cases = Vec::new();
        for &p in &r.precisions {
            let n = parse_size("size", size, &[("default", DEFAULT_N), ("small", 1 << 16)])?;
            // Kernels move 16-byte vectors: a size must be a whole number
            // of them (whatever `load` is, so every load shares the problem).
            let lanes = Load::Vector.lanes(p);
            if n % lanes != 0 {
                return Err(Error::bad_param(
                    "size",
                    format!("{n} is not a multiple of {lanes} (one 16-byte vector of {p})"),
                ));
            }
            let mut base = Params {
                precision: p,
                kernel: KernelName::CopyBuffer,
                n,
                wg: 1,
                epi: 1,
                load: Load::Vector,
                alloc: Alloc::Separate,
                pad: 0,
                buffer_kib,
            };
            // The error names what bounds it: the device's memory, the
            // host's, or (where neither is known, as in a browser) the
            // adapter's buffer limits.
            if !explicit && let Err(why) = fit::check(&base, caps) {
                let largest = fit::largest(&base, caps);
                log::warn!("stream {p}: {n} elements do not fit ({why}); capped to {largest}");
                base.n = largest;
            }
            // The driver copy depends on neither the precision nor the
            // launch shape: it runs once, with the first precision.
            let timed = |c: &Params| c.kernel != KernelName::CopyBuffer;
            let points = Grid::new(base)
                .axis(&kernels, |c, k| c.kernel = k)
                .axis_where(timed, &wgs, |c, wg| c.wg = wg)
                .axis_where(timed, &epis, |c, epi| c.epi = epi)
                .axis_where(timed, &r.choices(), |c, l| c.load = l)
                .axis_where(timed, &r.choices(), |c, a| c.alloc = a)
                .axis_where(
                    |c| c.alloc == Alloc::Packed,
                    &r.uints("pad"),
                    |c, pad| c.pad = pad,
                )
                .points();
            for c in points.iter().filter(|c| timed(c) || p == r.precisions[0]) {
                fit::fits(c, caps)?;
                cases.push(c.case());
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(gpu::StreamGpu::new(
            gpu,
            &Params::try_from(case)?,
        )?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        Load::ALL.iter().map(|&l| spec(p, 256, 1, l)).collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        match Params::try_from(case) {
            Ok(p) if p.kernel == KernelName::CopyBuffer => None,
            Ok(p) => Some(Ok(Box::new(cpu::StreamCpu::new(&p)))),
            Err(e) => Some(Err(e)),
        }
    }
}

/// Host copies of the three arrays, drawn around BabelStream's initial values
/// (a = 0.1, b = 0.2, c = 0.0) but random, since constant arrays hide indexing errors.
struct Inputs {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    /// The arrays in the buffers' bytes, made on first upload and kept for
    /// every later case of the request.
    encoded: OnceLock<[Vec<u8>; 3]>,
    /// The exact dot product, made on first use.
    dot: OnceLock<f64>,
}

impl Inputs {
    fn new(n: usize, p: Precision) -> Inputs {
        let mut rng = fresh_rng();
        Inputs {
            a: random_reals(&mut rng, n, 0.05, 0.15, p),
            b: random_reals(&mut rng, n, 0.15, 0.25, p),
            c: random_reals(&mut rng, n, -0.05, 0.05, p),
            encoded: OnceLock::new(),
            dot: OnceLock::new(),
        }
    }

    /// Element `i` of what an array kernel must write.
    fn want(&self, kernel: KernelName, s: f64, i: usize) -> f64 {
        let (a, b, c) = (&self.a, &self.b, &self.c);
        match kernel {
            KernelName::Mul => s * c[i],
            KernelName::Add => a[i] + b[i],
            KernelName::Triad => b[i] + s * c[i],
            KernelName::Nstream => a[i] + b[i] + s * c[i],
            KernelName::Copy | KernelName::CopyBuffer | KernelName::Dot => a[i],
        }
    }

    /// Summed on all cores, pairwise: arrays up to the device's memory hold
    /// billions of elements.
    fn dot(&self) -> f64 {
        let (a, b) = (&self.a, &self.b);
        *self
            .dot
            .get_or_init(|| crate::parallel::sum(a.len(), |i| a[i] * b[i]))
    }

    /// a, b and c in `p`'s bytes (the precision they were drawn for).
    fn encoded(&self, p: Precision) -> &[Vec<u8>; 3] {
        self.encoded
            .get_or_init(|| [&self.a, &self.b, &self.c].map(|v| p.encode(v)))
    }
}

/// Tolerances: BabelStream's 100 eps for arrays; for dot, 100 eps per level of
/// the summation tree (tighter than BabelStream's 1e7 eps, which lets an f32
/// dot be off by more than 100%).
fn tolerance(kernel: KernelName, p: Precision, n: usize) -> f64 {
    let eps = p.epsilon();
    if kernel == KernelName::Dot {
        100.0 * eps * (n as f64).log2().max(1.0)
    } else {
        100.0 * eps
    }
}

/// Checks `n` values written by `kernel`, `got` of each index: dot's
/// partial sums add up to the exact sum, an array equals the host's.
fn validate(
    kernel: KernelName,
    p: Precision,
    inputs: &Inputs,
    n: usize,
    got: impl Fn(usize) -> f64 + Sync + Send,
) -> Validation {
    let len = inputs.a.len();
    if kernel == KernelName::Dot {
        let want = inputs.dot();
        let sum: f64 = (0..n).map(got).sum();
        if !sum.is_finite() {
            return Validation::fail("dot: a partial sum was not written".into());
        }
        return Validation::compare(
            &[sum],
            &[want],
            tolerance(kernel, p, len),
            0.0,
            "dot vs exact host sum",
        );
    }
    if n != len {
        return Validation::fail(format!("{kernel}: {n} values read, {len} expected"));
    }
    Validation::compare_by(
        n,
        got,
        |i| inputs.want(kernel, SCALAR, i),
        tolerance(kernel, p, len),
        1e-30,
        kernel.name(),
    )
}

/// Which array a kernel writes (0 = a, 1 = b, 2 = c; `usize::MAX` for dot's partial sums).
fn output_array(kernel: KernelName) -> usize {
    match kernel {
        KernelName::Mul => 1,
        KernelName::Triad | KernelName::Nstream => 0,
        KernelName::Dot => usize::MAX,
        KernelName::Copy | KernelName::Add | KernelName::CopyBuffer => 2,
    }
}

/// Work and traffic of one run of `kernel` on arrays of `n` elements.
fn model(kernel: KernelName, n: u64, p: Precision) -> Model {
    let (arrays, flops) = per_element(kernel);
    Model {
        flops: (flops * n) as f64,
        bytes: (arrays * n * p.real_bytes()) as f64,
    }
}

/// The module holding every stream kernel (one entry point each).
fn spec(p: Precision, wg: u32, epi: u32, load: Load) -> ShaderSpec {
    ShaderSpec::new("stream", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("EPI", epi)
        .with_include(match load {
            Load::Vector => LOAD_VECTOR,
            Load::Real => LOAD_REAL,
        })
        .with_include(sources::GRID)
        .with_include(sources::REDUCE)
}
