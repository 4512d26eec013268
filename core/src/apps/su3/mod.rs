//! `su3`: the su3_bench mini-app (MILC's SU(3) matrix-matrix kernel). An L^4
//! lattice where every site holds 4 links, each a 3x3 complex matrix; the
//! kernel computes `C[i].link[j] = A[i].link[j] * B[j]` for every site i and
//! link j. Thread mappings (`site`, `link`, `row`, `element`, `pair`, and on
//! soa `row-vector`), data layouts (`aos-milc`, `aos`, `soa`) and the
//! workgroup size are swept; one WGSL source serves every mapping but
//! `row-vector`, which has its own, and both share the products.

use std::sync::OnceLock;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Validation, wg_param,
};
use crate::apps::blocks;
use crate::apps::common::{fresh_rng, parse_size, quantize, random_reals};
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::parallel;
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

mod fit;
mod gpu;
mod model;
#[cfg(test)]
mod tests;

use model::{issued_bytes, model};

const SOURCE: &str = include_str!("../../../../shaders/su3/su3.wgsl");
/// A and C of the array-of-structs layouts, one vector per complex element.
const PAIRS: &str = include_str!("../../../../shaders/su3/pairs.wgsl");
/// A and C of the soa layout, two reals per complex element.
const SPLIT: &str = include_str!("../../../../shaders/su3/split.wgsl");
/// B and the products every mapping shares.
const PRODUCTS: &str = include_str!("../../../../shaders/su3/products.wgsl");
/// The `row-vector` mapping's module (soa, 16-byte vectors of sites).
const VECTOR: &str = include_str!("../../../../shaders/su3/vector.wgsl");

choice! {
    /// Thread mappings, named as the entry points of `shaders/su3/su3.wgsl`
    /// (`row-vector` is `row_vector` of `shaders/su3/vector.wgsl`): the
    /// `variant` parameter, `mapping` in records and as an alias.
    pub enum Mapping("variant") {
        /// One invocation per site (its 4 links).
        Site = "site",
        /// One invocation per link (9 outputs).
        Link = "link",
        /// One invocation per row of a link (3 outputs): each element of A
        /// is loaded by one invocation, and a subgroup's loads and stores
        /// cover one contiguous run of the site structs.
        Row = "row",
        /// One invocation per output element.
        Element = "element",
        /// One invocation per two output elements, the same element of a
        /// site in each half of the lattice.
        Pair = "pair",
        /// soa only: one invocation per row of a link at the consecutive
        /// sites of one 16-byte vector (4 in f32, 2 in f64 and df64), so
        /// each real component moves as one vector.
        RowVector = "row-vector",
    }
}

impl Mapping {
    /// Invocations over `sites` lattice sites in precision `p`.
    fn invocations(self, sites: u64, p: Precision) -> u64 {
        match self {
            Mapping::Site => sites,
            Mapping::Link => 4 * sites,
            Mapping::Row => 12 * sites,
            Mapping::Element => 36 * sites,
            Mapping::Pair => 18 * sites,
            Mapping::RowVector => 12 * sites / vector_sites(p),
        }
    }

    /// The mapping's entry point.
    fn entry(self) -> &'static str {
        match self {
            Mapping::RowVector => "row_vector",
            m => m.name(),
        }
    }

    /// Whether the mapping runs on `layout` over `sites` sites.
    fn fits(self, layout: Layout, sites: u64) -> bool {
        self != Mapping::RowVector
            || (layout == Layout::Soa && sites.is_multiple_of(MAX_VECTOR_SITES))
    }
}

/// Sites of one 16-byte vector of reals (`RV_LANES` of the prelude).
fn vector_sites(p: Precision) -> u64 {
    16 / p.real_bytes()
}

/// The most sites a vector holds (f32's 4): `row-vector` needs a multiple.
const MAX_VECTOR_SITES: u64 = 4;

