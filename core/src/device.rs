//! Adapter discovery, selection and device creation.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::shader::Df64Mode;

/// What the suite reports about one adapter (serialised into every result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlatformInfo {
    /// Position in [`list_adapters`]' order (`None` for the CPU platform).
    pub index: Option<usize>,
    /// Adapter name, e.g. `NVIDIA H100 80GB HBM3` or `llvmpipe (LLVM 15.0.6, 256 bits)`.
    pub name: String,
    /// Backend: `vulkan`, `metal`, `dx12`, `gl`, `webgpu`, or `cpu` for the CPU reference platform.
    pub backend: String,
    /// Device type: `discrete`, `integrated`, `virtual`, `cpu`, `other`.
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version string.
    pub driver_info: String,
    /// The df64 formulation the self-test chose (or why df64 is degraded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub df64: Option<String>,
}

impl PlatformInfo {
    /// A short label, e.g. `NVIDIA H100 80GB HBM3 (vulkan)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.backend)
    }
}

/// Compute capabilities of an adapter that decide which runs are possible.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Capabilities {
    /// `SHADER_F64`: native double precision in shaders.
    pub f64: bool,
    /// `TIMESTAMP_QUERY`: GPU timestamps at pass boundaries.
    pub timestamps: bool,
    /// `TIMESTAMP_QUERY_INSIDE_ENCODERS`: timestamps anywhere in a command encoder.
    pub timestamps_in_encoders: bool,
    /// `TIMESTAMP_QUERY_INSIDE_PASSES`: timestamps inside passes.
    pub timestamps_in_passes: bool,
    /// `SUBGROUP`: subgroup operations in compute shaders.
    pub subgroups: bool,
    /// Smallest and largest subgroup size the adapter reports.
    pub subgroup_size: (u32, u32),
    /// `max_storage_buffer_binding_size` in bytes.
    pub max_storage_binding: u64,
    /// `max_buffer_size` in bytes.
    pub max_buffer: u64,
    /// `max_compute_workgroup_storage_size` in bytes.
    pub max_workgroup_storage: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_workgroup_invocations: u32,
    /// `max_compute_workgroups_per_dimension`.
    pub max_workgroups_per_dim: u32,
    /// `max_storage_buffers_per_shader_stage`.
    pub max_storage_buffers: u32,
}

impl Capabilities {
    fn from_adapter(
        features: wgpu::Features,
        limits: &wgpu::Limits,
        info: &wgpu::AdapterInfo,
    ) -> Self {
        Capabilities {
            f64: features.contains(wgpu::Features::SHADER_F64),
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            timestamps_in_encoders: features
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
            timestamps_in_passes: features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
            subgroups: features.contains(wgpu::Features::SUBGROUP),
            subgroup_size: (info.subgroup_min_size, info.subgroup_max_size),
            max_storage_binding: limits.max_storage_buffer_binding_size,
            max_buffer: limits.max_buffer_size,
            max_workgroup_storage: limits.max_compute_workgroup_storage_size,
            max_workgroup_invocations: limits.max_compute_invocations_per_workgroup,
            max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
            max_storage_buffers: limits.max_storage_buffers_per_shader_stage,
        }
    }

    /// Feature names as wgpu spells them, for listings.
    pub fn feature_names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (on, name) in [
            (self.f64, "SHADER_F64"),
            (self.timestamps, "TIMESTAMP_QUERY"),
            (
                self.timestamps_in_encoders,
                "TIMESTAMP_QUERY_INSIDE_ENCODERS",
            ),
            (self.timestamps_in_passes, "TIMESTAMP_QUERY_INSIDE_PASSES"),
            (self.subgroups, "SUBGROUP"),
        ] {
            if on {
                v.push(name);
            }
        }
        v
    }
}

/// One adapter found on this machine, with what it can do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AdapterEntry {
    /// Identity of the adapter.
    pub info: PlatformInfo,
    /// Its compute capabilities.
    pub caps: Capabilities,
}

/// Features the suite uses when the adapter has them.
fn wanted_features() -> wgpu::Features {
    wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SUBGROUP
        | wgpu::Features::PASSTHROUGH_SHADERS
}

fn backend_name(b: wgpu::Backend) -> &'static str {
    match b {
        wgpu::Backend::Vulkan => "vulkan",
        wgpu::Backend::Metal => "metal",
        wgpu::Backend::Dx12 => "dx12",
        wgpu::Backend::Gl => "gl",
        wgpu::Backend::BrowserWebGpu => "webgpu",
        wgpu::Backend::Noop => "noop",
    }
}

