//! Adapter discovery and capabilities: which adapters this machine has,
//! what each can do, and how the user picks one.

use serde::{Deserialize, Serialize};

use super::backend::Api;
use crate::error::{Error, Result};

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
    /// PCI vendor id (or the backend's equivalent; 0 where the backend has
    /// none, as in a browser, and in older files).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub vendor: u32,
    /// PCI device id (as `vendor`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub device: u32,
    /// The df64 formulation the self-test chose (or why df64 is degraded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub df64: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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
    /// `SHADER_FLOAT32_ATOMIC`: atomic add on f32 in storage buffers.
    #[serde(default)]
    pub float32_atomics: bool,
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
    /// Bytes of the device's largest device-local memory heap, where the
    /// backend says (Vulkan); sizes are checked against it before anything
    /// is allocated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_memory: Option<u64>,
    /// Bytes of host memory available when the adapter was described,
    /// where the system says (`super::memory::host_available_bytes`).
    /// Not recorded: it is this moment's, not the platform's.
    #[serde(skip)]
    pub host_memory: Option<u64>,
}

impl Capabilities {
    /// The capabilities `features` and `limits` give an adapter described by `info`.
    pub fn from_adapter(
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
            float32_atomics: features.contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
            subgroup_size: (info.subgroup_min_size, info.subgroup_max_size),
            max_storage_binding: limits.max_storage_buffer_binding_size,
            max_buffer: limits.max_buffer_size,
            max_workgroup_storage: limits.max_compute_workgroup_storage_size,
            max_workgroup_invocations: limits.max_compute_invocations_per_workgroup,
            max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
            max_storage_buffers: limits.max_storage_buffers_per_shader_stage,
            device_memory: None,
            host_memory: super::memory::host_available_bytes(),
        }
    }

    /// What a case may allocate of the device's memory, and what bounds
    /// it: nine tenths of the device's memory (the driver and the runner's
    /// own buffers take some) where the backend reports it. Where it does
    /// not (Metal, DX12, GL, the browser), the smaller of the host's budget
    /// (Apple's and integrated GPUs share the host's memory, a discrete
    /// GPU rarely has more, and every input is uploaded from a host copy)
    /// and a buffer of `max_buffer_size` in every storage binding a stage
    /// has (what bounds it where the host's is not known: Windows, the
    /// browser); `None` where neither is known.
    pub fn device_budget(&self) -> Option<(&'static str, u64)> {
        if let Some(m) = self.device_memory {
            return Some(("device memory", m / 10 * 9));
        }
        let limits = self
            .max_buffer
            .saturating_mul(u64::from(self.max_storage_buffers));
        let host = self
            .host_budget()
            .map(|m| ("device memory (bounded by host memory)", m));
        let limits = (limits > 0).then_some((
            "device memory (bounded by max_buffer_size x max_storage_buffers_per_shader_stage)",
            limits,
        ));
        [host, limits].into_iter().flatten().min_by_key(|b| b.1)
    }

    /// What a case may hold in host memory (its inputs, references and
    /// read-backs): nine tenths of what was available, where known.
    pub fn host_budget(&self) -> Option<u64> {
        self.host_memory.map(|m| m / 10 * 9)
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
            (self.float32_atomics, "SHADER_FLOAT32_ATOMIC"),
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
pub(crate) fn wanted_features() -> wgpu::Features {
    wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::SHADER_F64
        | wgpu::Features::SUBGROUP
        | wgpu::Features::SHADER_FLOAT32_ATOMIC
        | wgpu::Features::PASSTHROUGH_SHADERS
}

fn backend_name(b: wgpu::Backend) -> &'static str {
    Api::of(b).map_or("noop", Api::name)
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

/// The driver's name as `info` has it; wgpu's GL backend gives none, so
/// on Linux GL's is what EGL and the context asked for are (its
/// `driver_info` is the context's `GL_VERSION`).
fn driver_name(info: &wgpu::AdapterInfo) -> String {
    #[cfg(target_os = "linux")]
    if info.backend == wgpu::Backend::Gl && info.driver.is_empty() {
        return super::egl::driver();
    }
    info.driver.clone()
}

/// What the suite reports about `adapter`, found at `index` of [`adapters`]
/// (`None` for an adapter a front end brought).
pub fn describe(index: Option<usize>, adapter: &wgpu::Adapter) -> AdapterEntry {
    let i = adapter.get_info();
    let driver = driver_name(&i);
    AdapterEntry {
        info: PlatformInfo {
            index,
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
            driver,
            driver_info: i.driver_info,
            vendor: i.vendor,
            device: i.device,
            df64: None,
        },
        caps: Capabilities {
            device_memory: super::memory::device_local_bytes(adapter),
            ..Capabilities::from_adapter(adapter.features(), &adapter.limits(), &adapter.get_info())
        },
    }
}

/// A new wgpu instance over `backends`.
fn instance_for(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    if backends == wgpu::Backends::GL {
        // Debug builds turn on EGL's debug output, which logs Mesa's failed
        // probe of a hardware driver ("DRI2: failed to load driver") as an
        // error before it falls back to llvmpipe, on every run.
        desc.flags.remove(wgpu::InstanceFlags::VALIDATION);
    }
    wgpu::Instance::new(desc)
}

/// The wgpu instance over the primary backends (Vulkan, Metal, DX12, the
/// browser's WebGPU): those the suite picks from unless told otherwise.
/// Natively one instance serves the whole process and is never dropped:
/// dropping the last one unloads the Vulkan drivers, and NVIDIA's, unloaded,
/// takes the EGL context of a GL adapter opened beside it with it (its next
/// call makes no object: "request_device failed: Not enough memory left"
/// on an H200, 2026-11-29).
pub fn instance() -> wgpu::Instance {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static PRIMARY: std::sync::OnceLock<wgpu::Instance> = std::sync::OnceLock::new();
        PRIMARY
            .get_or_init(|| instance_for(wgpu::Backends::PRIMARY))
            .clone()
    }
    #[cfg(target_arch = "wasm32")]
    instance_for(wgpu::Backends::PRIMARY)
}

