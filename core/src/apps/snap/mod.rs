//! `snap`: the TestSNAP proxy app (ECP), the force of the SNAP machine-learned
//! potential (Thompson et al., J. Comp. Phys. 285, 316 (2015)). Per force
//! call: compute_U (Wigner U of every neighbour by the Cayley-Klein
//! recursion, summed with the switching function), compute_Y (the adjoint:
//! beta-weighted Clebsch-Gordan products of the total U), compute_dU and
//! compute_dE per pair, and the force gather. Variants: the seed's
//! baseline, collapse, column-major and reorder cases.
//!
//! Inputs: a TestSNAP reference file (`refdata`, validated against its
//! forces) or the synthetic BCC tungsten problem of [`lattice`] (validated
//! against the CPU f64 reference of [`sna`]). WGSL has no f64 (or df64)
//! trigonometry, so the host evaluates the per-pair tan/cos/sin of the
//! Cayley-Klein map and the switching function in f64 with the neighbour
//! list (8 reals per pair, O(pairs) against the kernels' O(pairs x J^3)).
//!
//! Memory of the largest case (2000 atoms x 26 neighbours, 2J = 14, 652 half
//! elements per U-like array): 2.22 GB in f64 and df64 (dU 1.63 GB, U of
//! every pair 0.54 GB, total U and Y 21 MB each), 1.11 GB in f32. When dU
//! of all atoms passes the binding limit the force kernel runs the atoms in
//! batches (`batch`); a kernel timed alone fails with `OverLimit` instead.

pub mod lattice;
pub mod refdata;
pub mod sna;

use std::collections::BTreeMap;

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Resolved, Timestamps,
    Validation, check_wg, wg_param,
};
use crate::apps::common::{fresh_rng, parse_size};
use crate::device::{Capabilities, Gpu};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Pipeline, dispatch_shape};
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};
use sna::{AtomState, C, Config, Tables};

const SOURCE: &str = include_str!("../../../../shaders/snap/snap.wgsl");

/// The four kernels of a force call, and the whole call.
const KERNELS: &[&str] = &[
    "compute_U",
    "compute_Y",
    "compute_dU",
    "compute_dE",
    "force",
];

/// The seed's optimisation cases.
const VARIANTS: &[&str] = &["baseline", "collapse", "column-major", "reorder"];

/// BCC unit cells a side: small (54 atoms, for CI) and the seed's 2000 atoms.
const SIZES: &[(&str, u64)] = &[("small", 3), ("default", 10)];

/// The `snap` app.
pub struct Snap;