fn device_type_name(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

fn describe(index: usize, adapter: &wgpu::Adapter) -> AdapterEntry {
    let i = adapter.get_info();
    AdapterEntry {
        info: PlatformInfo {
            index: Some(index),
            // Browsers hide the adapter's name (wgpu gets an empty description).
            name: if i.name.is_empty() {
                format!(
                    "unnamed {} adapter ({})",
                    backend_name(i.backend),
                    device_type_name(i.device_type)
                )
            } else {
                i.name
            },
            backend: backend_name(i.backend).to_string(),
            device_type: device_type_name(i.device_type).to_string(),
            driver: i.driver,
            driver_info: i.driver_info,
            df64: None,
        },
        caps: Capabilities::from_adapter(
            adapter.features(),
            &adapter.limits(),
            &adapter.get_info(),
        ),
    }
}

/// A new wgpu instance over every backend this build supports.
pub fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    // GL is left out: it has no f64, no subgroups, and its EGL probing is noisy.
    desc.backends = wgpu::Backends::PRIMARY;
    wgpu::Instance::new(desc)
}

/// Every adapter, in a stable order. Adapters with no compute (WebGL) are left out.
pub async fn adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    #[cfg(not(target_arch = "wasm32"))]
    let found = instance.enumerate_adapters(wgpu::Backends::PRIMARY).await;
    // The browser offers one adapter, through requestAdapter only.
    #[cfg(target_arch = "wasm32")]
    let found: Vec<wgpu::Adapter> = match instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        })
        .await
    {
        Ok(a) => vec![a],
        Err(e) => {
            log::warn!("the browser offered no WebGPU adapter: {e}");
            Vec::new()
        }
    };
    found
        .into_iter()
        .filter(|a| {
            a.get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        })
        .collect()
}

/// Describes every adapter (for `skylight list` and the device panel).
pub async fn list_adapters() -> Vec<AdapterEntry> {
    let inst = instance();
    adapters(&inst)
        .await
        .iter()
        .enumerate()
        .map(|(i, a)| describe(i, a))
        .collect()
}

/// How the user picks an adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The suite's choice: the first discrete or integrated GPU, else any other
    /// (lavapipe and other CPU-type drivers last), preferring non-GL backends.
    Auto,
    /// Index into [`list_adapters`].
    Index(usize),
    /// Case-insensitive substring of the adapter name (or backend).
    Name(String),
}

impl Selector {
    /// Parses `--adapter`: a number is an index, anything else a name substring.
    pub fn parse(s: &str) -> Selector {
        let s = s.trim();
        if s.is_empty() || s.eq_ignore_ascii_case("auto") {
            Selector::Auto
        } else if let Ok(i) = s.parse() {
            Selector::Index(i)
        } else {
            Selector::Name(s.to_ascii_lowercase())
        }
    }
}

fn auto_rank(e: &AdapterEntry) -> (u8, u8) {
    let ty = match e.info.device_type.as_str() {
        "discrete" => 0,
        "integrated" => 1,
        "virtual" | "other" => 2,
        _ => 3,
    };
    let backend = if e.info.backend == "gl" { 1 } else { 0 };
    (ty, backend)
}

/// Picks one adapter by `selector`; `Err(NoAdapter)` names what was available.
pub async fn select_adapter(
    instance: &wgpu::Instance,
    selector: &Selector,
) -> Result<(wgpu::Adapter, AdapterEntry)> {
    let all = adapters(instance).await;
    let entries: Vec<AdapterEntry> = all
        .iter()
        .enumerate()
        .map(|(i, a)| describe(i, a))
        .collect();
    if entries.is_empty() {
        return Err(Error::NoAdapter(
            " (no Vulkan, Metal, DX12 or WebGPU adapter with compute shaders)".into(),
        ));
    }
    let pick = match selector {
        Selector::Auto => (0..entries.len()).min_by_key(|&i| (auto_rank(&entries[i]), i)),
        Selector::Index(i) => (*i < entries.len()).then_some(*i),
        Selector::Name(n) => (0..entries.len()).find(|&i| {
            let e = &entries[i].info;
            e.name.to_ascii_lowercase().contains(n) || e.backend == *n
        }),
    };
    match pick {
        Some(i) => Ok((all[i].clone(), entries[i].clone())),
        None => {
            let names: Vec<String> = entries
                .iter()
                .map(|e| format!("{}: {}", e.info.index.unwrap_or(0), e.info.label()))
                .collect();
            Err(Error::NoAdapter(format!(
                " matching {selector:?}; available: {}",
                names.join(", ")
            )))
        }
    }
}

/// How far the adapter's df64 arithmetic can be trusted (see [`crate::df64check`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Df64Status {
    /// Not yet tested.
    Untested,
    /// Exact error-free transforms with this formulation.
    Exact(Df64Mode),
    /// No formulation gave exact error terms: df64 results are less accurate.
    Degraded(String),
}

