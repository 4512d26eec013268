//! `su3`: the su3_bench mini-app (MILC's SU(3) matrix-matrix kernel). An L^4
//! lattice where every site holds 4 links, each a 3x3 complex matrix; the
//! kernel computes `C[i].link[j] = A[i].link[j] * B[j]` for every site i and
//! link j. Thread mappings (`site`, `link`, `element`), data layouts
//! (`aos-milc`, `aos`, `soa`) and the workgroup size are swept; one WGSL source
//! serves them all.

use std::collections::BTreeMap;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Resolved, Timestamps,
    Validation, check_wg, wg_param,
};
use crate::apps::common::{fresh_rng, parse_size, quantize, random_reals};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Pipeline, dispatch_shape};
use crate::gpu::{Capabilities, Gpu};
use crate::parallel;
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

const SOURCE: &str = include_str!("../../../shaders/su3/su3.wgsl");

/// Thread mappings, named as the entry points of `shaders/su3/su3.wgsl`.
const MAPPINGS: &[&str] = &["site", "link", "element"];

/// Data layouts, in the order of the shader's `LAYOUT` constant.
const LAYOUTS: &[&str] = &["aos-milc", "aos", "soa"];

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

/// Where the reals of one site live in a buffer of a given layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Index into [`LAYOUTS`] (the shader's `LAYOUT`).
    id: u32,
    /// Reals from one site to the next.
    site_stride: u64,
    /// Reals from one component of a site to the next.
    comp_stride: u64,
    /// Reals in the whole buffer.
    reals: u64,
    /// Lattice sites.
    sites: u64,
}

