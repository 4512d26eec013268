//! `milc`: the UEABS MILC benchmark's inner loop (the targetDP paper's
//! second application): the Wilson-Dirac operator on an L^3 x T lattice
//! with random SU(3) links, and conjugate gradient on the normal equations,
//! with MILC's kernel split. The operator (see [`wilson`]) is
//!
//! `M = 1 - kappa D`, `D psi(x) = sum_mu [(1 - gamma_mu) U_mu(x) psi(x + mu) + (1 + gamma_mu) U_mu^dagger(x - mu) psi(x - mu)]`,
//!
//! gamma matrices in the DeGrand-Rossi basis, periodic boundaries. One
//! application of `D` (`dslash`) is five kernels, as MILC's
//! `dslash_w_site` runs it: `extract` (project psi to the forward half
//! spinors), `extract-mul` (project to the backward ones and multiply by
//! `U^dagger`), `shift` (gather from the 8 neighbours), `insert-mul`
//! (multiply by `U`, rebuild the spinors, sum) and `insert` (rebuild the
//! backward ones and add); `dslash-fused` is the same operator in one
//! kernel. `axpy` is the scalar multiply-add, `dot` the deterministic
//! reduction, and `cg` solves `M^dagger M x = M^dagger b` with every
//! scalar kept on the GPU (see [`cg`]: M in one pass with the `fused`
//! operator, each norm reduced by the pass that writes its field, x and p
//! updated together). Every field goes through targetDP's index
//! function, so one kernel source serves every layout and virtual vector
//! length, with a complex's parts as two reals of the layout or side by
//! side (`complex=pairs`: one vector load a complex, as CUDA's `float2`).

mod access;
mod cg;
pub mod codegen;
pub mod dist;
mod fit;
mod gpu;
mod links;
mod model;
mod problem;
mod program;
mod reference;
mod spin;
#[cfg(test)]
mod tests;
pub mod wilson;

use std::collections::BTreeMap;

use crate::app::{App, Case, CpuKernel, Kernel, ParamKind, ParamSpec, Request, wg_param};
use crate::apps::blocks;
use crate::choice;
use crate::error::{Error, Result};
use crate::gpu::{Capabilities, Gpu};
use crate::layout::{self, Layout, LayoutName};
use crate::params::{Choice, Grid, Resolved};
use crate::precision::Precision;
use crate::scale::Part;
use crate::shader::ShaderSpec;
pub use links::Reconstruct;
pub use model::per_site;
use model::{case_issued, case_model};
use problem::{
    KAPPA, default_tol, indexed_sites, order_param, orders, parse_lattice, parse_number,
};
use wilson::{LINKS, SPINOR};

choice! {
    /// Kernels: the split of one Dslash, the scalar ones of CG, the whole
    /// operator and the solve.
    pub enum KernelName("kernel") {
        /// Project psi to the forward half spinors.
        Extract = "extract",
        /// Project to the backward ones and multiply by U^dagger.
        ExtractMul = "extract-mul",
        /// Gather from the 8 neighbours.
        Shift = "shift",
        /// Multiply by U, rebuild the spinors, sum.
        InsertMul = "insert-mul",
        /// Rebuild the backward ones and add.
        Insert = "insert",
        /// The scalar multiply-add.
        Axpy = "axpy",
        /// The deterministic reduction, `Re <a, b>`.
        Dot = "dot",
        /// The five split kernels.
        Dslash = "dslash",
        /// The operator in one kernel.
        DslashFused = "dslash-fused",
        /// The solve.
        Cg = "cg",
    }
}

impl KernelName {
    /// Whether the kernel reads the links (and so has a `reconstruct`).
    pub fn reads_links(self) -> bool {
        matches!(
            self,
            KernelName::ExtractMul
                | KernelName::InsertMul
                | KernelName::Dslash
                | KernelName::DslashFused
                | KernelName::Cg
        )
    }

    /// Whether the kernel's result depends on the sign (it projects or
    /// rebuilds spinors).
    pub fn signed(self) -> bool {
        matches!(
            self,
            KernelName::Extract
                | KernelName::ExtractMul
                | KernelName::InsertMul
                | KernelName::Insert
                | KernelName::Dslash
                | KernelName::DslashFused
        )
    }
}

