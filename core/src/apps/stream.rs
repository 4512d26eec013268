//! `stream`: BabelStream's bandwidth kernels (copy, mul, add, triad, dot,
//! nstream) in every precision, plus the driver's own buffer copy as an
//! in-run reference. Bytes are counted as BabelStream counts them.

use crate::app::{
    App, Case, CpuKernel, Kernel, Model, ParamKind, ParamSpec, Request, Timestamps, Validation,
    check_wg, wg_param,
};
use crate::apps::common::{check_binding, fresh_rng, max_elements, parse_size, random_reals};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Pipeline, dispatch_shape};
use crate::gpu::{Capabilities, Gpu};
use crate::parallel::{self, par_map};
use crate::params::Resolved;
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

const SOURCE: &str = include_str!("../../../shaders/stream/stream.wgsl");

/// BabelStream's scalar.
const SCALAR: f64 = 0.4;

/// The kernels, in BabelStream's order, and the driver copy.
const KERNELS: &[&str] = &[
    "copy",
    "mul",
    "add",
    "triad",
    "dot",
    "nstream",
    "copy-buffer",
];

/// Default array length: BabelStream's 2^25.
const DEFAULT_N: u64 = 1 << 25;

/// Reals per 16-byte vector (`RV_LANES` of the prelude).
fn lanes(p: Precision) -> u64 {
    16 / p.real_bytes()
}

/// Bytes moved per element and FLOPs per element (BabelStream's counting).
fn per_element(kernel: &str) -> (u64, u64) {
    match kernel {
        "copy" | "copy-buffer" => (2, 0),
        "mul" => (2, 1),
        "add" => (3, 1),
        "triad" => (3, 2),
        "dot" => (2, 2),
        "nstream" => (4, 3),
        _ => (0, 0),
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
                kind: ParamKind::Choice(KERNELS),
                default: "copy,mul,add,triad,dot,nstream,copy-buffer",
            },
            ParamSpec {
                name: "size",
                help: "elements per array: default (2^25, capped by the adapter), small (2^16), or a number",
                kind: ParamKind::Text,
                default: "default",
            },
            wg_param("256"),
            ParamSpec {
                name: "epi",
                help: "elements per invocation",
                kind: ParamKind::UInt { min: 1, max: 64 },
                default: "1",
            },
            ParamSpec {
                name: "alloc",
                help: "separate: one allocation per array (BabelStream); packed: one allocation, arrays `pad` bytes apart",
                kind: ParamKind::Choice(&["separate", "packed"]),
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
        ]
    }

    fn cases(&self, req: &Request, caps: &Capabilities) -> Result<Vec<Case>> {
        let r = Resolved::new(self, req)?;
        let size = r.text("size");
        let explicit = !matches!(size, "default" | "small");
        let mut cases = Vec::new();
        for &p in &r.precisions {
            let mut n = parse_size("size", size, &[("default", DEFAULT_N), ("small", 1 << 16)])?;
            let cap = max_elements(p.real_bytes(), caps);
            if n > cap {
                if explicit {
                    check_binding(n * p.real_bytes(), caps)?;
                }
                log::warn!(
                    "stream {p}: {n} elements pass the adapter's binding limit of {} bytes; capped to {cap}",
                    caps.max_storage_binding.min(caps.max_buffer)
                );
                n = cap;
            }
            // Kernels move 16-byte vectors: round capped sizes down, reject others.
            let lanes = lanes(p);
            if n % lanes != 0 {
                if explicit {
                    return Err(Error::bad_param(
                        "size",
                        format!("{n} is not a multiple of {lanes} (one 16-byte vector of {p})"),
                    ));
                }
                n -= n % lanes;
            }
            for kernel in r.list("kernel") {
                // The driver copy depends on neither the precision nor the launch shape: run it once.
                if kernel == "copy-buffer" {
                    if p == r.precisions[0] {
                        cases.push(
                            Case::new(self.name(), kernel, "driver", p)
                                .param("n", n)
                                .param("wg", 1)
                                .param("epi", 1)
                                .param("alloc", "separate")
                                .param("pad", 0),
                        );
                    }
                    continue;
                }
                for wg in r.uints("wg") {
                    let wg = check_wg(wg, caps)?;
                    if kernel == "dot" && !wg.is_power_of_two() {
                        return Err(Error::bad_param(
                            "wg",
                            format!("dot needs a power-of-two workgroup size, not {wg}"),
                        ));
                    }
                    for epi in r.uints("epi") {
                        for alloc in r.list("alloc") {
                            let pads = if alloc == "packed" {
                                r.uints("pad")
                            } else {
                                vec![0]
                            };
                            for pad in pads {
                                let variant = match alloc.as_str() {
                                    "packed" => format!("wg{wg}/epi{epi}/packed{pad}"),
                                    _ => format!("wg{wg}/epi{epi}"),
                                };
                                cases.push(
                                    Case::new(self.name(), kernel, &variant, p)
                                        .param("n", n)
                                        .param("wg", wg)
                                        .param("epi", epi)
                                        .param("alloc", alloc)
                                        .param("pad", pad),
                                );
                            }
                        }
                    }
                }
            }
        }
        Ok(cases)
    }

    fn prepare(&self, gpu: &Gpu, case: &Case) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(StreamGpu::new(gpu, case)?))
    }

    fn shaders(&self, p: Precision) -> Vec<ShaderSpec> {
        vec![spec(p, 256, 1)]
    }

    fn prepare_cpu(&self, case: &Case) -> Option<Result<Box<dyn CpuKernel>>> {
        if case.kernel == "copy-buffer" {
            return None;
        }
        Some(StreamCpu::new(case).map(|k| Box::new(k) as Box<dyn CpuKernel>))
    }
}