impl Layout {
    fn new(name: &str, sites: u64) -> Result<Layout> {
        let s = SITE_REALS as u64;
        Ok(match name {
            "aos-milc" => Layout {
                id: 0,
                site_stride: MILC_SITE_REALS as u64,
                comp_stride: 1,
                reals: sites * MILC_SITE_REALS as u64,
                sites,
            },
            "aos" => Layout {
                id: 1,
                site_stride: s,
                comp_stride: 1,
                reals: sites * s,
                sites,
            },
            "soa" => Layout {
                id: 2,
                site_stride: 1,
                comp_stride: sites,
                reals: sites * s,
                sites,
            },
            other => {
                return Err(Error::bad_param(
                    "layout",
                    format!("`{other}` is not one of {}", LAYOUTS.join(", ")),
                ));
            }
        })
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

    fn about(&self) -> &'static str {
        "su3_bench: SU(3) link matrix products on an L^4 lattice (MILC), over thread mappings and data layouts"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "mapping",
                help: "threads: one per site (4 links), per link (9 outputs), or per output element",
                kind: ParamKind::Choice(MAPPINGS),
                default: "site,link,element",
            },
            ParamSpec {
                name: "layout",
                help: "aos-milc (padded MILC site struct), aos (links only), soa (each real component contiguous)",
                kind: ParamKind::Choice(LAYOUTS),
                default: "aos-milc,aos,soa",
            },
            wg_param("128"),
            ParamSpec {
                name: "size",
                help: "lattice extent L (L^4 sites): default (32), small (8), or a number",
                kind: ParamKind::Text,
                default: "default",
            },
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        // The seed's threads-per-block table.
        vec![("wg", "32,36,64,72,128,256")]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self.name(), &self.params(), req, &self.default_precisions())?;
        let l = parse_size(
            "size",
            r.text("size"),
            &[("default", DEFAULT_L), ("small", SMALL_L)],
        )?;
        // The shader indexes in u32: every soa component offset (up to 72
        // per site) and invocation index (up to 36 per site) must fit.
        let sites = l
            .checked_pow(4)
            .filter(|&s| s * SITE_REALS as u64 <= u32::MAX as u64)
            .ok_or_else(|| Error::bad_param("size", format!("L = {l} is too large")))?;
        let mut cases = Vec::new();
        for &p in &r.precisions {
            for mapping in r.list("mapping") {
                for layout in r.list("layout") {
                    for wg in r.uints("wg") {
                        let wg = check_wg(wg, caps)?;
                        cases.push(
                            Case::new(
                                self.name(),
                                "mat-mul",
                                &format!("{mapping}/{layout}/wg{wg}"),
                                p,
                            )
                            .param("mapping", mapping)
                            .param("layout", layout)
                            .param("wg", wg)
                            .param("L", l)
                            .param("sites", sites),
                        );
                    }
                }
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        prepare_with(gpu, case, Init::Random)
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        // The module is the same for every mapping; one spec per layout
        // checks each constant set, and the naga test covers every entry point.
        LAYOUTS
            .iter()
            .filter_map(|name| Layout::new(name, 4096).ok())
            .map(|layout| spec(p, 128, 4096, &layout))
            .collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        Some(Su3Cpu::new(case, Init::Random).map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// Prepares `case` on `gpu` with inputs filled as `init` says. The runner
/// uses [`Init::Random`]; tests use [`Init::Reference`] to check su3_bench's
/// checksum of 36 through the same kernel and buffers.
pub fn prepare_with(gpu: &Gpu, case: &Case, init: Init) -> Result<Box<dyn Kernel>> {
    Ok(Box::new(Su3Gpu::new(gpu, case, init)?))
}

/// The CPU reference of `case` with inputs filled as `init` says (f64).
pub fn prepare_cpu_with(case: &Case, init: Init) -> Result<Box<dyn CpuKernel>> {
    Ok(Box::new(Su3Cpu::new(case, init)?))
}

/// The module for one layout; every mapping is an entry point of it.
fn spec(p: Precision, wg: u32, sites: u64, layout: &Layout) -> ShaderSpec {
    ShaderSpec::new(format!("su3/{}", LAYOUTS[layout.id as usize]), SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("SITES", sites as u32)
        .with_u32("LAYOUT", layout.id)
        .with_u32("SITE_STRIDE", layout.site_stride as u32)
        .with_u32("COMP_STRIDE", layout.comp_stride as u32)
        .with_include(sources::GRID)
}

/// Host copies of the inputs, in the logical order (72 reals per site, the
/// shader's component numbering), already rounded to the case's precision.
struct Inputs {
    sites: usize,
    a: Vec<f64>,
    b: Vec<f64>,
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
    fn expected(&self) -> Vec<f64> {
        parallel::par_map(self.sites * SITE_REALS, |i| {
            self.product(i / SITE_REALS, i % SITE_REALS)
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

/// Work and traffic of one run: A read and C written once per site with
/// the layout's full site size (padding included), B once.
fn model(sites: u64, layout: &Layout, p: Precision) -> Model {
    Model {
        flops: FLOPS_PER_SITE * sites as f64,
        bytes: (2 * sites * layout.site_bytes(p) + SITE_REALS as u64 * p.real_bytes()) as f64,
    }
}

/// Checks C (logical order) against the f64 reference, and for the
/// reference initialisation also su3_bench's checksum of 36.
fn check(inputs: &Inputs, got: &[f64], p: Precision, init: Init) -> Validation {
    let tol = tolerance(p);
    let want = inputs.expected();
    let mut v = Validation::compare(got, &want, tol, 1.0, "C = A x B vs f64 reference");
    if init == Init::Reference && got.len() >= SITE_REALS {
        v = v.and(Validation::compare(
            &[checksum(got)],
            &[36.0],
            tol,
            1.0,
            "reference-init checksum (36)",
        ));
    }
    v
}

struct Su3Gpu {
    mapping: String,
    precision: Precision,
    init: Init,
    sites: u64,
    layout: Layout,
    inputs: Inputs,
    c: wgpu::Buffer,
    pipe: Pipeline,
    bg: wgpu::BindGroup,
    groups: (u32, u32),
}

impl Su3Gpu {
    fn new(gpu: &Gpu, case: &Case, init: Init) -> Result<Su3Gpu> {
        let p = case.precision;
        let mapping = case.text("mapping").to_string();
        let per_site = match mapping.as_str() {
            "site" => 1,
            "link" => 4,
            "element" => 36,
            other => {
                return Err(Error::bad_param(
                    "mapping",
                    format!("`{other}` is not one of {}", MAPPINGS.join(", ")),
                ));
            }
        };
        let sites = case.uint("sites")?;
        let wg = case.uint("wg")? as u32;
        let layout = Layout::new(case.text("layout"), sites)?;
        // Before any allocation or upload: A and C must each fit one binding.
        gpu.check_size(layout.reals * p.real_bytes())?;
        let groups = dispatch_shape(sites * per_site, wg, gpu.caps.max_workgroups_per_dim)?;
        let inputs = Inputs::new(sites as usize, p, init);
        let pipe = gpu.pipeline(
            &spec(p, wg, sites, &layout),
            &mapping,
            &[Bind::Read, Bind::Read, Bind::ReadWrite],
        )?;
        let a = gpu.storage_init("su3-a", &p.encode(&pack(&layout, &inputs.a)))?;
        let b = gpu.storage_init("su3-b", &p.encode(&inputs.b))?;
        // Poisoned: an element the kernel misses reads back as NaN and fails;
        // the MILC padding must still hold the poison afterwards.
        let c =
            gpu.storage_poisoned("su3-c", layout.reals * p.real_bytes(), &p.poison_pattern())?;
        let bg = gpu.bind(&pipe, &[&a, &b, &c]);
        Ok(Su3Gpu {
            mapping,
            precision: p,
            init,
            sites,
            layout,
            inputs,
            c,
            pipe,
            bg,
            groups,
        })
    }
}

/// Logical-order values (72 per site) laid out in a buffer of `layout`;
/// MILC's padding (coordinates, index, parity) is zero.
fn pack(layout: &Layout, logical: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; layout.reals as usize];
    for (i, &v) in logical.iter().enumerate() {
        out[layout.index(i / SITE_REALS, i % SITE_REALS)] = v;
    }
    out
}

/// The 72 link reals of every site, in logical order, from a buffer of `layout`.
fn unpack(layout: &Layout, raw: &[f64], sites: usize) -> Vec<f64> {
    parallel::par_map(sites * SITE_REALS, |i| {
        raw[layout.index(i / SITE_REALS, i % SITE_REALS)]
    })
}

impl Kernel for Su3Gpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("su3"),
            timestamp_writes: ts.pass(true, true),
        });
        self.pipe.set(&mut pass, &self.bg);
        pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        vec![&self.c]
    }

    fn validate(&self, outputs: &[Vec<u8>]) -> Validation {
        let p = self.precision;
        let raw = p.decode(&outputs[0]);
        if raw.len() as u64 != self.layout.reals {
            return Validation::fail(format!(
                "{}: {} reals read back, {} expected",
                self.mapping,
                raw.len(),
                self.layout.reals
            ));
        }
        let got = unpack(&self.layout, &raw, self.sites as usize);
        let mut v = check(&self.inputs, &got, p, self.init);
        if self.layout.site_stride == MILC_SITE_REALS as u64 {
            // The kernel must leave the rest of the MILC struct alone.
            let rb = p.real_bytes() as usize;
            let poison = p.poison_pattern();
            let touched = outputs[0]
                .chunks_exact(MILC_SITE_REALS * rb)
                .filter(|site| {
                    site[SITE_REALS * rb..]
                        .chunks_exact(rb)
                        .any(|x| x != poison.as_slice())
                })
                .count();
            if touched > 0 {
                v.passed = false;
                v.detail
                    .push_str(&format!("; padding overwritten in {touched} sites"));
            } else {
                v.detail.push_str("; padding untouched");
            }
        }
        v
    }

    fn model(&self) -> Model {
        model(self.sites, &self.layout, self.precision)
    }

    fn metrics(&self, outputs: &[Vec<u8>]) -> BTreeMap<String, f64> {
        let raw = self.precision.decode(&outputs[0]);
        let site0: Vec<f64> = (0..SITE_REALS)
            .map(|comp| {
                raw.get(self.layout.index(0, comp))
                    .copied()
                    .unwrap_or(f64::NAN)
            })
            .collect();
        BTreeMap::from([("checksum".to_string(), checksum(&site0))])
    }
}

/// The same product on the CPU in f64 (rayon), in the logical layout.
struct Su3Cpu {
    init: Init,
    layout: Layout,
    inputs: Inputs,
    c: Vec<f64>,
}

impl Su3Cpu {
    fn new(case: &Case, init: Init) -> Result<Su3Cpu> {
        let sites = case.uint("sites")?;
        // The model still counts the traffic of the case's layout.
        let layout = Layout::new(case.text("layout"), sites)?;
        let inputs = Inputs::new(sites as usize, Precision::F64, init);
        Ok(Su3Cpu {
            init,
            layout,
            c: vec![f64::NAN; inputs.a.len()],
            inputs,
        })
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
        check(&self.inputs, &self.c, Precision::F64, self.init)
    }

    fn model(&self) -> Model {
        model(self.inputs.sites as u64, &self.layout, Precision::F64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(layout: &str, l: u64) -> Case {
        Case::new("su3", "mat-mul", "site", Precision::F64)
            .param("mapping", "site")
            .param("layout", layout)
            .param("wg", 128)
            .param("L", l)
            .param("sites", l.pow(4))
    }

    /// su3_bench's initialisation gives C = (1, 0) everywhere and checksum 36.
    #[test]
    fn reference_init_checksum_is_36() {
        let mut k = prepare_cpu_with(&case("aos", 2), Init::Reference).expect("cpu");
        k.run();
        let v = k.validate();
        assert!(v.passed, "{}", v.detail);
        assert!(v.detail.contains("checksum"), "{}", v.detail);
        let inputs = Inputs::new(16, Precision::F32, Init::Reference);
        let c = inputs.expected();
        assert!((checksum(&c) - 36.0).abs() < 36.0 * 1e-6);
    }

    /// An unwritten element fails validation.
    #[test]
    fn poisoned_element_fails() {
        let inputs = Inputs::new(16, Precision::F64, Init::Random);
        let mut got = inputs.expected();
        assert!(check(&inputs, &got, Precision::F64, Init::Random).passed);
        got[100] = f64::NAN;
        assert!(!check(&inputs, &got, Precision::F64, Init::Random).passed);
    }

    /// Packing and unpacking are inverse for every layout, and the byte
    /// counts follow su3_bench (320 / 640 bytes per MILC site).
    #[test]
    fn layouts_round_trip_and_count_bytes() {
        let sites = 81;
        let logical: Vec<f64> = (0..sites * SITE_REALS).map(|i| i as f64).collect();
        for name in LAYOUTS {
            let layout = Layout::new(name, sites as u64).expect("layout");
            let raw = pack(&layout, &logical);
            assert_eq!(unpack(&layout, &raw, sites), logical, "{name}");
        }
        let milc = Layout::new("aos-milc", 1).expect("layout");
        assert_eq!(milc.site_bytes(Precision::F32), 320);
        assert_eq!(milc.site_bytes(Precision::Df64), 640);
        let soa = Layout::new("soa", 1 << 20).expect("layout");
        assert_eq!(soa.site_bytes(Precision::F64), 576);
        let m = model(1 << 20, &milc, Precision::F32);
        assert_eq!(m.flops, 864.0 * (1 << 20) as f64);
    }

    #[test]
    fn cases_cover_the_sweep_and_reject_bad_sizes() {
        let caps = Capabilities {
            max_workgroup_invocations: 256,
            ..Default::default()
        };
        let req = Request::default()
            .set("size", "4")
            .set("wg", "32,64")
            .precisions(&[Precision::F32]);
        let cases = Su3.cases(&req, &caps).expect("cases");
        assert_eq!(cases.len(), 3 * 3 * 2);
        assert_eq!(cases[0].variant, "site/aos-milc/wg32");
        assert_eq!(cases[0].text("sites"), "256");
        assert!(
            Su3.cases(&Request::default().set("size", "huge"), &caps)
                .is_err()
        );
        assert!(
            Su3.cases(&Request::default().set("size", "100000"), &caps)
                .is_err()
        );
    }
}