choice! {
    /// How CG applies M = 1 - kappa D.
    pub enum Operator("operator") {
        /// MILC's five split kernels, then a multiply-add.
        Split = "split",
        /// One kernel (D's hopping sum as `dslash-fused` and the site's own spinor).
        Fused = "fused",
    }
}

choice! {
    /// How the fields hold a complex number's two parts.
    pub enum Parts("complex") {
        /// As two reals of the layout, each in its own short array (targetDP's way).
        Split = "split",
        /// Side by side, so the operator kernels move a complex as one
        /// vector (the CUDA port's `float2` fields).
        Pairs = "pairs",
    }
}

impl Parts {
    /// Reals per element of the layout's short arrays.
    pub fn width(self) -> u32 {
        match self {
            Parts::Split => 1,
            Parts::Pairs => 2,
        }
    }
}

choice! {
    /// MILC's `isign`.
    pub enum Sign("sign") {
        /// D.
        Plus = "plus",
        /// D^dagger (gamma_mu negated).
        Minus = "minus",
    }
}

/// One milc case, typed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Arithmetic.
    pub precision: Precision,
    /// Kernel.
    pub kernel: KernelName,
    /// Field layout.
    pub layout: LayoutName,
    /// How a complex's parts lie in the layout.
    pub complex: Parts,
    /// Virtual vector length (sites per invocation).
    pub vvl: u32,
    /// Workgroup size.
    pub wg: u32,
    /// The one-pass operator's dispatch order (`scale::Part::ordered`):
    /// blocks of this many y rows, z rows and t planes (x rows whole), ...
    pub block: [u32; 3],
    /// ... and this many t planes' blocks together; [1, 1, 1] and 1 (storage
    /// order) for every other kernel.
    pub tile: u32,
    /// How a solve applies M (split for every other kernel).
    pub operator: Operator,
    /// How the kernels that read links hold them (resolved, never `Auto`;
    /// `Full` for the kernels without links).
    pub reconstruct: Reconstruct,
    /// D or D^dagger (plus for the kernels without a sign).
    pub sign: Sign,
    /// Spatial extent L.
    pub l: u64,
    /// Time extent T.
    pub t: u64,
    /// Lattice sites, L^3 x T.
    pub sites: u64,
    /// Hopping parameter.
    pub kappa: f64,
    /// CG tolerance.
    pub tol: f64,
    /// CG iterations recorded per solve.
    pub iterations: u64,
    /// The most KiB one buffer of a field may hold (0: the adapter's limit).
    pub buffer_kib: u64,
}

impl Params {
    /// The case these parameters describe (its variant label and record
    /// parameters are those of every milc result file).
    pub fn case(&self) -> Case {
        let mut variant = format!("{}/vvl{}/wg{}", self.layout, self.vvl, self.wg);
        if self.complex != Parts::Split {
            variant.push_str(&format!("/{}", self.complex));
        }
        if self.block != [1, 1, 1] || self.tile > self.block[2] {
            let [y, z, t] = self.block;
            variant.push_str(&format!("/block{y}x{z}x{t}/tile{}", self.tile));
        }
        if self.operator != Operator::Split {
            variant.push_str(&format!("/{}", self.operator));
        }
        if self.reconstruct != Reconstruct::Full {
            variant.push_str(&format!("/r{}", self.reconstruct));
        }
        if self.sign != Sign::Plus {
            variant.push_str(&format!("/{}", self.sign));
        }
        if self.buffer_kib > 0 {
            variant.push_str(&format!("/buffer{}KiB", self.buffer_kib));
        }
        let case = Case::new("milc", self.kernel.name(), &variant, self.precision)
            .param("layout", self.layout)
            .param("complex", self.complex)
            .param("vvl", self.vvl)
            .param("wg", self.wg)
            .param("block-y", self.block[0])
            .param("block-z", self.block[1])
            .param("block-t", self.block[2])
            .param("tile-t", self.tile)
            .param("operator", self.operator)
            .param("reconstruct", self.reconstruct)
            .param("sign", self.sign)
            .param("L", self.l)
            .param("T", self.t)
            .param("sites", self.sites)
            .param("kappa", self.kappa)
            .param("tol", self.tol)
            .param("iterations", self.iterations);
        match self.buffer_kib {
            0 => case,
            kib => case.param(blocks::BUFFER_PARAM, kib),
        }
    }
}