choice! {
    /// Data layouts, in the order of the shader's `LAYOUT` constant.
    pub enum Layout("layout") {
        /// MILC's site struct: the links, then coordinates, index and
        /// parity, padded to 64 bytes.
        AosMilc = "aos-milc",
        /// The links of a site together, no padding.
        Aos = "aos",
        /// Each real component of every site contiguous.
        Soa = "soa",
    }
}

/// Reals in one site's 4 links (4 x 9 complex).
pub const SITE_REALS: usize = 72;

/// Reals one MILC site struct occupies: the links plus x, y, z, t, index,
/// parity, padded to 64 bytes (320 bytes in f32, 640 in f64 and df64).
const MILC_SITE_REALS: usize = 80;

/// FLOPs per site as su3_bench counts them: 36 complex dot products of
/// length 3, 24 FLOPs each.
const FLOPS_PER_SITE: f64 = 864.0;

/// Default lattice extent (32^4 = 1,048,576 sites), as in su3_bench.
const DEFAULT_L: u64 = 32;

/// The `small` preset: 8^4 = 4096 sites, for CI.
const SMALL_L: u64 = 8;

/// How a prepared case fills A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Fresh random entries in [-1, 1): catches indexing errors a constant hides.
    Random,
    /// su3_bench's own initialisation: every element of A is (1, 0) and of B
    /// (1/3, 0), so every element of C is (1, 0) and one site's checksum is 36.
    Reference,
}

/// One su3 case, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Thread mapping.
    pub mapping: Mapping,
    /// Data layout.
    pub layout: Layout,
    /// Workgroup size.
    pub wg: u32,
    /// Lattice extent L.
    pub l: u64,
    /// Lattice sites, L^4.
    pub sites: u64,
    /// The most KiB one block of A or C may hold (0: the adapter's limit).
    pub buffer_kib: u64,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every su3 result file).
    pub fn case(&self) -> Case {
        let mut variant = format!("{}/{}/wg{}", self.mapping, self.layout, self.wg);
        // Cases at the adapter's limit keep the labels and parameters
        // earlier records have.
        if self.buffer_kib > 0 {
            variant.push_str(&format!("/buffer{}KiB", self.buffer_kib));
        }
        let case = Case::new("su3", "mat-mul", &variant, self.precision)
            .param("mapping", self.mapping)
            .param("layout", self.layout)
            .param("wg", self.wg)
            .param("L", self.l)
            .param("sites", self.sites);
        match self.buffer_kib {
            0 => case,
            kib => case.param(blocks::BUFFER_PARAM, kib),
        }
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            precision: case.precision,
            mapping: case.choice_at("mapping")?,
            layout: case.choice()?,
            wg: case.u32("wg")?,
            l: case.uint("L")?,
            sites: case.uint("sites")?,
            buffer_kib: match case.text(blocks::BUFFER_PARAM) {
                "" => 0,
                _ => case.uint(blocks::BUFFER_PARAM)?,
            },
        })
    }
}

/// Where the reals of one site live in a buffer of a given layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Strides {
    /// The layout (the shader's `LAYOUT` is its position).
    layout: Layout,
    /// Reals from one site to the next.
    site_stride: u64,
    /// Reals from one component of a site to the next.
    comp_stride: u64,
    /// Reals in the whole buffer.
    reals: u64,
    /// Lattice sites.
    sites: u64,
}

impl Strides {
    fn new(layout: Layout, sites: u64) -> Strides {
        let s = SITE_REALS as u64;
        let (site_stride, comp_stride, site_reals) = match layout {
            Layout::AosMilc => (MILC_SITE_REALS as u64, 1, MILC_SITE_REALS as u64),
            Layout::Aos => (s, 1, s),
            Layout::Soa => (1, sites, s),
        };
        Strides {
            layout,
            site_stride,
            comp_stride,
            reals: sites * site_reals,
            sites,
        }
    }

