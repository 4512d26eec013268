//! `gpp`: the BerkeleyGW General Plasmon Pole self-energy kernel (the
//! `noflagOCC_solver` of the BerkeleyGW-Kernels GPP mini-app).
//!
//! Four nested loops, bands `X` (number_bands), `N` (ngpown), `M` (ncouls) and
//! three frequencies `iw`, accumulate
//!
//! ```text
//! achtemp[iw] = sum_{n1 < X, my_igp < N, ig < M} delw * I_eps[my_igp, ig] * sch_store1[n1, my_igp]
//! delw        = 1 / (wx[iw] - wtilde[my_igp, ig])
//! sch_store1  = conj(aqsm[n1, igp]) * aqsn[n1, igp] * 0.5 * vcoul[igp] * wtilde[my_igp, igp]
//! igp         = min((my_igp + 1) * M / N, M - 1)
//! ```
//!
//! with `wx = e_lk - e_n1kq + dw * (iw - 1) = {3, 4, 5}`. That reference
//! version has no occupied-band (`asxtemp`, `limitone`/`limittwo`) branch: it
//! declares `limittwo` but never uses it, so neither does this app.
//!
//! **FLOPs** per inner iteration `(n1, my_igp, ig)`, counting a fused
//! multiply-add as two and complex operations as their real operations: per
//! frequency 1 (`wx - Re wtilde`), 6 for the complex reciprocal `1 / wdiff =
//! conj(wdiff) / |wdiff|^2` (2 mul + 1 add + 1 div + 2 mul) and 8 for
//! `acc += delw * I_eps`: **45 = 3 x 15**. `sch_store1` is the same for every
//! `ig` of a pair, so it multiplies the three sums once, after the `ig` loop;
//! per `(n1, my_igp)` that adds 18 (three complex products) to the 16 of
//! forming `sch_store1` (two complex products, one real product, one complex
//! scaling), so one run is `X*N*(45*M + 34)` FLOPs. (The reference evaluates
//! `delw * I_eps * sch_store1` per frequency, 63 per iteration; Skylight
//! counted 51 before 2026-11-25, forming `I_eps * sch_store1` once per `ig`.)
//!
//! **Bytes** (minimum): every input element the kernel reads, once:
//! `I_eps` and `wtilde` whole (`2*N*M` complex numbers), of `aqsm` and
//! `aqsn` only the `(n1, igp)` elements (`2*X*N` complex), of `vcoul` the
//! N at `igp` and the 3 `wx` reals, and 6 reals written; a complex number
//! is two reals (16 B in f64 and df64, 8 B in f32). The per-workgroup
//! partial sums (`6*X*N` reals written and read again) are not counted.
//! (Before 2026-11-29 the model counted `aqsm`, `aqsn` and `vcoul` whole,
//! `2*X*M` complex and M reals: 23% more bytes at the default f64 size;
//! records keep the model of the build that made them.)
//!
//! **Issued bytes** (every load and store counted, the L1 level's traffic,
//! see `model.rs`): each band's team reads the `I_eps` and `wtilde` rows of
//! its `my_igp` again, `X*N*(4*M + 10*wg/share + 6)` reals in pass 1 and the
//! partial sums again in pass 2.
//!
//! Variants: `reduction` `tree` (workgroup shared-memory tree), `subgroup`
//! (a subgroup butterfly first, needs `SUBGROUP`) or `atomic` (the tree,
//! then f32 atomic adds of the workgroups' sums into [`ATOMIC_SLOTS`]
//! slots, which the second pass adds: the seed's third strategy; f32 only,
//! needs `SHADER_FLOAT32_ATOMIC`); `order` `xn` (bands outer) or `nx` (igp outer), which decides which pairs run side by side and so the
//! cache reuse of the `I_eps`/`wtilde` rows; `unroll`, the plane waves one
//! pass-1 loop step handles (written out, so their loads are issued
//! together; df64 renormalises its accumulators once a step); `share`, the
//! bands one pass-1 workgroup sums side by side, a team of `wg / share`
//! invocations each: the teams read the same `I_eps`/`wtilde` elements at
//! about the same time, so the L1 cache serves all but one of them (at the
//! default size on the H100 share 16 ran f64 14% and f32 10% faster than
//! share 1, and df64 no slower, so 16 is the default). Teams
//! lengthen each invocation's chain of terms, so chains over 1024 terms
//! (2048 in f64) are summed in blocks to bound their rounding. A second pass
//! adds the partial sums in a fixed order, so the result is bit-identical
//! run to run.
//!
//! Inputs: `random` (every array drawn afresh, checked against the host f64
//! reference) and `reference` (the published inputs: every complex array
//! (0.5, 0.5), `vcoul = 1`; at the default size also checked against the
//! published `achtemp(0)`).

