//! Adapter discovery and capabilities: which adapters this machine has,
//! what each can do, and how the user picks one.

use serde::{Deserialize, Serialize};

use super::backend::Api;
use super::caps::wanted_features;
pub use super::caps::{Capabilities, DeviceOffers};
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
    /// The features and limits the results depend on (`None` for the CPU
    /// platform, and in files written before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offers: Option<DeviceOffers>,
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

/// One adapter found on this machine, with what it can do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AdapterEntry {
    /// Identity of the adapter.
    pub info: PlatformInfo,
    /// Its compute capabilities.
    pub caps: Capabilities,
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
    let device_memory = super::memory::device_local_bytes(adapter);
    // What a device opened on it gets ([`super::Gpu::open`]).
    let features = adapter.features() & wanted_features();
    let limits = adapter.limits();
    let offers = DeviceOffers::new(features, &limits, &i, device_memory);
    let caps = Capabilities::from_adapter(adapter.features(), &limits, &i);
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
            offers: Some(offers),
        },
        caps: Capabilities {
            device_memory,
            ..caps
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
                offers: None,
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