/// Host copies of the three arrays, drawn around BabelStream's initial values
/// (a = 0.1, b = 0.2, c = 0.0) but random, since constant arrays hide indexing errors.
struct Inputs {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
}

impl Inputs {
    fn new(n: usize, p: Precision) -> Inputs {
        let mut rng = fresh_rng();
        Inputs {
            a: random_reals(&mut rng, n, 0.05, 0.15, p),
            b: random_reals(&mut rng, n, 0.15, 0.25, p),
            c: random_reals(&mut rng, n, -0.05, 0.05, p),
        }
    }

    /// The values an array kernel must write.
    fn expected(&self, kernel: &str, s: f64) -> Vec<f64> {
        let (a, b, c) = (&self.a, &self.b, &self.c);
        match kernel {
            "mul" => par_map(c.len(), |i| s * c[i]),
            "add" => par_map(a.len(), |i| a[i] + b[i]),
            "triad" => par_map(a.len(), |i| b[i] + s * c[i]),
            "nstream" => par_map(a.len(), |i| a[i] + b[i] + s * c[i]),
            _ => a.clone(),
        }
    }

    fn dot(&self) -> f64 {
        self.a.iter().zip(&self.b).map(|(x, y)| x * y).sum()
    }
}

/// Tolerances: BabelStream's 100 eps for arrays; for dot, 100 eps per level of
/// the summation tree (tighter than BabelStream's 1e7 eps, which lets an f32
/// dot be off by more than 100%).
fn tolerance(kernel: &str, p: Precision, n: usize) -> f64 {
    let eps = p.epsilon();
    if kernel == "dot" {
        100.0 * eps * (n as f64).log2().max(1.0)
    } else {
        100.0 * eps
    }
}

fn validate(kernel: &str, p: Precision, inputs: &Inputs, got: &[f64]) -> Validation {
    let n = inputs.a.len();
    if kernel == "dot" {
        let want = inputs.dot();
        let sum: f64 = got.iter().sum();
        if !sum.is_finite() {
            return Validation::fail("dot: a partial sum was not written".into());
        }
        return Validation::compare(
            &[sum],
            &[want],
            tolerance(kernel, p, n),
            0.0,
            "dot vs exact host sum",
        );
    }
    let want = inputs.expected(kernel, SCALAR);
    Validation::compare(got, &want, tolerance(kernel, p, n), 1e-30, kernel)
}

/// Which array a kernel writes (0 = a, 1 = b, 2 = c; `usize::MAX` for dot's partial sums).
fn output_array(kernel: &str) -> usize {
    match kernel {
        "mul" => 1,
        "triad" | "nstream" => 0,
        "dot" => usize::MAX,
        _ => 2,
    }
}

fn model(kernel: &str, n: u64, p: Precision) -> Model {
    let (arrays, flops) = per_element(kernel);
    Model {
        flops: (flops * n) as f64,
        bytes: (arrays * n * p.real_bytes()) as f64,
    }
}