mod gpu;
mod model;
mod plan;
mod reference;
#[cfg(test)]
mod tests;

use crate::app::{App, Case, CpuKernel, Kernel, ParamKind, ParamSpec, Request, wg_param};
use crate::apps::common::check_binding;
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ConstValue, ShaderSpec};
use model::issued_bytes;
pub use model::model;
pub use reference::tolerance;

const SOURCE: &str = include_str!("../../../../shaders/gpp/gpp.wgsl");
const SUBGROUP_SOURCE: &str = include_str!("../../../../shaders/gpp/subgroup.wgsl");
const ATOMIC_SOURCE: &str = include_str!("../../../../shaders/gpp/atomic.wgsl");
const PARTIALS_SOURCE: &str = include_str!("../../../../shaders/gpp/partials.wgsl");

/// Slots the atomic reduction adds the workgroups' sums into (see
/// `shaders/gpp/atomic.wgsl` for why not one).
pub const ATOMIC_SLOTS: u32 = 4096;

/// The reference's default problem: 512 bands, ngpown = 32768 / 20, 32768 plane waves.
pub const DEFAULT_DIMS: Dims = Dims {
    bands: 512,
    ngpown: 1638,
    ncouls: 32768,
};

/// The CI preset: small enough for a software rasteriser to run every case in seconds.
pub const SMALL_DIMS: Dims = Dims {
    bands: 16,
    ngpown: 32,
    ncouls: 256,
};

/// `achtemp(0)` the reference prints at the default size for its inputs
/// (OpenMP/OpenACC build; the serial build prints (-264241220.914570,
/// 1321205332.084101), 3e-7 away, from its different summation order).
pub const PUBLISHED_ACHTEMP0: (f64, f64) = (-264241149.849658, 1321205773.349384);

/// Relative tolerance against [`PUBLISHED_ACHTEMP0`]: it covers the two
/// published orders' 3e-7 difference.
pub const PUBLISHED_TOL: f64 = 1e-6;

/// The frequency grid of the reference: `e_lk - e_n1kq + dw * ((iw + 1) - 2)`
/// for iw = 0, 1, 2, floored at `to1 = 1e-6`.
pub fn wx() -> [f64; 3] {
    let (e_lk, e_n1kq, dw, to1) = (10.0, 6.0, 1.0, 1e-6);
    let mut w = [0.0; 3];
    for (iw, x) in w.iter_mut().enumerate() {
        *x = f64::max(e_lk - e_n1kq + dw * ((iw as f64 + 1.0) - 2.0), to1);
    }
    w
}

/// FLOPs per `(n1, my_igp, ig)` iteration (see the module docs).
pub const FLOPS_PER_ITERATION: u64 = 45;
/// FLOPs per `(n1, my_igp)` pair: forming `sch_store1` and multiplying the sums by it.
pub const FLOPS_PER_PAIR: u64 = 34;

/// Problem size: bands `X`, `ngpown` `N`, `ncouls` `M`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// number_bands (X).
    pub bands: u64,
    /// ngpown (N).
    pub ngpown: u64,
    /// ncouls (M).
    pub ncouls: u64,
}

impl Dims {
    /// Parses `default`, `small` or `X,N,M`.
    pub fn parse(text: &str) -> Result<Dims> {
        match text {
            "default" => return Ok(DEFAULT_DIMS),
            "small" => return Ok(SMALL_DIMS),
            _ => {}
        }
        let v: Vec<u64> = text
            .split(',')
            .map(|s| s.trim().parse::<u64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| {
                Error::bad_param("size", format!("`{text}` is not default, small or X,N,M"))
            })?;
        match v[..] {
            [bands, ngpown, ncouls] if bands > 0 && ngpown > 0 && ncouls > 0 => Ok(Dims {
                bands,
                ngpown,
                ncouls,
            }),
            _ => Err(Error::bad_param(
                "size",
                format!("`{text}` needs three positive counts X,N,M"),
            )),
        }
    }