impl Df64Status {
    /// The formulation kernels are composed with.
    pub fn mode(&self) -> Df64Mode {
        match self {
            Df64Status::Exact(m) => *m,
            _ => Df64Mode::ALL[0],
        }
    }
}

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
    /// The limits the device was created with (the adapter's own).
    pub limits: wgpu::Limits,
    /// Outcome of the df64 self-test.
    pub df64: Df64Status,
    /// Group 1 of every df64 pipeline: the runtime zero of `df_g`.
    pub(crate) df64_guard: (wgpu::BindGroupLayout, wgpu::BindGroup),
    /// Whether the device defines out-of-bounds buffer accesses (Vulkan's
    /// robustBufferAccess2), so shaders need no bounds checks on buffers.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) robust_buffers: bool,
    lost: Arc<Mutex<Option<String>>>,
}

/// Whether `adapter` is a Vulkan one with robustBufferAccess2. wgpu enables
/// that feature wherever the adapter has it and then compiles WGSL without
/// bounds checks on buffers; SPIR-V passed through (see [`crate::precise`])
/// may do the same only then.
#[cfg(not(target_arch = "wasm32"))]
fn vulkan_robust_buffers(adapter: &wgpu::Adapter) -> bool {
    use ash::vk;
    // SAFETY: the handle is used only to query the physical device's
    // features, while the adapter (which owns it) is borrowed.
    #[allow(unsafe_code)]
    let Some(hal) = (unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }) else {
        return false;
    };
    let phd = hal.physical_device_capabilities();
    // vkGetPhysicalDeviceFeatures2 is Vulkan 1.1.
    if phd.properties().api_version < vk::API_VERSION_1_1
        || !phd.supports_extension(ash::ext::robustness2::NAME)
    {
        return false;
    }
    let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut robustness2);
    // SAFETY: a valid physical device of this instance, and a features chain
    // whose only extension structure belongs to an extension it supports.
    #[allow(unsafe_code)]
    unsafe {
        hal.shared_instance()
            .raw_instance()
            .get_physical_device_features2(hal.raw_physical_device(), &mut features);
    }
    let robust = robustness2.robust_buffer_access2 == vk::TRUE;
    log::info!("robustBufferAccess2: {robust}");
    robust
}

impl Gpu {
    /// Opens a device with every feature the suite uses that the adapter has,
    /// and with the adapter's own limits rather than wgpu's defaults; then runs
    /// the df64 self-test.
    pub async fn open(selector: &Selector) -> Result<Gpu> {
        let inst = instance();
        let (adapter, entry) = select_adapter(&inst, selector).await?;
        let features = adapter.features() & wanted_features();
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("skylight"),
                required_features: features,
                required_limits: limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::Device(format!("request_device failed: {e}")))?;
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
        let caps =
            Capabilities::from_adapter(device.features(), &device.limits(), &adapter.get_info());
        let df64_guard = crate::gpu::df64_guard_group(&device);
        #[cfg(not(target_arch = "wasm32"))]
        let robust_buffers = vulkan_robust_buffers(&adapter);
        let mut gpu = Gpu {
            device,
            queue,
            info: entry.info,
            caps,
            limits,
            df64: Df64Status::Untested,
            df64_guard,
            #[cfg(not(target_arch = "wasm32"))]
            robust_buffers,
            lost,
        };
        gpu.df64 = crate::df64check::self_test(&gpu).await?;
        gpu.info.df64 = Some(match &gpu.df64 {
            Df64Status::Exact(m) => format!(
                "exact (fma: {}, guard: {}, precise: {})",
                m.fma, m.guard, m.precise
            ),
            other => format!("{other:?}"),
        });
        Ok(gpu)
    }

    /// Whether df64 kernels can be compiled in a precise formulation: SPIR-V
    /// passthrough on Vulkan (see [`crate::precise`]).
    pub fn precise_available(&self) -> bool {
        cfg!(not(target_arch = "wasm32"))
            && self.info.backend == "vulkan"
            && self
                .device
                .features()
                .contains(wgpu::Features::PASSTHROUGH_SHADERS)
    }

    /// `Err(Device)` once the device has been lost.
    pub fn check_lost(&self) -> Result<()> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(reason) => Err(Error::Device(format!("device lost ({reason})"))),
            None => Ok(()),
        }
    }

    /// `Err(MissingFeature)` when `precision` cannot run here.
    pub fn require(&self, precision: crate::Precision) -> Result<()> {
        if precision == crate::Precision::F64 && !self.caps.f64 {
            return Err(Error::MissingFeature("SHADER_F64"));
        }
        Ok(())
    }
}
