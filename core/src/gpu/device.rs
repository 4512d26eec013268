//! [`Gpu`]: an open device with what the suite knows about it, and the
//! operations benchmarks use, checked against the adapter's limits and for
//! device loss.

use std::collections::HashMap;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use web_time::Instant;

use super::adapter::{self, Capabilities, PlatformInfo, Selector};
use super::backend::Api;
use super::caps::{DeviceOffers, wanted_features};
use super::clock::{self, Clock};
use super::df64::{self, Df64Status};
use super::heater::Busy;
use super::pipeline::{Bind, Compiler, Pipeline, PipelineSource};
use super::poison::Poisons;
use super::readback::{self, Staging};
use super::resources;
use super::uploads::Uploads;
use crate::error::{Error, Result};
use crate::memo::Memo;
use crate::precision::Precision;
use crate::shader::{Df64Mode, ShaderSpec};
use crate::timing::{Stats, TimingMethod};

/// Empty submissions timed for the host timing's resolution (after one
/// that is not: the first submission of a device pays for setting up).
const ROUND_TRIPS: usize = 5;

/// An open device on a chosen adapter: everything a benchmark needs.
pub struct Gpu {
    /// The wgpu device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Which adapter this is.
    pub info: PlatformInfo,
    /// What it can do (features enabled on the device, its limits).
    pub caps: Capabilities,
    /// The limits the device was created with.
    pub limits: wgpu::Limits,
    /// Outcome of the df64 self-test.
    pub df64: Df64Status,
    /// How long the GPU has been busy without a break (see [`super::heater`]).
    pub busy: Busy,
    /// What its timers have been seen to resolve (see [`super::clock`]).
    pub clock: Clock,
    /// Host inputs and references shared by the cases of a request.
    pub memo: Memo,
    /// Read-only input buffers shared by the cases of one problem.
    pub uploads: Uploads,
    /// The readback staging buffer, kept between the cases of a request.
    staging: Staging,
    /// Pattern sources for poisoning outputs on the device.
    poisons: Poisons,
    compiler: Compiler,
    /// Nanoseconds spent compiling pipelines so far.
    compile_ns: AtomicU64,
    /// Pipelines compiled so far, by [`pipeline_key`]: the cases of a
    /// sweep that differ only in their inputs or in a host-side choice
    /// reuse one compiled kernel.
    pipelines: Mutex<HashMap<u64, (Pipeline, PipelineSource)>>,
    /// The adapter the device was opened on (for driver queries that wgpu
    /// does not make, see [`super::stats`]); only Vulkan builds make them.
    #[cfg(vulkan)]
    pub(crate) adapter: wgpu::Adapter,
    /// The keep-warm kernel, made on first use (`None` where it cannot run).
    #[cfg(not(target_arch = "wasm32"))]
    heater: std::sync::OnceLock<Option<super::heater::Heater>>,
    lost: Arc<Mutex<Option<String>>>,
}