    /// `X,N,M`, as the `size` parameter gives it.
    pub fn label(&self) -> String {
        format!("{},{},{}", self.bands, self.ngpown, self.ncouls)
    }
}

choice! {
    /// The workgroup step of the sums.
    pub enum Reduction("reduction") {
        /// A shared-memory tree.
        Tree = "tree",
        /// A subgroup butterfly first (needs `SUBGROUP`).
        Subgroup = "subgroup",
        /// The tree, then f32 atomic adds of the workgroups' sums into
        /// slots (needs `SHADER_FLOAT32_ATOMIC`; f32 only).
        Atomic = "atomic",
    }
}

choice! {
    /// Loop order of the workgroup grid.
    pub enum Order("order") {
        /// Bands outer.
        Xn = "xn",
        /// ngpown outer.
        Nx = "nx",
    }
}

choice! {
    /// The inputs a case sums.
    pub enum InputSet("inputs") {
        /// Every array drawn afresh, checked against the host f64 sums.
        Random = "random",
        /// The published inputs (and at the default size the published achtemp(0)).
        Reference = "reference",
    }
}

/// One gpp case, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Problem size.
    pub dims: Dims,
    /// Workgroup step of the sums.
    pub reduction: Reduction,
    /// Loop order of the workgroup grid.
    pub order: Order,
    /// Inputs.
    pub inputs: InputSet,
    /// Workgroup size.
    pub wg: u32,
    /// Plane waves per pass-1 loop step.
    pub unroll: u32,
    /// Bands a pass-1 workgroup sums side by side, one team of `wg / share`
    /// invocations each.
    pub share: u32,
    /// Largest binding in bytes (0: the adapter's limit).
    pub chunk: u64,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every gpp result file).
    pub fn case(&self) -> Case {
        let variant = format!(
            "{}/{}/{}/wg{}/u{}/s{}",
            self.reduction, self.order, self.inputs, self.wg, self.unroll, self.share
        );
        Case::new("gpp", "noflagocc", &variant, self.precision)
            .param("size", self.dims.label())
            .param("reduction", self.reduction)
            .param("order", self.order)
            .param("inputs", self.inputs)
            .param("wg", self.wg)
            .param("unroll", self.unroll)
            .param("share", self.share)
            .param("chunk", self.chunk)
    }

    /// Terms each pass-1 invocation adds in its sums: M over its team.
    fn chain(&self) -> u64 {
        self.dims.ncouls.div_ceil(u64::from(self.wg / self.share))
    }

    /// Whether pass 1 sums its chains in blocks (see `shaders/gpp/gpp.wgsl`):
    /// above 1024 terms, or 2048 in f64, whose rounding at 2048 was a
    /// quarter of its tolerance (df64's 69%) on the published inputs. f32's
    /// blocked form also ran faster on the H100.
    fn blocked(&self) -> bool {
        let limit = match self.precision {
            Precision::F64 => 2048,
            Precision::F32 | Precision::Df64 => 1024,
        };
        self.chain() > limit
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            precision: case.precision,
            dims: Dims::parse(case.text("size"))?,
            reduction: case.choice()?,
            order: case.choice()?,
            inputs: case.choice()?,
            wg: case.u32("wg")?,
            unroll: case.u32("unroll")?,
            share: case.u32("share")?,
            chunk: case.uint("chunk")?,
        })
    }
}

/// The `gpp` app.
pub struct Gpp;