    /// The site and component stored at buffer index `j` (`None` for
    /// MILC's padding): the inverse of [`Strides::index`].
    fn slot(&self, j: usize) -> Option<(usize, usize)> {
        let (s, comp) = if self.comp_stride == 1 {
            (j / self.site_stride as usize, j % self.site_stride as usize)
        } else {
            (j % self.comp_stride as usize, j / self.comp_stride as usize)
        };
        (comp < SITE_REALS).then_some((s, comp))
    }

    /// Buffer index of component `comp` of site `s` (the shader's `at`).
    fn index(&self, s: usize, comp: usize) -> usize {
        s * self.site_stride as usize + comp * self.comp_stride as usize
    }

    /// Bytes per site read from A or written to C (padding included).
    fn site_bytes(&self, p: Precision) -> u64 {
        self.reals / self.sites.max(1) * p.real_bytes()
    }
}

/// The `su3` app.
pub struct Su3;

impl App for Su3 {
    fn name(&self) -> &'static str {
        "su3"
    }

    /// The problem is the lattice size.
    fn problem(&self) -> &'static [&'static str] {
        &["L"]
    }

    /// The reference multiplies the matrices of each site: mappings, layouts and workgroup sizes are the GPU's.
    fn cpu_params(&self) -> &'static [&'static str] {
        &["sites"]
    }

    /// `mapping`, the parameter's first name (and its name in records).
    fn aliases(&self) -> &'static [(&'static str, &'static str)] {
        &[("mapping", "variant")]
    }

    fn about(&self) -> &'static str {
        "su3_bench: SU(3) link matrix products on an L^4 lattice (MILC), over thread mappings and data layouts"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: Mapping::PARAM,
                help: "thread mapping: one thread per site (4 links), per link (9 outputs), per row of a link (3 outputs), per output element, per pair of elements in the two halves of the lattice, or (soa only) per row of a link at the sites of one 16-byte vector (also `mapping`)",
                kind: ParamKind::Choice(Mapping::NAMES),
                default: "site,link,row,element,pair,row-vector",
            },
            ParamSpec {
                name: Layout::PARAM,
                help: "aos-milc (padded MILC site struct), aos (links only), soa (each real component contiguous)",
                kind: ParamKind::Choice(Layout::NAMES),
                default: "aos-milc,aos,soa",
            },
            wg_param("128"),
            ParamSpec {
                name: "size",
                help: "lattice extent L (L^4 sites): default (32), small (8), or a number up to what the device's and the host's memory hold (A and C past a binding are split over buffers by blocks of sites)",
                kind: ParamKind::Text,
                default: "default",
            },
            blocks::buffer_param(),
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        // The seed's threads-per-block table.
        vec![("wg", "32,36,64,72,128,256")]
    }

    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("variant", "site,link,row,element,pair,row-vector"),
            ("layout", "aos-milc,aos,soa"),
            ("wg", "32,64,128,256,512"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let l = parse_size(
            "size",
            r.text("size"),
            &[("default", DEFAULT_L), ("small", SMALL_L)],
        )?;
        // Blocks of sites keep the shader's u32 indices in range; the
        // lattice's own size is bounded by the device's memory (`fit`,
        // which refuses an L past `fit::MAX_L` before counting its sites).
        let sites = l.min(fit::MAX_L).pow(4);
        let base = Params {
            precision: Precision::F32,
            mapping: Mapping::Site,
            layout: Layout::AosMilc,
            wg: 1,
            l,
            sites,
            buffer_kib: blocks::parse_buffer_kib(r.text(blocks::BUFFER_PARAM))?,
        };
        let mappings: Vec<Mapping> = r.choices();
        let layouts: Vec<Layout> = r.choices();
        // row-vector joins a sweep where it fits; asked for alone, it must.
        if mappings == [Mapping::RowVector]
            && !layouts.iter().any(|&l| Mapping::RowVector.fits(l, sites))
        {
            return Err(Error::bad_param(
                "mapping",
                "row-vector runs on the soa layout over a multiple of 4 sites (an even L)",
            ));
        }
        let points = Grid::new(base)
            .axis(&r.precisions, |c, p| c.precision = p)
            .axis(&mappings, |c, m| c.mapping = m)
            .axis(&layouts, |c, l| c.layout = l)
            .axis(&r.wgs(caps)?, |c, wg| c.wg = wg)
            .points();
        let mut cases = Vec::new();
        for c in points.iter().filter(|c| c.mapping.fits(c.layout, c.sites)) {
            fit::fits(c, caps)?;
            cases.push(c.case());
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        prepare_with(gpu, case, Init::Random)
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        // The module is the same for every mapping; one spec per layout
        // checks each constant set, and the naga test covers every entry point.
        Layout::ALL
            .iter()
            .map(|&layout| spec(p, 128, &Strides::new(layout, 4096), Mapping::Row))
            .chain([spec(
                p,
                128,
                &Strides::new(Layout::Soa, 4096),
                Mapping::RowVector,
            )])
            .collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        Some(prepare_cpu_with(case, Init::Random))
    }
}