/// The module holding every stream kernel (one entry point each).
fn spec(p: Precision, wg: u32, epi: u32) -> ShaderSpec {
    ShaderSpec::new("stream", SOURCE, p)
        .with_u32("WG", wg)
        .with_u32("EPI", epi)
        .with_include(sources::GRID)
        .with_include(sources::REDUCE)
}

struct StreamGpu {
    kernel: String,
    precision: Precision,
    n: u64,
    inputs: Inputs,
    arrays: Arrays,
    partial: wgpu::Buffer,
    /// `None` for the driver copy.
    pipeline: Option<(Pipeline, wgpu::BindGroup)>,
    groups: (u32, u32),
}

/// Where the three arrays live: three allocations, or one with padded offsets.
struct Arrays {
    buffers: Vec<wgpu::Buffer>,
    /// (buffer index, byte offset) of a, b and c.
    at: [(usize, u64); 3],
    /// Bytes of one array.
    bytes: u64,
}

impl Arrays {
    fn new(gpu: &Gpu, case: &Case, bytes: u64) -> Result<Arrays> {
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let mk = |label: &str, size: u64| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        gpu.check_size(bytes)?;
        // The driver copy cannot copy within one buffer: it always uses three.
        if case.text("alloc") != "packed" || case.kernel == "copy-buffer" {
            let buffers = vec![mk("a", bytes), mk("b", bytes), mk("c", bytes)];
            return Ok(Arrays {
                buffers,
                at: [(0, 0), (1, 0), (2, 0)],
                bytes,
            });
        }
        let align = gpu.limits.min_storage_buffer_offset_alignment as u64;
        let stride = (bytes + case.uint("pad")?).div_ceil(align) * align;
        let total = 2 * stride + bytes;
        if total > gpu.caps.max_buffer {
            return Err(Error::OverLimit {
                limit: "max_buffer_size",
                needed: total,
                max: gpu.caps.max_buffer,
            });
        }
        let buffers = vec![mk("abc", total)];
        Ok(Arrays {
            buffers,
            at: [(0, 0), (0, stride), (0, 2 * stride)],
            bytes,
        })
    }

    fn buffer(&self, i: usize) -> &wgpu::Buffer {
        &self.buffers[self.at[i].0]
    }

    fn binding(&self, i: usize) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: self.buffer(i),
            offset: self.at[i].1,
            size: wgpu::BufferSize::new(self.bytes),
        })
    }

    /// Array `i`'s bytes out of the read-back copy of its buffer.
    fn slice<'a>(&self, i: usize, read: &'a [u8]) -> &'a [u8] {
        let off = self.at[i].1 as usize;
        &read[off..off + self.bytes as usize]
    }
}

impl StreamGpu {
    fn new(gpu: &Gpu, case: &Case) -> Result<StreamGpu> {
        let p = case.precision;
        let (n, wg, epi) = (
            case.uint("n")?,
            case.uint("wg")? as u32,
            case.uint("epi")? as u32,
        );
        let inputs = Inputs::new(n as usize, p);
        let arrays = Arrays::new(gpu, case, n * p.real_bytes())?;
        let out_index = output_array(&case.kernel);
        let poison = p.poison_pattern();
        // nstream reads the array it writes, so it cannot be poisoned; its
        // result differs from the initial values, so an unwritten element still fails.
        for (i, v) in [&inputs.a, &inputs.b, &inputs.c].into_iter().enumerate() {
            let (b, off) = arrays.at[i];
            if i == out_index && case.kernel != "nstream" {
                gpu.poison_range(&arrays.buffers[b], off, arrays.bytes, &poison);
            } else {
                gpu.queue
                    .write_buffer(&arrays.buffers[b], off, &p.encode(v));
            }
        }
        let threads = (n / lanes(p)).div_ceil(epi as u64);
        let groups = dispatch_shape(threads, wg, gpu.caps.max_workgroups_per_dim)?;
        let total_threads = groups.0 as u64 * groups.1 as u64 * wg as u64;
        let partial = gpu.storage_poisoned(
            "partial",
            groups.0 as u64 * groups.1 as u64 * p.real_bytes(),
            &poison,
        )?;
        let pipeline = if case.kernel == "copy-buffer" {
            None
        } else {
            let pipe = gpu.pipeline(
                &spec(p, wg, epi),
                &case.kernel,
                &[
                    Bind::ReadWrite,
                    Bind::ReadWrite,
                    Bind::ReadWrite,
                    Bind::Read,
                    Bind::Uniform,
                    Bind::ReadWrite,
                ],
            )?;
            let scalars = gpu.storage_init("scalars", &p.encode(&[SCALAR]))?;
            let dims = gpu.uniform(
                "dims",
                bytemuck::cast_slice(&[(n / lanes(p)) as u32, total_threads as u32, 0, 0]),
            );
            let bg = gpu.bind_resources(
                &pipe,
                &[
                    arrays.binding(0),
                    arrays.binding(1),
                    arrays.binding(2),
                    scalars.as_entire_binding(),
                    dims.as_entire_binding(),
                    partial.as_entire_binding(),
                ],
            );
            Some((pipe, bg))
        };
        if n > u32::MAX as u64 || total_threads > u32::MAX as u64 {
            return Err(Error::bad_param("size", "more than 2^32 - 1 elements"));
        }
        Ok(StreamGpu {
            kernel: case.kernel.clone(),
            precision: p,
            n,
            inputs,
            arrays,
            partial,
            pipeline,
            groups,
        })
    }
}