impl App for Snap {
    fn name(&self) -> &'static str {
        "snap"
    }

    fn about(&self) -> &'static str {
        "TestSNAP: the SNAP potential's force (compute_U, compute_Y, compute_dU, compute_dE), seed variants"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec {
                name: "kernel",
                help: "compute_U, compute_Y, compute_dU, compute_dE (each alone, inputs from the CPU reference) or force (the whole force call)",
                kind: ParamKind::Choice(KERNELS),
                default: "compute_U,compute_Y,compute_dU,compute_dE,force",
            },
            ParamSpec {
                name: "variant",
                help: "baseline (invocation per atom), collapse (atom, neighbour and index loops in the dispatch), column-major (atom fastest in memory), reorder (column-major, atom fastest among invocations)",
                kind: ParamKind::Choice(VARIANTS),
                default: "reorder",
            },
            ParamSpec {
                name: "twojmax",
                help: "2J of the synthetic problem (the seed's 2, 8, 14); a reference file sets its own",
                kind: ParamKind::UInt {
                    min: 0,
                    max: refdata::MAX_TWOJ,
                },
                default: "2,8,14",
            },
            ParamSpec {
                name: "size",
                help: "BCC unit cells a side of the synthetic problem (2 atoms each): small (3: 54 atoms), default (10: 2000 atoms), or a number up to 20",
                kind: ParamKind::Text,
                default: "default",
            },
            ParamSpec {
                name: "steps",
                help: "force calls per run of the force kernel (the seed runs 100)",
                kind: ParamKind::UInt { min: 1, max: 1000 },
                default: "1",
            },
            ParamSpec {
                name: "refdata",
                help: "TestSNAP reference file (JSON, e.g. assets/testsnap/2J2_W.json): run it and report the RMS |F| deviation",
                kind: ParamKind::Text,
                default: "",
            },
            ParamSpec {
                name: "batch",
                help: "atoms per batch of dispatches (0: as many as the binding limit allows)",
                kind: ParamKind::UInt {
                    min: 0,
                    max: 1 << 24,
                },
                default: "0",
            },
            wg_param("64"),
        ]
    }

    fn sweep_defaults(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("kernel", "force"),
            ("variant", "baseline,collapse,column-major,reorder"),
            ("wg", "32,64,128,256"),
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self.name(), &self.params(), req, &self.default_precisions())?;
        let path = r.text("refdata").to_string();
        // A reference file fixes 2J and the atoms; it is checked here, before
        // any device work, so a malformed file is an error up front.
        let (twojs, cells, atoms) = if path.is_empty() {
            let n = parse_size("size", r.text("size"), SIZES)?;
            if !(3..=20).contains(&n) {
                return Err(Error::bad_param(
                    "size",
                    format!(
                        "{n} unit cells a side: at least 3 (cutoff under half the box), at most 20 (16,000 atoms: the neighbour search is all pairs)"
                    ),
                ));
            }
            (r.uints("twojmax"), n, 2 * n * n * n)
        } else {
            let data = refdata::load(&path)?;
            let c = &data.config;
            (vec![c.twojmax as u64], 0, c.nlocal as u64)
        };
        let steps = r.uints("steps").first().copied().unwrap_or(1);
        let batch = r.uints("batch").first().copied().unwrap_or(0);
        let mut cases = Vec::new();
        for &p in &r.precisions {
            for &twoj in &twojs {
                for kernel in r.list("kernel") {
                    for variant in r.list("variant") {
                        for wg in r.uints("wg") {
                            let wg = check_wg(wg, caps)?;
                            cases.push(
                                Case::new(
                                    self.name(),
                                    kernel,
                                    &format!("{variant}/2J{twoj}/wg{wg}"),
                                    p,
                                )
                                .param("variant", variant)
                                .param("twojmax", twoj)
                                .param("cells", cells)
                                .param("atoms", atoms)
                                .param("steps", steps)
                                .param("batch", batch)
                                .param("refdata", &path)
                                .param("wg", wg),
                            );
                        }
                    }
                }
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SnapGpu::new(gpu, case)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        // TestSNAP's 2J = 2 file: 2 atoms of 8 neighbours among 35.
        let t = Tables::new(2, &[0.1; 5]);
        let dims = Dims::new(&t, 8, 2, 2, 35);
        VARIANTS
            .iter()
            .map(|v| spec(p, 64, &dims, Layout::of(v)))
            .collect()
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        Some(SnapCpu::new(case).map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// A case's configuration and, for a reference file, its forces.
fn problem(case: &Case) -> Result<(Config, Option<Vec<f64>>)> {
    let path = case.text("refdata");
    if path.is_empty() {
        let cells = case.uint("cells")? as usize;
        let twoj = case.uint("twojmax")? as u32;
        Ok((lattice::bcc(cells, twoj, &mut fresh_rng())?, None))
    } else {
        let d = refdata::load(path)?;
        Ok((d.config, Some(d.fj)))
    }
}

/// How a variant maps work and data.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Layout {
    /// Loops in the dispatch (else one invocation per atom).
    collapsed: bool,
    /// Atom (pair) index fastest in the scratch arrays.
    colmajor: bool,
    /// Atom (pair) index fastest among the invocations of a 2-D loop.
    reorder: bool,
}

impl Layout {
    fn of(variant: &str) -> Layout {
        Layout {
            collapsed: variant != "baseline",
            colmajor: variant == "column-major" || variant == "reorder",
            reorder: variant == "reorder",
        }
    }

    /// Index of complex element `e` of item `p` (of `n` items with `ne` elements).
    fn cix(&self, p: usize, e: usize, n: usize, ne: usize) -> usize {
        if self.colmajor { e * n + p } else { p * ne + e }
    }

    /// `items` (each `ne` complex values) in this layout, 2 reals per value.
    fn pack(&self, items: &[&[C]], ne: usize) -> Vec<f64> {
        let mut out = vec![0.0; 2 * items.len() * ne];
        for (p, v) in items.iter().enumerate() {
            for (e, c) in v.iter().enumerate() {
                let i = 2 * self.cix(p, e, items.len(), ne);
                out[i] = c.re;
                out[i + 1] = c.im;
            }
        }
        out
    }

    /// The inverse of [`Layout::pack`], item by item.
    fn unpack(&self, raw: &[f64], n: usize, ne: usize) -> Vec<C> {
        let mut out = Vec::with_capacity(n * ne);
        for p in 0..n {
            for e in 0..ne {
                let i = 2 * self.cix(p, e, n, ne);
                out.push(C::new(raw[i], raw[i + 1]));
            }
        }
        out
    }
}

/// Sizes and table offsets a module is built for.
#[derive(Clone, Debug)]
struct Dims {
    twoj: u32,
    ny: u32,
    nnbr: u32,
    batch: u32,
    nlocal: u32,
    ntotal: u32,
    /// Reals: (cg, beta, weight, geometry).
    off_real: [u32; 4],
    /// u32: (ystart, terms, elems, reverse lists).
    off_tab: [u32; 4],
}

impl Dims {
    fn new(t: &Tables, nnbr: usize, batch: usize, nlocal: usize, ntotal: usize) -> Dims {
        let jdim = t.twojmax + 1;
        let cg = jdim * jdim;
        let beta = cg + t.cg.len() as u32;
        let weight = beta + t.terms.len() as u32;
        let geo = weight + t.ny() as u32;
        let ystart = t.hblock.len() as u32;
        let terms = ystart + t.ystart.len() as u32;
        let elems = terms + 4 * t.terms.len() as u32;
        let rev = elems + t.ny() as u32;
        Dims {
            twoj: t.twojmax,
            ny: t.ny() as u32,
            nnbr: nnbr as u32,
            batch: batch as u32,
            nlocal: nlocal as u32,
            ntotal: ntotal as u32,
            off_real: [cg, beta, weight, geo],
            off_tab: [ystart, terms, elems, rev],
        }
    }
}

fn spec(p: Precision, wg: u32, d: &Dims, l: Layout) -> ShaderSpec {
    ShaderSpec::new("snap", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("TWOJ", d.twoj)
        .with_u32("NY", d.ny)
        .with_u32("NNBR", d.nnbr)
        .with_u32("BATCH", d.batch)
        .with_u32("NPB", d.batch * d.nnbr)
        .with_u32("NLOCAL", d.nlocal)
        .with_u32("NTOTAL", d.ntotal)
        .with_u32("OFF_CG", d.off_real[0])
        .with_u32("OFF_BETA", d.off_real[1])
        .with_u32("OFF_WEIGHT", d.off_real[2])
        .with_u32("OFF_GEO", d.off_real[3])
        .with_u32("OFF_YSTART", d.off_tab[0])
        .with_u32("OFF_TERMS", d.off_tab[1])
        .with_u32("OFF_ELEMS", d.off_tab[2])
        .with_u32("OFF_REV", d.off_tab[3])
        .with("COLMAJOR", crate::shader::ConstValue::Bool(l.colmajor))
        .with("REORDER", crate::shader::ConstValue::Bool(l.reorder))
        .with_include(sources::GRID)
}

/// The reals (coefficients, then per-pair geometry) and u32 tables the
/// kernels read, laid out as [`Dims`] says.
fn encode_inputs(t: &Tables, c: &Config, geo: &[[f64; 8]]) -> (Vec<f64>, Vec<u32>) {
    let mut inp = t.rootpq.clone();
    inp.extend(&t.cg);
    inp.extend(t.terms.iter().map(|x| x.beta));
    inp.extend(&t.weight);
    inp.extend(geo.iter().flatten());
    let mut tab = t.hblock.clone();
    tab.extend(&t.ystart);
    for x in &t.terms {
        tab.extend([
            x.j1 | x.j2 << 8,
            x.cg,
            x.ma1min | x.ma2max << 8 | x.na << 16,
            x.mb1min | x.mb2max << 8 | x.nb << 16,
        ]);
    }
    tab.extend(t.elems.iter().map(|&[j, mb, ma]| j | mb << 8 | ma << 16));
    // Reverse neighbour lists: the pairs naming each atom as neighbour.
    let mut named: Vec<Vec<u32>> = vec![Vec::new(); c.ntotal];
    for (pair, &j) in c.jlist.iter().enumerate() {
        named[j as usize].push(pair as u32);
    }
    let mut start = 0u32;
    tab.push(0);
    for n in &named {
        start += n.len() as u32;
        tab.push(start);
    }
    tab.extend(named.into_iter().flatten());
    (inp, tab)
}

/// Work of one run of `kernel` from the tables: complex multiplies and adds
/// as the kernels do them (6 and 2 flops, 2 for a real scale).
fn model(kernel: &str, t: &Tables, c: &Config, steps: u64, p: Precision) -> Model {
    let (ny, pairs, atoms) = (t.ny() as f64, c.pairs() as f64, c.nlocal as f64);
    let rb = p.real_bytes() as f64;
    let y_flops: f64 = t
        .terms
        .iter()
        .map(|x| x.nb as f64 * (x.na as f64 * 10.0 + 4.0) + 4.0)
        .sum();
    let stages = [
        Model {
            flops: pairs * ny * 18.0 + atoms * ny * c.nnbr as f64 * 4.0,
            bytes: (pairs * 8.0 + 2.0 * pairs * ny + 2.0 * atoms * ny) * rb,
        },
        Model {
            flops: atoms * y_flops,
            bytes: 4.0 * atoms * ny * rb,
        },
        Model {
            flops: pairs * 3.0 * ny * 44.0,
            bytes: (pairs * 8.0 + 2.0 * pairs * ny + 6.0 * pairs * ny) * rb,
        },
        Model {
            flops: pairs * 3.0 * ny * 6.0,
            bytes: (6.0 * pairs * ny + 2.0 * atoms * ny + 3.0 * pairs) * rb,
        },
    ];
    match KERNELS.iter().position(|k| *k == kernel) {
        Some(i) if i < 4 => stages[i],
        _ => Model {
            flops: steps as f64 * stages.iter().map(|s| s.flops).sum::<f64>(),
            bytes: steps as f64 * (stages.iter().map(|s| s.bytes).sum::<f64>() + 6.0 * pairs * rb),
        },
    }
}

/// Tolerances: (per-kernel arrays, relative to their largest element; RMS
/// |F| deviation in eV/A, relative to the RMS |F| for f32). f64 and df64
/// take the 1e-9 eV/A. Measured on lavapipe: f64 2.3e-15 (2J2),
/// 1.3e-14 (2J4), under 1.2e-14 on the synthetic 2J = 2 and 6; df64
/// 2.3e-15 and 1.8e-13; per-kernel arrays within 5e-16 (f64). f32: 1.0e-8
/// and 5.2e-6 eV/A (2.6e-7 and 4.7e-7 of the RMS force), at most 3.9e-6 of
/// the RMS force on the synthetic problems and 1e-6 per kernel: the f32
/// bound, 1e-4 of the RMS force, leaves a factor 25.
fn tolerance(p: Precision) -> (f64, f64) {
    match p {
        Precision::F32 => (1e-4, 1e-4),
        Precision::F64 => (1e-11, 1e-9),
        Precision::Df64 => (1e-10, 1e-9),
    }
}

/// What the outputs of one run must match.
enum Expected {
    /// compute_U: total U of every atom and U of every pair.
    U(Vec<C>, Vec<C>),
    /// compute_Y: Y of every atom.
    Y(Vec<C>),
    /// compute_dU: dU of every pair (3 x NY each).
    Du(Vec<C>),
    /// compute_dE: fij of every pair.
    Fij(Vec<f64>),
    /// force: forces on every atom, from the reference file (true) or the CPU.
    Forces(Vec<f64>, bool),
}

/// The buffers of a case, in binding order.
struct Buffers {
    all: Vec<wgpu::Buffer>,
}

impl Buffers {
    const ULIST: usize = 2;
    const DULIST: usize = 3;
    const UTOT: usize = 4;
    const YLIST: usize = 5;
    const FIJ: usize = 6;
    const FORCE: usize = 7;
}

struct SnapGpu {
    precision: Precision,
    /// Half elements per U-like array.
    ny: usize,
    layout: Layout,
    config: Config,
    batch: usize,
    steps: u64,
    buffers: Buffers,
    /// One bind group per batch (they differ in the batch uniform).
    groups: Vec<wgpu::BindGroup>,
    /// Per batch, in order: (pipeline, dispatch shape).
    stages: Vec<(Pipeline, (u32, u32))>,
    gather: Option<(Pipeline, (u32, u32))>,
    expected: Expected,
    model: Model,
}

/// Atoms per batch: the request, else as many as the largest scratch array
/// (dU: 3 x NY complex per pair) lets one binding hold.
fn batch_atoms(case: &Case, c: &Config, ny: usize, p: Precision, gpu: &Gpu) -> Result<usize> {
    let per_atom = (c.nnbr * ny * 6) as u64 * p.real_bytes();
    let max = gpu.caps.max_storage_binding.min(gpu.caps.max_buffer);
    let fit = (max / per_atom) as usize;
    if fit == 0 {
        return Err(Error::OverLimit {
            limit: "max_storage_buffer_binding_size",
            needed: per_atom,
            max,
        });
    }
    let asked = case.uint("batch")? as usize;
    if case.kernel != "force" {
        // A kernel timed alone keeps every atom's arrays for its validation.
        if asked > 0 && asked < c.nlocal {
            return Err(Error::bad_param(
                "batch",
                format!(
                    "{} runs on all atoms at once; batches split only the force kernel",
                    case.kernel
                ),
            ));
        }
        if fit < c.nlocal {
            return Err(Error::OverLimit {
                limit: "max_storage_buffer_binding_size",
                needed: per_atom * c.nlocal as u64,
                max,
            });
        }
    }
    let b = if asked > 0 { asked } else { fit };
    let b = b.min(fit).min(c.nlocal);
    Ok(b)
}

impl SnapGpu {
    fn new(gpu: &Gpu, case: &Case) -> Result<SnapGpu> {
        let p = case.precision;
        let layout = Layout::of(case.text("variant"));
        let (config, file_forces) = problem(case)?;
        let t = config.tables();
        let ny = t.ny();
        let batch = batch_atoms(case, &config, ny, p, gpu)?;
        let npb = batch * config.nnbr;
        let geo = config.geometries();
        let (inp, tab) = encode_inputs(&t, &config, &geo);
        let dims = Dims::new(&t, config.nnbr, batch, config.nlocal, config.ntotal);
        let wg = case.uint("wg")? as u32;
        let module = spec(p, wg, &dims, layout);
        let binds = [
            Bind::Read,
            Bind::Read,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::ReadWrite,
            Bind::Uniform,
        ];
        let max = gpu.caps.max_workgroups_per_dim;
        let shape = |n: usize| dispatch_shape(n as u64, wg, max);
        let stage = |name: &str| -> Result<Vec<(&'static str, (u32, u32))>> {
            Ok(match (name, layout.collapsed) {
                ("compute_U", false) => vec![("u_atom", shape(batch)?)],
                ("compute_U", true) => {
                    vec![("u_pairs", shape(npb)?), ("u_sums", shape(batch * ny)?)]
                }
                ("compute_Y", false) => vec![("y_atom", shape(batch)?)],
                ("compute_Y", true) => vec![("y_elems", shape(batch * ny)?)],
                ("compute_dU", false) => vec![("du_atom", shape(batch)?)],
                ("compute_dU", true) => vec![("du_pairs", shape(3 * npb)?)],
                ("compute_dE", false) => vec![("de_atom", shape(batch)?)],
                _ => vec![("de_pairs", shape(3 * npb)?)],
            })
        };
        let names: Vec<&str> = if case.kernel == "force" {
            KERNELS[..4].to_vec()
        } else {
            vec![case.kernel.as_str()]
        };
        let mut stages = Vec::new();
        for n in names {
            for (entry, sh) in stage(n)? {
                stages.push((gpu.pipeline(&module, entry, &binds)?, sh));
            }
        }
        let gather = if case.kernel == "force" {
            Some((
                gpu.pipeline(&module, "gather", &binds)?,
                shape(config.ntotal)?,
            ))
        } else {
            None
        };

        // Inputs and the expected outputs; a per-kernel case takes its
        // inputs from the CPU reference so it runs (and is timed) alone.
        let rb = p.real_bytes();
        let poison = p.poison_pattern();
        let cplx = |n: usize| 2 * n as u64 * rb;
        let inp_buf = gpu.storage_init("snap-inp", &p.encode(&inp))?;
        let tab_buf = gpu.storage_init("snap-tab", bytemuck::cast_slice(&tab))?;
        let ulist = gpu.storage_poisoned("snap-ulist", cplx(npb * ny), &poison)?;
        let dulist = gpu.storage_poisoned("snap-dulist", cplx(3 * npb * ny), &poison)?;
        let utot = gpu.storage_poisoned("snap-utot", cplx(batch * ny), &poison)?;
        let ylist = gpu.storage_poisoned("snap-ylist", cplx(batch * ny), &poison)?;
        let fij = gpu.storage_poisoned("snap-fij", 3 * config.pairs() as u64 * rb, &poison)?;
        let force = gpu.storage_poisoned("snap-force", 3 * config.ntotal as u64 * rb, &poison)?;
        let expected = if case.kernel == "force" {
            match file_forces {
                Some(f) => Expected::Forces(f, true),
                None => Expected::Forces(config.forces(), false),
            }
        } else {
            let states = config.states(&t, &geo);
            let ulists: Vec<&[C]> = states
                .iter()
                .flat_map(|s| s.ulist.iter().map(Vec::as_slice))
                .collect();
            let upload = |buf: &wgpu::Buffer, items: &[&[C]], ne: usize| {
                gpu.queue
                    .write_buffer(buf, 0, &p.encode(&layout.pack(items, ne)));
            };
            match case.kernel.as_str() {
                "compute_U" => Expected::U(
                    states.iter().flat_map(|s| s.utot.clone()).collect(),
                    ulists.concat(),
                ),
                "compute_Y" => {
                    let ut: Vec<&[C]> = states.iter().map(|s| s.utot.as_slice()).collect();
                    upload(&utot, &ut, ny);
                    Expected::Y(states.iter().flat_map(|s| s.y.clone()).collect())
                }
                _ => {
                    let du: Vec<Vec<C>> = (0..config.pairs())
                        .map(|q| Config::pair_du(&t, &geo[q], ulists[q]).concat())
                        .collect();
                    if case.kernel == "compute_dU" {
                        upload(&ulist, &ulists, ny);
                        Expected::Du(du.concat())
                    } else {
                        let items: Vec<&[C]> = du.iter().map(Vec::as_slice).collect();
                        upload(&dulist, &items, 3 * ny);
                        let ys: Vec<&[C]> = states.iter().map(|s| s.y.as_slice()).collect();
                        upload(&ylist, &ys, ny);
                        Expected::Fij(config.pair_forces(&t, &geo, &states))
                    }
                }
            }
        };
        let buffers = Buffers {
            all: vec![inp_buf, tab_buf, ulist, dulist, utot, ylist, fij, force],
        };
        let first = &stages
            .first()
            .ok_or_else(|| Error::bad_param("kernel", "no stage"))?
            .0;
        let groups = (0..config.nlocal.div_ceil(batch))
            .map(|b| {
                let count = batch.min(config.nlocal - b * batch);
                let u = gpu.uniform(
                    "snap-batch",
                    bytemuck::cast_slice(&[(b * batch) as u32, count as u32, 0, 0]),
                );
                let mut res: Vec<wgpu::BindingResource> =
                    buffers.all.iter().map(|x| x.as_entire_binding()).collect();
                res.push(u.as_entire_binding());
                gpu.bind_resources(first, &res)
            })
            .collect();
        let steps = if case.kernel == "force" {
            case.uint("steps")?
        } else {
            1
        };
        Ok(SnapGpu {
            model: model(&case.kernel, &t, &config, steps, p),
            ny,
            precision: p,
            layout,
            config,
            batch,
            steps,
            buffers,
            groups,
            stages,
            gather,
            expected,
        })
    }

    fn reals(&self, raw: &[u8]) -> Vec<f64> {
        self.precision.decode(raw)
    }

    /// Complex arrays compared with error relative to their largest element.
    fn compare_c(&self, got: &[C], want: &[C], what: &str) -> Validation {
        let flat = |v: &[C]| -> Vec<f64> { v.iter().flat_map(|c| [c.re, c.im]).collect() };
        let w = flat(want);
        let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
        Validation::compare(&flat(got), &w, tolerance(self.precision).0, scale, what)
    }

    fn forces_check(&self, got: &[f64], want: &[f64], file: bool) -> Validation {
        if let Some(k) = got.iter().position(|x| !x.is_finite()) {
            return Validation::fail(format!("force component {k} unwritten or not finite"));
        }
        let rms = sna::rms_deviation(got, want);
        let norm = sna::rms_deviation(want, &vec![0.0; want.len()]);
        let tol = match self.precision {
            Precision::F32 => tolerance(Precision::F32).1 * norm.max(1e-3),
            p => tolerance(p).1,
        };
        Validation {
            max_error: rms,
            tolerance: tol,
            passed: rms <= tol,
            detail: format!(
                "RMS |F| deviation {rms:.3e} eV/A over {} atoms vs {} (RMS |F| {norm:.3e}, tol {tol:.1e})",
                self.config.ntotal,
                if file {
                    "the reference file"
                } else {
                    "the CPU f64 reference"
                }
            ),
        }
    }
}

impl Kernel for SnapGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("snap"),
            timestamp_writes: ts.pass(true, true),
        });
        for _ in 0..self.steps {
            for group in &self.groups {
                for (pipe, shape) in &self.stages {
                    pipe.set(&mut pass, group);
                    pass.dispatch_workgroups(shape.0, shape.1, 1);
                }
            }
            if let (Some((pipe, shape)), Some(group)) = (&self.gather, self.groups.first()) {
                pipe.set(&mut pass, group);
                pass.dispatch_workgroups(shape.0, shape.1, 1);
            }
        }
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        let b = &self.buffers.all;
        match self.expected {
            Expected::U(..) => vec![&b[Buffers::UTOT], &b[Buffers::ULIST]],
            Expected::Y(_) => vec![&b[Buffers::YLIST]],
            Expected::Du(_) => vec![&b[Buffers::DULIST]],
            Expected::Fij(_) => vec![&b[Buffers::FIJ]],
            Expected::Forces(..) => vec![&b[Buffers::FORCE]],
        }
    }

    fn validate(&self, out: &[Vec<u8>]) -> Validation {
        let ny = self.ny;
        let (atoms, pairs) = (self.config.nlocal, self.config.pairs());
        let l = self.layout;
        match &self.expected {
            Expected::U(utot, ulist) => self
                .compare_c(&l.unpack(&self.reals(&out[0]), atoms, ny), utot, "total U")
                .and(self.compare_c(
                    &l.unpack(&self.reals(&out[1]), pairs, ny),
                    ulist,
                    "U of every pair",
                )),
            Expected::Y(y) => self.compare_c(&l.unpack(&self.reals(&out[0]), atoms, ny), y, "Y"),
            Expected::Du(du) => self.compare_c(
                &l.unpack(&self.reals(&out[0]), pairs, 3 * ny),
                du,
                "dU of every pair",
            ),
            Expected::Fij(f) => {
                let scale = f.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
                Validation::compare(
                    &self.reals(&out[0]),
                    f,
                    tolerance(self.precision).0,
                    scale,
                    "dE/dr of every pair",
                )
            }
            Expected::Forces(f, file) => self.forces_check(&self.reals(&out[0]), f, *file),
        }
    }

    fn model(&self) -> Model {
        self.model
    }

    fn metrics(&self, out: &[Vec<u8>]) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::from([
            ("atoms".to_string(), self.config.nlocal as f64),
            ("pairs".to_string(), self.config.pairs() as f64),
            ("batches".to_string(), self.groups.len() as f64),
            ("batch_atoms".to_string(), self.batch as f64),
            (
                "device_bytes".to_string(),
                self.buffers.all.iter().map(|b| b.size() as f64).sum(),
            ),
            (
                "atom_steps_per_run".to_string(),
                (self.config.nlocal as u64 * self.steps) as f64,
            ),
        ]);
        if let (Expected::Forces(f, _), Some(raw)) = (&self.expected, out.first()) {
            m.insert(
                "rms_force_deviation".into(),
                sna::rms_deviation(&self.reals(raw), f),
            );
        }
        m
    }
}