/// The adapters of `backends` on `instance`, in a stable order. Adapters
/// with no compute (WebGL) are left out.
pub async fn adapters(instance: &wgpu::Instance, backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    #[cfg(not(target_arch = "wasm32"))]
    let found = instance.enumerate_adapters(backends).await;
    // The browser offers one adapter, through requestAdapter only.
    #[cfg(target_arch = "wasm32")]
    let found: Vec<wgpu::Adapter> = {
        let _ = backends;
        match instance
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
        }
    };
    found.into_iter().filter(has_compute).collect()
}

fn has_compute(adapter: &wgpu::Adapter) -> bool {
    adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
}

/// Every adapter in [`list_adapters`]' order: the primary backends' first,
/// then (with `gl`) GL's, so that runs that never ask for GL pay nothing
/// for EGL's probing; and why GL has none, where it has none.
async fn found(gl: bool) -> (Vec<wgpu::Adapter>, Option<Error>) {
    let primary = adapters(&instance(), wgpu::Backends::PRIMARY).await;
    // A browser's GL is WebGL, which has no compute.
    if !gl || cfg!(target_arch = "wasm32") || Api::Gl.check_built().is_err() {
        return (primary, None);
    }
    match gl_adapters().await {
        Ok(gl) => (primary.into_iter().chain(gl).collect(), None),
        Err(e) => (primary, Some(e)),
    }
}

/// GL's adapters: on Linux the one on Skylight's own context (see
/// [`super::egl`]), elsewhere those of a GL instance of wgpu's.
async fn gl_adapters() -> Result<Vec<wgpu::Adapter>> {
    #[cfg(target_os = "linux")]
    let found = vec![super::egl::adapter()?];
    #[cfg(not(target_os = "linux"))]
    let found = adapters(&instance_for(wgpu::Backends::GL), wgpu::Backends::GL).await;
    Ok(found.into_iter().filter(has_compute).collect())
}

fn entries(all: &[wgpu::Adapter]) -> Vec<AdapterEntry> {
    all.iter()
        .enumerate()
        .map(|(i, a)| describe(Some(i), a))
        .collect()
}