impl Kernel for StreamGpu {
    fn encode(&self, enc: &mut wgpu::CommandEncoder, ts: Timestamps<'_>) {
        match &self.pipeline {
            None => enc.copy_buffer_to_buffer(
                self.arrays.buffer(0),
                0,
                self.arrays.buffer(2),
                0,
                self.arrays.bytes,
            ),
            Some((pipe, bg)) => {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(&self.kernel),
                    timestamp_writes: ts.pass(true, true),
                });
                pipe.set(&mut pass, bg);
                pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
            }
        }
    }

    fn pass_timed(&self) -> bool {
        self.pipeline.is_some()
    }

    fn outputs(&self) -> Vec<&wgpu::Buffer> {
        match output_array(&self.kernel) {
            usize::MAX => vec![&self.partial],
            i => vec![self.arrays.buffer(i)],
        }
    }

    fn validate(&self, outputs: &[Vec<u8>]) -> Validation {
        let bytes = match output_array(&self.kernel) {
            usize::MAX => &outputs[0][..],
            i => self.arrays.slice(i, &outputs[0]),
        };
        let got = self.precision.decode(bytes);
        validate(&self.kernel, self.precision, &self.inputs, &got)
    }

    fn model(&self) -> Model {
        model(&self.kernel, self.n, self.precision)
    }
}

/// The same kernels on the CPU in f64 (rayon).
struct StreamCpu {
    kernel: String,
    inputs: Inputs,
    out: Vec<f64>,
    dot: f64,
}

impl StreamCpu {
    fn new(case: &Case) -> Result<StreamCpu> {
        let n = case.uint("n")? as usize;
        Ok(StreamCpu {
            kernel: case.kernel.clone(),
            inputs: Inputs::new(n, Precision::F64),
            out: vec![f64::NAN; n],
            dot: f64::NAN,
        })
    }
}

impl CpuKernel for StreamCpu {
    fn run(&mut self) {
        let (a, b, c) = (&self.inputs.a, &self.inputs.b, &self.inputs.c);
        let s = SCALAR;
        match self.kernel.as_str() {
            "copy" => parallel::fill(&mut self.out, |i| a[i]),
            "mul" => parallel::fill(&mut self.out, |i| s * c[i]),
            "add" => parallel::fill(&mut self.out, |i| a[i] + b[i]),
            "triad" => parallel::fill(&mut self.out, |i| b[i] + s * c[i]),
            "nstream" => parallel::fill(&mut self.out, |i| a[i] + b[i] + s * c[i]),
            _ => self.dot = parallel::sum(a.len(), |i| a[i] * b[i]),
        }
    }

    fn validate(&self) -> Validation {
        if self.kernel == "dot" {
            return validate("dot", Precision::F64, &self.inputs, &[self.dot]);
        }
        validate(&self.kernel, Precision::F64, &self.inputs, &self.out)
    }

    fn model(&self) -> Model {
        model(&self.kernel, self.inputs.a.len() as u64, Precision::F64)
    }
}