impl App for Gpp {
    fn name(&self) -> &'static str {
        "gpp"
    }

    /// The problem is the band and plane-wave counts and the inputs (the published inputs and random ones run at different speeds).
    fn problem(&self) -> &'static [&'static str] {
        &["size", "inputs"]
    }

    fn about(&self) -> &'static str {
        "BerkeleyGW GPP self-energy kernel: complex sums over bands x ngpown x ncouls x 3 frequencies"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "size",
                help: "bands,ngpown,ncouls: default (512,1638,32768), small (16,32,256), or X,N,M",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "reduction",
                help: "workgroup step: tree (shared memory), subgroup (subgroup butterfly first) or atomic (tree, then f32 atomic adds across workgroups; f32 with SHADER_FLOAT32_ATOMIC)",
                kind: ParamKind::Choice(Reduction::NAMES),
                default: "tree,subgroup",
            },
            ParamSpec {
                name: "order",
                help: "loop order of the workgroup grid: xn (bands outer) or nx (ngpown outer)",
                kind: ParamKind::Choice(Order::NAMES),
                default: "xn,nx",
            },
            ParamSpec {
                name: "inputs",
                help: "random (checked against the host f64 sums) or reference (the published inputs)",
                kind: ParamKind::Choice(InputSet::NAMES),
                default: "random,reference",
            },
            wg_param("256"),
            ParamSpec {
                name: "unroll",
                help: "plane waves per pass-1 loop step, written out (loads issued together; df64 renormalises its accumulators once a step); a comma list sweeps",
                kind: ParamKind::UInt { min: 1, max: 16 },
                // The best of f64 and df64 at wg 256 and share 16 on the
                // H100 (docs/notebook/benchmarks.md, 2026-11-26 (e)).
                default: "6",
            },
            ParamSpec {
                name: "share",
                help: "bands a pass-1 workgroup sums side by side, in teams of wg/share invocations (a power of two): the teams read the same I_eps/wtilde elements together, so L1 serves all but one; a comma list sweeps",
                kind: ParamKind::UInt { min: 1, max: 64 },
                // Every precision's best on the H100 (docs/notebook/benchmarks.md,
                // 2026-11-26 (e)); one value keeps `run all` as short as
                // before `share` (both 1 and 16 cost it 50 s there).
                default: "16",
            },
            ParamSpec {
                name: "chunk",
                help: "largest binding in bytes (0: the adapter's limit); arrays larger than it run a chunk of rows per dispatch",
                kind: ParamKind::UInt {
                    min: 0,
                    max: u64::MAX,
                },
                default: "0",
            },
        ]
    }

    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("reduction", "tree,subgroup,atomic"),
            ("share", "1,2,4,8,16,32"),
            ("wg", "64,128,256,512"),
            ("unroll", "1,2,4,6,8"),
            ("order", "xn,nx"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let d = Dims::parse(r.text("size"))?;
        check_dims(d, &r.precisions, caps)?;
        let reductions: Vec<Reduction> = r.choices();
        let wgs = r.wgs(caps)?;
        let shares: Vec<u32> = r.uints("share").into_iter().map(|u| u as u32).collect();
        for &wg in &wgs {
            for &share in &shares {
                check_wg(wg, share, &reductions, caps)?;
            }
        }
        let unrolls: Vec<u32> = r.uints("unroll").into_iter().map(|u| u as u32).collect();
        let base = Params {
            precision: Precision::F32,
            dims: d,
            reduction: Reduction::Tree,
            order: Order::Xn,
            inputs: InputSet::Random,
            wg: 1,
            unroll: 1,
            share: 1,
            chunk: r.uint("chunk"),
        };
        Ok(Grid::new(base)
            .axis(&r.precisions, |c, p| c.precision = p)
            .axis(&reductions, |c, v| c.reduction = v)
            .axis(&r.choices(), |c, v| c.order = v)
            .axis(&r.choices(), |c, v| c.inputs = v)
            .axis(&wgs, |c, v| c.wg = v)
            .axis(&unrolls, |c, v| c.unroll = v)
            .axis(&shares, |c, v| c.share = v)
            .points()
            .iter()
            .map(Params::case)
            .collect())
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(gpu::GppGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        let c = Params {
            precision: p,
            dims: DEFAULT_DIMS,
            reduction: Reduction::Tree,
            order: Order::Xn,
            inputs: InputSet::Random,
            wg: 256,
            unroll: 8,
            share: 1,
            chunk: 0,
        };
        let mut specs = vec![
            spec(&c, false),
            spec(
                &Params {
                    reduction: Reduction::Subgroup,
                    order: Order::Nx,
                    // Teams of 4: chains of 8192 terms, so the blocked form.
                    share: 64,
                    ..c
                },
                true,
            ),
        ];
        if p == Precision::F32 {
            let atomic = Params {
                reduction: Reduction::Atomic,
                share: 2,
                ..c
            };
            specs.push(spec(&atomic, true));
        }
        specs
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        let cpu = Params::try_from(case).map(|p| reference::GppCpu::new(&p));
        Some(cpu.map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// `d` against the index width and the adapter: every index the kernel
/// forms (2 * row * M + ...) is a u32, the workgroup grid is X x N, and
/// arrays over the binding limit run in chunks of rows, but one row (M
/// complex) must fit a binding and each array one buffer.
fn check_dims(d: Dims, precisions: &[Precision], caps: &Capabilities) -> Result<()> {
    let elems = 2 * d.ncouls * d.bands.max(d.ngpown);
    if elems > u32::MAX as u64 || 6 * d.bands * d.ngpown > u32::MAX as u64 {
        return Err(Error::bad_param(
            "size",
            "more than 2^32 - 1 reals per array",
        ));
    }
    let max_dim = caps.max_workgroups_per_dim as u64;
    if d.bands > max_dim || d.ngpown > max_dim {
        return Err(Error::OverLimit {
            limit: "max_compute_workgroups_per_dimension",
            needed: d.bands.max(d.ngpown),
            max: max_dim,
        });
    }
    for p in precisions {
        check_binding(d.ncouls * 2 * p.real_bytes(), caps)?;
        let largest = d.ngpown.max(d.bands) * d.ncouls * 2 * p.real_bytes();
        if largest > caps.max_buffer {
            return Err(Error::OverLimit {
                limit: "max_buffer_size",
                needed: largest,
                max: caps.max_buffer,
            });
        }
    }
    Ok(())
}

/// `wg` and `share` against the reductions: the tree needs a power of two
/// and teams of a power of two, the subgroup reduction a workgroup of whole
/// subgroups (a team may be part of one).
fn check_wg(wg: u32, share: u32, reductions: &[Reduction], caps: &Capabilities) -> Result<()> {
    if !wg.is_power_of_two() {
        return Err(Error::bad_param(
            "wg",
            format!("the tree needs a power-of-two workgroup size, not {wg}"),
        ));
    }
    if !share.is_power_of_two() || share > wg {
        return Err(Error::bad_param(
            "share",
            format!("{share} must be a power of two no larger than wg ({wg})"),
        ));
    }
    if reductions.contains(&Reduction::Subgroup) && caps.subgroups && wg < caps.subgroup_size.1 {
        return Err(Error::bad_param(
            "wg",
            format!(
                "the subgroup reduction needs whole subgroups: wg >= {}",
                caps.subgroup_size.1
            ),
        ));
    }
    Ok(())
}

/// The module for a case (the subgroup reduction adds its entry point to
/// the tree module; the atomic one stores partials differently). `ragged`:
/// some chunk's band count is not a multiple of `share`, so the last
/// workgroup's teams test whether their band exists.
fn spec(c: &Params, ragged: bool) -> ShaderSpec {
    let base = |src: &'static str| {
        ShaderSpec::new(format!("gpp/{}", c.reduction), src, c.precision)
            .with_u32("WG", c.wg)
            .with_u32("UNROLL", c.unroll)
            .with_u32("SHARE", c.share)
            .with("RAGGED", ConstValue::Bool(ragged))
            .with("BLOCKED", ConstValue::Bool(c.blocked()))
            .with("XN", ConstValue::Bool(c.order == Order::Xn))
    };
    match c.reduction {
        Reduction::Subgroup => base(SUBGROUP_SOURCE)
            .with_include(SOURCE)
            .with_include(PARTIALS_SOURCE)
            .with_subgroups(true),
        Reduction::Atomic => base(SOURCE)
            .with_include(ATOMIC_SOURCE)
            .with_u32("ATOMIC_SLOTS", ATOMIC_SLOTS)
            .with_float32_atomics(),
        Reduction::Tree => base(SOURCE).with_include(PARTIALS_SOURCE),
    }
    .with_include(unrolled_block(c.unroll))
}

/// WGSL for `gpp_block`, the `unroll` plane waves of one pass-1 loop step
/// written out. Written as a loop, NVIDIA's compiler unrolls it for f64 but
/// leaves df64's (a ~300-instruction body) rolled, so no load of a later
/// plane wave could be issued before the earlier ones' arithmetic.
fn unrolled_block(unroll: u32) -> String {
    let steps: String = (0..unroll)
        .map(|j| format!("    gpp_step(acc, k + {j}u * LANES, wx);\n"))
        .collect();
    format!("fn gpp_block(acc: ptr<function, Acc3>, k: u32, wx: Real3) {{\n{steps}}}\n")
}