/// Describes every adapter of every backend (for `skylight list` and the
/// device panel); an index here is what [`Selector::Index`] picks.
pub async fn list_adapters() -> Vec<AdapterEntry> {
    let (all, gl) = found(true).await;
    if let Some(e) = gl {
        log::warn!("{e}");
    }
    entries(&all)
}

/// The adapters [`Selector::Auto`] chooses from on `api` (the primary
/// backends' where `None`), numbered as in [`list_adapters`]; an error when
/// the build lacks the backend or a named backend has no adapter.
pub async fn adapters_on(api: Option<Api>) -> Result<Vec<AdapterEntry>> {
    if let Some(a) = api {
        a.check_built()?;
    }
    let (all, gl) = found(api == Some(Api::Gl)).await;
    let listed: Vec<AdapterEntry> = entries(&all)
        .into_iter()
        .filter(|e| api.is_none_or(|a| e.info.backend == a.name()))
        .collect();
    match api {
        Some(a) if listed.is_empty() => Err(gl.unwrap_or_else(|| no_adapter_on(a))),
        _ => Ok(listed),
    }
}

/// How the user picks an adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The suite's choice: the first discrete or integrated GPU, else any other
    /// (lavapipe and other CPU-type drivers last), of the primary backends
    /// unless a backend is named.
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

fn auto_rank(e: &AdapterEntry) -> u8 {
    match e.info.device_type.as_str() {
        "discrete" => 0,
        "integrated" => 1,
        "virtual" | "other" => 2,
        _ => 3,
    }
}

/// The position in `entries` that `selector` picks on `api` (any backend
/// where `None`, but GL only by index or name), or why none.
fn pick(entries: &[AdapterEntry], selector: &Selector, api: Option<Api>) -> Result<usize> {
    let on_api = |i: usize| api.is_none_or(|a| entries[i].info.backend == a.name());
    let pick = match selector {
        Selector::Auto => (0..entries.len())
            .filter(|&i| on_api(i) && (api.is_some() || entries[i].info.backend != "gl"))
            .min_by_key(|&i| (auto_rank(&entries[i]), i)),
        Selector::Index(i) => (*i < entries.len()).then_some(*i),
        Selector::Name(n) => (0..entries.len()).filter(|&i| on_api(i)).find(|&i| {
            let e = &entries[i].info;
            e.name.to_ascii_lowercase().contains(n) || e.backend == *n
        }),
    };
    let on = api.map_or(String::new(), |a| format!(" on the {a} backend"));
    match pick {
        Some(i) if on_api(i) => Ok(i),
        Some(i) => Err(Error::NoAdapter(format!(
            "{on}: adapter {i} is {}",
            entries[i].info.label()
        ))),
        None if let Some(a) = api
            && entries.iter().all(|e| e.info.backend != a.name()) =>
        {
            Err(no_adapter_on(a))
        }
        None => {
            let names: Vec<String> = entries
                .iter()
                .map(|e| format!("{}: {}", e.info.index.unwrap_or(0), e.info.label()))
                .collect();
            Err(Error::NoAdapter(format!(
                " matching {selector:?}{on}; available: {}",
                names.join(", ")
            )))
        }
    }
}

/// `api` has no adapter with compute shaders: what to install.
fn no_adapter_on(api: Api) -> Error {
    let hint = match api {
        Api::Vulkan => " (no Vulkan driver: apt-get install mesa-vulkan-drivers for lavapipe)",
        Api::Gl => {
            " (EGL found no GL driver with compute shaders: apt-get install libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri for Mesa's llvmpipe)"
        }
        _ => " (none with compute shaders)",
    };
    Error::NoAdapter(format!(" on the {api} backend{hint}"))
}