impl Params {
    /// Whether the case dispatches the one-pass operator (whose dispatch
    /// order `block` and `tile` set).
    pub fn one_pass(&self) -> bool {
        self.kernel == KernelName::DslashFused
            || (self.kernel == KernelName::Cg && self.operator == Operator::Fused)
    }

    /// `part` in the case's dispatch order (x rows of L sites).
    pub fn ordered(&self, part: Part) -> Part {
        part.ordered(self.l as u32, self.block, self.tile)
    }
}

impl TryFrom<&Case> for Params {
    type Error = Error;

    fn try_from(case: &Case) -> Result<Params> {
        Ok(Params {
            precision: case.precision,
            kernel: case.kernel_as()?,
            layout: case.choice()?,
            complex: case.choice()?,
            vvl: case.u32("vvl")?,
            wg: case.u32("wg")?,
            block: [
                case.u32("block-y")?,
                case.u32("block-z")?,
                case.u32("block-t")?,
            ],
            tile: case.u32("tile-t")?,
            operator: case.choice()?,
            reconstruct: case.choice()?,
            sign: case.choice()?,
            l: case.uint("L")?,
            t: case.uint("T")?,
            sites: case.uint("sites")?,
            kappa: parse_number("kappa", case.text("kappa"))?,
            tol: parse_number("tol", case.text("tol"))?,
            iterations: case.uint("iterations")?,
            buffer_kib: match case.text(blocks::BUFFER_PARAM) {
                "" => 0,
                _ => case.uint(blocks::BUFFER_PARAM)?,
            },
        })
    }
}

/// The `milc` app.
pub struct Milc;