impl Gpu {
    /// Opens a device on the adapter `selector` picks of `api` (see
    /// [`adapter::select_adapter`]) with every feature the suite uses that
    /// the adapter has, and with the adapter's own limits rather than
    /// wgpu's defaults; then runs the df64 self-test.
    pub async fn open(selector: &Selector, api: Option<Api>) -> Result<Gpu> {
        let (adapter, entry) = adapter::select_adapter(selector, api).await?;
        let desc = wgpu::DeviceDescriptor {
            label: Some("skylight"),
            required_features: adapter.features() & wanted_features(),
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let (device, queue) = super::host_import::request_device(&adapter, &desc).await?;
        Gpu::with_info(&adapter, device, queue, entry.info).await
    }

    /// Wraps a device a front end (or a test) already opened on `adapter`,
    /// as wgpu's examples receive theirs; what the suite can run follows
    /// the features and limits the device was created with. Runs the df64
    /// self-test.
    pub async fn from_device(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
    ) -> Result<Gpu> {
        let info = adapter::describe(None, adapter).info;
        Gpu::with_info(adapter, device, queue, info).await
    }

    async fn with_info(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        mut info: PlatformInfo,
    ) -> Result<Gpu> {
        let lost = Arc::new(Mutex::new(None));
        let lost_cb = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            if let Ok(mut l) = lost_cb.lock() {
                *l = Some(format!("{reason:?}: {msg}"));
            }
        });
        // Errors are caught by error scopes around each operation; anything that
        // escapes them is logged instead of wgpu's default panic.
        device.on_uncaptured_error(Arc::new(|e| log::error!("uncaptured wgpu error: {e}")));
        let limits = device.limits();
        let mut caps = Capabilities::from_adapter(device.features(), &limits, &adapter.get_info());
        caps.device_memory = super::memory::device_local_bytes(adapter);
        // What this device was opened with, which may be less than the
        // adapter offers (a front end's device).
        info.offers = Some(DeviceOffers::new(
            device.features() & wanted_features(),
            &limits,
            &adapter.get_info(),
            caps.device_memory,
        ));
        let compiler = Compiler::new(adapter, &device, &caps);
        let df64 = df64::self_test(&device, &queue, &compiler).await?;
        info.df64 = Some(df64.describe());
        let gpu = Gpu {
            device,
            queue,
            info,
            caps,
            limits,
            df64,
            busy: Busy::default(),
            clock: Clock::default(),
            memo: Memo::default(),
            uploads: Uploads::default(),
            staging: Staging::default(),
            poisons: Poisons::default(),
            compiler,
            compile_ns: AtomicU64::new(0),
            pipelines: Mutex::new(HashMap::new()),
            #[cfg(vulkan)]
            adapter: adapter.clone(),
            #[cfg(not(target_arch = "wasm32"))]
            heater: std::sync::OnceLock::new(),
            lost,
        };
        gpu.check_lost()?;
        Ok(gpu)
    }

    /// Whether df64 kernels can be compiled in a precise formulation: SPIR-V
    /// passthrough on Vulkan (see [`crate::precise`]).
    pub fn precise_available(&self) -> bool {
        self.compiler.precise_available()
    }

    /// `Err(Device)` once the device has been lost.
    pub fn check_lost(&self) -> Result<()> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(reason) => Err(Error::Device(format!("device lost ({reason})"))),
            None => Ok(()),
        }
    }

    /// `Err(MissingFeature)` when `precision` cannot run here.
    pub fn require(&self, precision: Precision) -> Result<()> {
        if precision == Precision::F64 && !self.caps.f64 {
            return Err(Error::MissingFeature("SHADER_F64"));
        }
        Ok(())
    }

    /// `Err(OverLimit)` when one binding of `bytes` would pass the adapter's limits.
    pub fn check_size(&self, bytes: u64) -> Result<()> {
        resources::check_size(&self.caps, bytes)
    }

    /// A storage buffer holding `bytes` (also a copy source and destination).
    pub fn storage_init(&self, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
        self.check_size(bytes.len() as u64)?;
        resources::storage_init(&self.device, label, bytes)
    }

    /// Writes `bytes` into `buf` at `offset` (large writes in parallel,
    /// submitted at once: in order with the writes queued before and after).
    pub fn write(&self, buf: &wgpu::Buffer, offset: u64, bytes: &[u8]) -> Result<()> {
        resources::write(&self.device, &self.queue, buf, offset, bytes)
    }

    /// An uninitialised storage buffer of `len` bytes (which need not fit
    /// one binding: kernels may bind ranges of it).
    pub fn storage(&self, label: &str, len: u64) -> Result<wgpu::Buffer> {
        if len > self.caps.max_buffer {
            return Err(Error::OverLimit {
                limit: "max_buffer_size",
                needed: len,
                max: self.caps.max_buffer,
            });
        }
        Ok(resources::storage(&self.device, label, len))
    }

    /// A storage buffer of `len` bytes filled with repetitions of `pattern`
    /// (the poison that makes an unwritten output element fail validation).
    pub fn storage_poisoned(&self, label: &str, len: u64, pattern: &[u8]) -> Result<wgpu::Buffer> {
        self.check_size(len)?;
        let buf = resources::storage(&self.device, label, len);
        self.poison_range(&buf, 0, len, pattern);
        Ok(buf)
    }

    /// Overwrites `buf` with repetitions of `pattern`, in bounded chunks.
    pub fn poison(&self, buf: &wgpu::Buffer, pattern: &[u8]) {
        self.poison_range(buf, 0, buf.size(), pattern);
    }

    /// Overwrites `len` bytes of `buf` from `offset` with repetitions of
    /// `pattern`: large ranges by copies on the device, submitted at once
    /// (in order with the writes queued before and after).
    pub fn poison_range(&self, buf: &wgpu::Buffer, offset: u64, len: u64, pattern: &[u8]) {
        self.poisons
            .fill(&self.device, &self.queue, buf, offset, len, pattern);
    }

    /// A uniform buffer holding `bytes`.
    pub fn uniform(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        resources::uniform(&self.device, label, bytes)
    }

    /// Composes, compiles and links `spec` at `entry` with an explicit layout,
    /// in the df64 formulation the self-test chose (see [`Compiler::pipeline`]).
    /// A kernel compiled before with the same source, entry point and
    /// bindings is reused.
    pub fn pipeline(&self, spec: &ShaderSpec, entry: &str, binds: &[Bind]) -> Result<Pipeline> {
        let t0 = Instant::now();
        let mode = self.df64.mode();
        let key = pipeline_key(spec, entry, binds, mode);
        let cached = self
            .pipelines
            .lock()
            .ok()
            .and_then(|c| c.get(&key).map(|(p, _)| p.clone()));
        let out = match cached {
            Some(p) => Ok(p),
            None => self
                .compiler
                .pipeline(&self.device, spec, entry, binds, mode)
                .inspect(|p| {
                    if let Ok(mut c) = self.pipelines.lock() {
                        let source = PipelineSource {
                            spec: spec.clone(),
                            entry: entry.to_string(),
                            binds: binds.to_vec(),
                        };
                        c.insert(key, (p.clone(), source));
                    }
                }),
        };
        let ns = t0.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
        self.compile_ns.fetch_add(ns, Ordering::Relaxed);
        out
    }

    /// What every pipeline compiled so far was made from, in no order.
    pub fn compiled(&self) -> Vec<PipelineSource> {
        self.pipelines
            .lock()
            .map(|c| c.values().map(|(_, s)| s.clone()).collect())
            .unwrap_or_default()
    }

    /// Seconds spent compiling pipelines since the device was opened.
    pub fn compile_seconds(&self) -> f64 {
        self.compile_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }

    /// Runs `work` while a light kernel keeps the GPU busy on a thread of
    /// its own, so the clocks stay up while the host prepares or checks a
    /// case (see [`super::heater`]); the time counts as busy. CPU adapters
    /// (no clock governor to feed, and the load would take the host's
    /// cores), the browser (no threads) and GL on Linux (its context is
    /// current on the opening thread only, see `super::egl`) run `work`
    /// alone.
    pub async fn keep_warm<F: Future>(&self, work: F) -> F::Output {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(heater) = self.heater() {
            let heat = heater.start();
            let out = work.await;
            let since = heat.since();
            heat.stop();
            self.busy.record(since, Instant::now());
            return out;
        }
        work.await
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn heater(&self) -> Option<&super::heater::Heater> {
        self.heater
            .get_or_init(|| {
                let gl_thread_bound = cfg!(target_os = "linux") && self.info.backend == "gl";
                if self.info.device_type == "cpu" || gl_thread_bound {
                    return None;
                }
                let spec = ShaderSpec::new("heater", super::heater::SOURCE, Precision::F32);
                let pipe = self
                    .pipeline(&spec, "keep_warm", &[Bind::ReadWrite, Bind::Uniform])
                    .inspect_err(|e| log::warn!("no keep-warm kernel: {e}"))
                    .ok()?;
                Some(super::heater::Heater::new(&self.device, &self.queue, &pipe))
            })
            .as_ref()
    }

    /// Binds `buffers` (whole) in order to `pipeline`'s group 0.
    pub fn bind(&self, pipeline: &Pipeline, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let resources: Vec<wgpu::BindingResource> =
            buffers.iter().map(|b| b.as_entire_binding()).collect();
        self.bind_resources(pipeline, &resources)
    }

    /// Binds `resources` (whole buffers or sub-ranges) in order to `pipeline`'s group 0.
    pub fn bind_resources(
        &self,
        pipeline: &Pipeline,
        resources: &[wgpu::BindingResource],
    ) -> wgpu::BindGroup {
        resources::bind_resources(&self.device, &pipeline.layout, resources)
    }

    /// Copies `buffers` to the host and returns their bytes.
    pub async fn read_buffers(&self, buffers: &[&wgpu::Buffer]) -> Result<Vec<Vec<u8>>> {
        self.read_with(buffers, readback::owned).await
    }

    /// Copies `buffers` to the host and returns `f` of their bytes, read
    /// where they are mapped (no copy of them is made). The staging buffer
    /// is kept for the next read until [`Gpu::end_request`].
    pub async fn read_with<T>(
        &self,
        buffers: &[&wgpu::Buffer],
        f: impl FnOnce(&[&[u8]]) -> T,
    ) -> Result<T> {
        let out =
            readback::read_with(&self.device, &self.queue, Some(&self.staging), buffers, f).await;
        self.check_lost()?;
        out
    }

    /// Drops what the cases of a request shared (host inputs and
    /// references, uploaded inputs, the readback staging buffer), freeing
    /// their memory.
    pub fn end_request(&self) {
        self.memo.clear();
        self.uploads.clear();
        self.staging.clear();
    }

    /// Maps the whole of `buffer` for `mode` once the queue is done with it.
    pub async fn map(&self, buffer: &wgpu::Buffer, mode: wgpu::MapMode) -> Result<()> {
        resources::map(&self.device, buffer, mode).await?;
        self.check_lost()
    }

    /// Maps the whole of `buffer` for `mode` once submission `until` (its
    /// last use) is done, even while later submissions run.
    pub async fn map_after(
        &self,
        buffer: &wgpu::Buffer,
        mode: wgpu::MapMode,
        until: wgpu::SubmissionIndex,
    ) -> Result<()> {
        resources::map_after(&self.device, buffer, mode, until).await?;
        self.check_lost()
    }

    /// Resolves when submission `index` is done, which must be the newest
    /// so far; later submissions may still run (see
    /// [`resources::submitted_done`]).
    pub fn submitted_done(
        &self,
        index: wgpu::SubmissionIndex,
    ) -> impl Future<Output = Result<()>> + '_ {
        let done = resources::submitted_done(&self.device, &self.queue, index);
        async move {
            done.await?;
            self.check_lost()
        }
    }

    /// Resolves when the queue has finished everything submitted so far.
    pub async fn finish(&self) -> Result<()> {
        resources::finish(&self.device, &self.queue).await?;
        self.check_lost()
    }

    /// Seconds a GPU timestamp tick stands for (the queue's timestamp period).
    pub fn timestamp_period_s(&self) -> f64 {
        f64::from(self.queue.get_timestamp_period()) * 1e-9
    }

    /// The resolution, seconds, of `method`'s timer here: for timestamps
    /// the finest quantum measured so far (see [`super::clock`]), else the
    /// period; for the host clock the larger of its tick and the median
    /// round trip of an empty submission (measured on first use), the
    /// least a sample timed on the host can be.
    pub async fn resolution(&self, method: TimingMethod) -> Result<f64> {
        if matches!(
            method,
            TimingMethod::GpuTimestampsEncoder | TimingMethod::GpuTimestampsPasses
        ) {
            return Ok(self.clock.timestamp_s(self.timestamp_period_s()));
        }
        if let Some(s) = self.clock.host_s() {
            return Ok(s);
        }
        let mut trips = Vec::with_capacity(ROUND_TRIPS + 1);
        for _ in 0..=ROUND_TRIPS {
            let t0 = Instant::now();
            let enc = self.device.create_command_encoder(&Default::default());
            self.queue.submit([enc.finish()]);
            self.finish().await?;
            trips.push(t0.elapsed().as_secs_f64());
        }
        let s = Stats::of(&trips[1..]).median.max(clock::host_tick_s());
        self.clock.set_host_s(s);
        Ok(s)
    }

    /// Runs `f` inside validation and out-of-memory error scopes and turns any
    /// captured wgpu error into an [`Error`], so bad sizes or shaders come back
    /// as errors instead of a panic or a lost device.
    pub async fn scoped<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let out = resources::scoped(&self.device, f).await?;
        self.check_lost()?;
        Ok(out)
    }
}

/// What a compiled pipeline depends on: the composed source (constants and
/// preludes included), the entry point, the bindings and the df64
/// formulation (precise compilation changes the module, not the text).
fn pipeline_key(spec: &ShaderSpec, entry: &str, binds: &[Bind], mode: Df64Mode) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    spec.compose(mode).hash(&mut h);
    spec.precision.hash(&mut h);
    entry.hash(&mut h);
    binds.hash(&mut h);
    mode.precise.hash(&mut h);
    h.finish()
}