/// The force call on the CPU in f64 (the stage kernels run their stage on
/// the reference's inputs), checked against the reference file or, for the
/// synthetic problem, by the forces summing to zero.
struct SnapCpu {
    kernel: String,
    config: Config,
    tables: Tables,
    geo: Vec<[f64; 8]>,
    file_forces: Option<Vec<f64>>,
    states: Vec<AtomState>,
    du: Vec<[Vec<C>; 3]>,
    forces: Vec<f64>,
    steps: u64,
}

impl SnapCpu {
    fn new(case: &Case) -> Result<SnapCpu> {
        let (config, file_forces) = problem(case)?;
        let tables = config.tables();
        let geo = config.geometries();
        let states = if case.kernel == "force" || case.kernel == "compute_U" {
            Vec::new()
        } else {
            config.states(&tables, &geo)
        };
        Ok(SnapCpu {
            kernel: case.kernel.clone(),
            steps: if case.kernel == "force" {
                case.uint("steps")?
            } else {
                1
            },
            config,
            tables,
            geo,
            file_forces,
            states,
            du: Vec::new(),
            forces: Vec::new(),
        })
    }
}

impl CpuKernel for SnapCpu {
    fn run(&mut self) {
        let (c, t, g) = (&self.config, &self.tables, &self.geo);
        match self.kernel.as_str() {
            "compute_U" => {
                self.states = crate::parallel::collect(c.nlocal, |i| {
                    let (ulist, utot) = c.atom_u(t, g, i);
                    AtomState {
                        ulist,
                        utot,
                        y: Vec::new(),
                    }
                });
            }
            "compute_Y" => {
                let y = crate::parallel::collect(c.nlocal, |i| t.ylist(&self.states[i].utot));
                for (s, y) in self.states.iter_mut().zip(y) {
                    s.y = y;
                }
            }
            "compute_dU" => {
                self.du = crate::parallel::collect(c.pairs(), |q| {
                    let u = &self.states[q / c.nnbr].ulist[q % c.nnbr];
                    Config::pair_du(t, &g[q], u)
                });
            }
            "compute_dE" => self.forces = c.pair_forces(t, g, &self.states),
            _ => {
                for _ in 0..self.steps {
                    self.forces = c.forces();
                }
            }
        }
    }