/// Prepares `case` on `gpu` with inputs filled as `init` says. The runner
/// uses [`Init::Random`]; tests use [`Init::Reference`] to check su3_bench's
/// checksum of 36 through the same kernel and buffers.
pub fn prepare_with(gpu: &Gpu, case: &Case, init: Init) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(gpu::Su3Gpu::new(
        gpu,
        &Params::try_from(case)?,
        init,
    )?))
}

/// The CPU reference of `case` with inputs filled as `init` says (f64).
pub fn prepare_cpu_with(case: &Case, init: Init) -> Result<Box<dyn CpuKernel>> {
    Ok(Box::new(Su3Cpu::new(&Params::try_from(case)?, init)))
}

/// The module of `mapping` on one layout: every mapping but `row-vector`
/// is an entry point of one module per layout; `row-vector` has its own.
fn spec(p: Precision, wg: u32, strides: &Strides, mapping: Mapping) -> ShaderSpec {
    if mapping == Mapping::RowVector {
        return ShaderSpec::new("su3/soa-vector", VECTOR, p)
            .with_u32("WG", wg)
            .with_u32("SITES", strides.sites as u32)
            .with_include(PRODUCTS)
            .with_include(sources::GRID);
    }
    let id = Layout::ALL
        .iter()
        .position(|l| *l == strides.layout)
        .unwrap_or(0);
    ShaderSpec::new(format!("su3/{}", strides.layout), SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("SITES", strides.sites as u32)
        .with_u32("LAYOUT", id as u32)
        .with_u32("SITE_STRIDE", strides.site_stride as u32)
        .with_u32("COMP_STRIDE", strides.comp_stride as u32)
        .with_include(if strides.comp_stride == 1 {
            PAIRS
        } else {
            SPLIT
        })
        .with_include(PRODUCTS)
        .with_include(sources::GRID)
}

/// Host copies of the inputs, in the logical order (72 reals per site, the
/// shader's component numbering), already rounded to the case's precision.
struct Inputs {
    sites: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    /// C = A x B, computed on first use and kept for every variant sharing
    /// these inputs.
    want: OnceLock<Vec<f64>>,
}

impl Inputs {
    fn new(sites: usize, p: Precision, init: Init) -> Inputs {
        match init {
            Init::Random => {
                let mut rng = fresh_rng();
                Inputs {
                    sites,
                    a: random_reals(&mut rng, sites * SITE_REALS, -1.0, 1.0, p),
                    b: random_reals(&mut rng, SITE_REALS, -1.0, 1.0, p),
                    want: OnceLock::new(),
                }
            }
            Init::Reference => {
                // Real parts (even components) set, imaginary parts zero.
                let fill = |v: f64, n: usize| -> Vec<f64> {
                    (0..n).map(|i| if i % 2 == 0 { v } else { 0.0 }).collect()
                };
                Inputs {
                    sites,
                    a: fill(1.0, sites * SITE_REALS),
                    b: quantize(p, &fill(1.0 / 3.0, SITE_REALS)),
                    want: OnceLock::new(),
                }
            }
        }
    }

    /// Component `comp` of site `s` of C = A x B, in f64.
    fn product(&self, s: usize, comp: usize) -> f64 {
        let e = comp / 2;
        let (link, row, col) = (e / 9, (e % 9) / 3, e % 3);
        let a = &self.a[s * SITE_REALS + link * 18 + row * 6..];
        let b = &self.b[link * 18 + col * 2..];
        let (mut re, mut im) = (0.0, 0.0);
        for k in 0..3 {
            let (ar, ai) = (a[2 * k], a[2 * k + 1]);
            let (br, bi) = (b[6 * k], b[6 * k + 1]);
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
        }
        if comp.is_multiple_of(2) { re } else { im }
    }

    /// C in the logical order.
    fn expected(&self) -> &[f64] {
        self.want.get_or_init(|| {
            parallel::par_map(self.sites * SITE_REALS, |i| {
                self.product(i / SITE_REALS, i % SITE_REALS)
            })
        })
    }
}

/// Sum of the real parts of site 0's 36 outputs: su3_bench's checksum (36
/// for the reference initialisation).
fn checksum(c: &[f64]) -> f64 {
    c[..SITE_REALS].iter().step_by(2).sum()
}

/// Relative tolerance per element against a floor of 1 (random entries can
/// cancel): a length-3 complex dot product of entries below 1 in magnitude
/// rounds far inside these.
fn tolerance(p: Precision) -> f64 {
    match p {
        Precision::F32 => 1e-5,
        Precision::F64 | Precision::Df64 => 1e-12,
    }
}

/// Checks C (`got` of each logical index) against the f64 reference, and
/// for the reference initialisation also su3_bench's checksum of 36.
fn check(
    inputs: &Inputs,
    got: impl Fn(usize) -> f64 + Sync + Send,
    p: Precision,
    init: Init,
) -> Validation {
    let tol = tolerance(p);
    let want = inputs.expected();
    let what = "C = A x B vs f64 reference";
    let mut v = Validation::compare_by(want.len(), &got, |i| want[i], tol, 1.0, what);
    if init == Init::Reference && want.len() >= SITE_REALS {
        let site0: Vec<f64> = (0..SITE_REALS).map(&got).collect();
        v = v.and(Validation::compare(
            &[checksum(&site0)],
            &[36.0],
            tol,
            1.0,
            "reference-init checksum (36)",
        ));
    }
    v
}

/// The same product on the CPU in f64 (rayon), in the logical layout.
struct Su3Cpu {
    init: Init,
    layout: Strides,
    inputs: Inputs,
    c: Vec<f64>,
}

impl Su3Cpu {
    fn new(params: &Params, init: Init) -> Su3Cpu {
        // The model still counts the traffic of the case's layout.
        let layout = Strides::new(params.layout, params.sites);
        let inputs = Inputs::new(params.sites as usize, Precision::F64, init);
        Su3Cpu {
            init,
            layout,
            c: vec![f64::NAN; inputs.a.len()],
            inputs,
        }
    }
}

impl CpuKernel for Su3Cpu {
    fn run(&mut self) {
        let inputs = &self.inputs;
        parallel::fill(&mut self.c, |i| {
            inputs.product(i / SITE_REALS, i % SITE_REALS)
        });
    }

    fn validate(&self) -> Validation {
        check(&self.inputs, |i| self.c[i], Precision::F64, self.init)
    }

    fn model(&self) -> Model {
        model(self.inputs.sites as u64, &self.layout, Precision::F64)
    }
}