/// Picks one adapter by `selector` on `api` (the primary backends' where
/// `None`, as [`Selector::Auto`] describes); `Err(NoAdapter)` names what was
/// available, or that the build lacks the backend. GL's adapters are
/// looked for only when `api` is GL or an index or name matches none of
/// the primary backends' adapters.
pub async fn select_adapter(
    selector: &Selector,
    api: Option<Api>,
) -> Result<(wgpu::Adapter, AdapterEntry)> {
    if let Some(a) = api {
        a.check_built()?;
    }
    let gl = api == Some(Api::Gl);
    let (mut all, mut gl_error) = found(gl).await;
    let mut listed = entries(&all);
    let mut picked = pick(&listed, selector, api);
    if picked.is_err() && !gl && api.is_none() && *selector != Selector::Auto {
        (all, gl_error) = found(true).await;
        listed = entries(&all);
        picked = pick(&listed, selector, api);
    }
    // Why GL has no adapter says more than that it has none.
    if let (Err(_), Some(e)) = (&picked, gl_error) {
        if gl {
            return Err(e);
        }
        log::warn!("{e}");
    }
    if listed.is_empty() && api.is_none() {
        return Err(Error::NoAdapter(
            " (no Vulkan, Metal, DX12 or WebGPU adapter with compute shaders)".into(),
        ));
    }
    let i = picked?;
    Ok((all[i].clone(), listed[i].clone()))
}

/// Whether `adapter` is a Vulkan one with robustBufferAccess2. wgpu enables
/// that feature wherever the adapter has it and then compiles WGSL without
/// bounds checks on buffers; SPIR-V passed through (see [`crate::precise`])
/// may do the same only then.
#[cfg(vulkan)]
pub(crate) fn vulkan_robust_buffers(adapter: &wgpu::Adapter) -> bool {
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

/// Never, in a build without wgpu's Vulkan backend (Apple targets): no
/// adapter there is a Vulkan one.
#[cfg(all(not(vulkan), not(target_arch = "wasm32")))]
pub(crate) fn vulkan_robust_buffers(_adapter: &wgpu::Adapter) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: usize, name: &str, backend: &str, device_type: &str) -> AdapterEntry {
        AdapterEntry {
            info: PlatformInfo {
                index: Some(index),
                name: name.into(),
                backend: backend.into(),
                device_type: device_type.into(),
                driver: String::new(),
                driver_info: String::new(),
                vendor: 0,
                device: 0,
                df64: None,
            },
            caps: Capabilities::default(),
        }
    }

    /// Lavapipe through Vulkan, then llvmpipe and a GPU through GL, as a
    /// machine lists them (the primary backends first).
    fn machine() -> Vec<AdapterEntry> {
        vec![
            entry(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "vulkan", "cpu"),
            entry(1, "llvmpipe (LLVM 15.0.6, 256 bits)", "gl", "cpu"),
            entry(2, "NVIDIA H200/PCIe/SSE2", "gl", "discrete"),
        ]
    }

    /// With no backend named the choice stays on the primary backends, even
    /// over a GPU through GL; naming one keeps to it.
    #[test]
    fn auto_keeps_to_the_primary_backends_unless_one_is_named() {
        let m = machine();
        assert_eq!(pick(&m, &Selector::Auto, None).ok(), Some(0));
        assert_eq!(pick(&m, &Selector::Auto, Some(Api::Gl)).ok(), Some(2));
        assert_eq!(pick(&m, &Selector::Auto, Some(Api::Vulkan)).ok(), Some(0));
        let llvmpipe = Selector::parse("LLVMpipe");
        assert_eq!(pick(&m, &llvmpipe, None).ok(), Some(0));
        assert_eq!(pick(&m, &llvmpipe, Some(Api::Gl)).ok(), Some(1));
        assert_eq!(pick(&m, &Selector::Index(1), None).ok(), Some(1));
    }

    /// An index of another backend's adapter, or a backend without one, is
    /// an error that says which.
    #[test]
    fn a_choice_outside_the_named_backend_is_an_error() {
        let m = machine();
        let err = pick(&m, &Selector::Index(1), Some(Api::Vulkan)).expect_err("a GL adapter");
        assert!(err.to_string().contains("adapter 1 is llvmpipe"), "{err}");
        assert!(err.to_string().contains("(gl)"), "{err}");
        let err = pick(&m[..1], &Selector::Auto, Some(Api::Gl)).expect_err("no GL");
        assert!(err.to_string().contains("on the gl backend"), "{err}");
        assert!(err.to_string().contains("libegl-mesa0"), "{err}");
        let err = pick(&m, &Selector::parse("radeon"), None).expect_err("no such name");
        assert!(err.to_string().contains("available: 0: llvmpipe"), "{err}");
    }
}