    fn validate(&self) -> Validation {
        if self.kernel != "force" {
            let values = self.states.iter().flat_map(|s| s.utot.iter().chain(&s.y));
            let du = self.du.iter().flatten().flatten();
            let bad = values
                .chain(du)
                .filter(|c| !(c.re.is_finite() && c.im.is_finite()));
            let bad = bad.count() + self.forces.iter().filter(|x| !x.is_finite()).count();
            return Validation {
                max_error: bad as f64,
                tolerance: 0.0,
                passed: bad == 0,
                detail: format!(
                    "{}: {bad} values not finite (its values are checked on the GPU and through the force case)",
                    self.kernel
                ),
            };
        }
        match &self.file_forces {
            Some(want) => {
                let rms = sna::rms_deviation(&self.forces, want);
                Validation {
                    max_error: rms,
                    tolerance: 1e-10,
                    passed: rms <= 1e-10,
                    detail: format!("RMS |F| deviation {rms:.3e} eV/A vs the reference file"),
                }
            }
            None => {
                let total = (0..3)
                    .map(|k| self.forces.iter().skip(k).step_by(3).sum::<f64>().abs())
                    .fold(0.0, f64::max);
                Validation::compare(&[total], &[0.0], 1e-10, 1.0, "sum of forces (eV/A)")
            }
        }
    }

    fn model(&self) -> Model {
        model(
            &self.kernel,
            &self.tables,
            &self.config,
            self.steps,
            Precision::F64,
        )
    }
}

#[cfg(test)]
mod tests;