impl App for Milc {
    fn name(&self) -> &'static str {
        "milc"
    }

    /// The problem is the lattice size.
    fn problem(&self) -> &'static [&'static str] {
        &["L", "T"]
    }

    /// The reference has one form of each kernel: layouts, vector lengths,
    /// workgroup sizes and `operator` (a solve's split or fused D) are the GPU's.
    fn cpu_params(&self) -> &'static [&'static str] {
        &["sites", "sign", "kappa", "tol", "iterations"]
    }

    fn about(&self) -> &'static str {
        "MILC Wilson-Dirac operator (extract, shift, insert split) and CG on the normal equations over targetDP layouts and vector lengths"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "extract, extract-mul, shift, insert-mul, insert (MILC's Dslash split), axpy, dot, dslash (the five split kernels), dslash-fused (one kernel), cg (the solve)",
                kind: ParamKind::Choice(KernelName::NAMES),
                default: "extract,extract-mul,shift,insert-mul,insert,axpy,dot,dslash,dslash-fused,cg",
            },
            layout::layout_param("soa"),
            ParamSpec {
                name: "complex",
                help: "how fields hold a complex: split (re and im as separate reals of the layout, as targetDP) or pairs (adjacent, one vector load: the CUDA port's layout); a comma list sweeps",
                kind: ParamKind::Choice(Parts::NAMES),
                default: "split",
            },
            layout::vvl_param(),
            wg_param("128"),
            order_param(
                "block-y",
                "dslash-fused and cg's fused operator run the lattice in blocks of whole x rows by this many y rows by block-z z rows by block-t t planes, so a block's neighbours meet in L1 (each cut to a divisor of its extent; a block gains where a workgroup holds it, e.g. 256 sites at L = 32 with wg 256 or more); a comma list sweeps",
                "2",
            ),
            order_param(
                "block-z",
                "z rows of that block (see block-y); a comma list sweeps",
                "2",
            ),
            order_param(
                "block-t",
                "t planes of that block (see block-y); a comma list sweeps",
                "2",
            ),
            order_param(
                "tile-t",
                "t planes whose blocks run before the next blocks along y and z, so a site's t neighbours are still in L2 (cut to a multiple of block-t dividing T); block 1x1x1 with tile-t 1 is storage order; a comma list sweeps",
                "4",
            ),
            ParamSpec {
                name: "size",
                help: "lattice L^3 x T: default (32^3 x 64), small (4^3 x 8), L (T = 2L) or LxT",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "kappa",
                help: "hopping parameter of M = 1 - kappa D, in (0, 0.125)",
                kind: ParamKind::Text,
                default: KAPPA,
            },
            ParamSpec {
                name: "tol",
                help: "CG tolerance |r| / |r0| on the normal equations: auto (1e-6 in f32, 1e-12 in f64 and df64) or a number",
                kind: ParamKind::Text,
                default: "auto",
            },
            ParamSpec {
                name: "sign",
                help: "plus applies D, minus D^dagger (MILC's isign), for the split kernels and both dslash; a comma list sweeps",
                kind: ParamKind::Choice(Sign::NAMES),
                default: "plus",
            },
            ParamSpec {
                name: "operator",
                help: "how cg applies M = 1 - kappa D: split (MILC's five Dslash kernels, then a multiply-add) or fused (one kernel); a comma list sweeps",
                kind: ParamKind::Choice(Operator::NAMES),
                default: "split",
            },
            ParamSpec {
                name: "reconstruct",
                help: "how the kernels that read links hold them: 18 (whole) or 12 (the first two rows, the third rebuilt: a third less link traffic, 42 FLOPs more a link); auto is 12 in f32 and f64, 18 in df64; a comma list sweeps",
                kind: ParamKind::Choice(Reconstruct::NAMES),
                default: "auto",
            },
            ParamSpec {
                name: "iterations",
                help: "CG iterations recorded per solve (the solve freezes once converged; not converging within them fails)",
                kind: ParamKind::UInt {
                    min: 1,
                    max: 10_000,
                },
                default: "100",
            },
            blocks::buffer_param(),
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        layout::sweep_defaults()
    }

    /// The published best (aosoa-32, wg 512, pairs, fused) is in the space.
    fn tunable(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("operator", "split,fused"),
            ("layout", layout::ALL_LAYOUTS),
            ("wg", "64,128,256,512,1024"),
            ("complex", "split,pairs"),
            ("vvl", "1,2,4"),
            ("reconstruct", "18,12"),
            ("block-y", "1,2,4"),
            ("block-z", "1,2,4"),
            ("block-t", "1,2,4"),
            ("tile-t", "1,2,4,8"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let (l, t) = parse_lattice(r.text("size"))?;
        let sites = indexed_sites(l, t).ok_or_else(|| {
            let largest = match blocks::largest_fitting(l, |l| indexed_sites(l, t).is_some()) {
                0 => "no L fits".to_string(),
                l => format!("the largest that fits is L = {l}"),
            };
            Error::bad_param(
                "size",
                format!(
                    "{l}^3 x {t} has more link reals ({LINKS} a site) than the shaders' u32 \
                     indices reach; at T = {t}, {largest}"
                ),
            )
        })?;
        let kappa = parse_number("kappa", r.text("kappa"))?;
        if !(kappa > 0.0 && kappa < 0.125) {
            return Err(Error::bad_param(
                "kappa",
                format!("{kappa} is outside (0, 0.125), where M is invertible for any gauge field"),
            ));
        }
        let tol = match r.text("tol") {
            "auto" => None,
            text => {
                let v = parse_number("tol", text)?;
                if !(v > 0.0 && v < 1.0) {
                    return Err(Error::bad_param("tol", format!("{v} is outside (0, 1)")));
                }
                Some(v)
            }
        };
        let wgs = r.wgs(caps)?;
        if let Some(wg) = wgs.iter().find(|wg| !wg.is_power_of_two()) {
            return Err(Error::bad_param(
                "wg",
                format!("the reductions need a power-of-two workgroup size, not {wg}"),
            ));
        }
        let vvls: Vec<u32> = r.uints("vvl").into_iter().map(|v| v as u32).collect();
        let orders = orders(&r, l as u32, t as u32);
        let base = Params {
            precision: Precision::F32,
            kernel: KernelName::Extract,
            layout: LayoutName::Soa,
            complex: Parts::Split,
            vvl: 1,
            wg: 1,
            block: [1, 1, 1],
            tile: 1,
            operator: Operator::Split,
            reconstruct: Reconstruct::Full,
            sign: Sign::Plus,
            l,
            t,
            sites,
            kappa,
            tol: 0.0,
            iterations: r.uint("iterations"),
            buffer_kib: blocks::parse_buffer_kib(r.text(blocks::BUFFER_PARAM))?,
        };
        // Only a solve applies D through a choice of kernels, and only the
        // kernels that project or rebuild spinors have a sign.
        let points = Grid::new(base)
            .axis(&r.precisions, |c, p| {
                c.precision = p;
                c.tol = tol.unwrap_or(default_tol(p));
            })
            .axis(&r.choices(), |c, k| c.kernel = k)
            .axis_where(
                |c| c.kernel == KernelName::Cg,
                &r.choices(),
                |c, o| c.operator = o,
            )
            .axis_where(|c| c.kernel.signed(), &r.choices(), |c, s| c.sign = s)
            .axis_where(
                |c| c.kernel.reads_links(),
                &r.choices(),
                |c, x| c.reconstruct = Reconstruct::resolved(x, c.precision),
            )
            .axis(&r.choices(), |c, l| c.layout = l)
            .axis(&r.choices(), |c, x| c.complex = x)
            .axis(&vvls, |c, v| c.vvl = v)
            .axis(&wgs, |c, wg| c.wg = wg)
            .axis_where(Params::one_pass, &orders, |c, (block, tile)| {
                c.block = block;
                c.tile = tile;
            })
            .distinct_points();
        for params in &points {
            fit::fits(params, caps)?;
        }
        Ok(points.iter().map(Params::case).collect())
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(gpu::MilcGpu::new(gpu, &Params::try_from(case)?)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        let mut specs = Vec::new();
        // The last two split every field over buffers (a spinor of these
        // 512 sites is 48 KiB in f32).
        let forms = [
            (LayoutName::Aos, Parts::Split, Reconstruct::Full, u64::MAX),
            (LayoutName::Soa, Parts::Split, Reconstruct::Rows, u64::MAX),
            (LayoutName::Soa, Parts::Pairs, Reconstruct::Full, 20 << 10),
            (
                LayoutName::Aosoa8,
                Parts::Pairs,
                Reconstruct::Rows,
                20 << 10,
            ),
        ];
        for (name, parts, reconstruct, bind_bytes) in forms {
            let layout = Layout::new(name, 512, LINKS as u32).with_width(parts.width());
            let b = codegen::Build {
                precision: p,
                wg: 64,
                l: 4,
                lz: 4,
                t: 8,
                vvl: 2,
                layout,
                bind_bytes,
                reconstruct,
                halo: [0, 0],
                part: (Part::all(512), 0),
                own: Part::all(512),
            };
            for m in codegen::MODULES {
                specs.push(codegen::spec(m, &b, 1));
                if m.spin {
                    specs.push(codegen::spec(m, &b, -1));
                }
            }
            // The scale-out halo swaps of a 4^3 x 8 lattice over a 2 x 2
            // grid of ranks along z and t (4 x 4 x 4 x 6 padded boxes),
            // sending half spinors across either axis.
            let grid = crate::scale::Decomposition::plan_grid(["z", "t"], &[4, 4, 4, 8], 4, 1);
            if let Ok(d) = grid {
                let spinor = Layout::new(name, 384, SPINOR as u32).with_width(parts.width());
                let spinor = crate::layout::Groups::fitting(spinor, p.real_bytes(), bind_bytes)
                    .unwrap_or(crate::layout::Groups::whole(spinor));
                for (axis, mu) in [(0, 3), (1, 2)] {
                    let send = dist::halo_send(mu, 1);
                    specs.push(crate::scale::halo::spec(p, &spinor, &d, axis, &send));
                }
            }
        }
        specs
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        let cpu = Params::try_from(case).map(|p| reference::MilcCpu::new(&p));
        Some(cpu.map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// The figures a solve reports.
fn solve_metrics(iterations: f64, residual: f64, true_residual: f64) -> BTreeMap<String, f64> {
    BTreeMap::from([
        ("cg_iterations".to_string(), iterations),
        ("cg_residual".to_string(), residual),
        ("true_residual".to_string(), true_residual),
    ])
}
