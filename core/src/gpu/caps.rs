//! What an adapter or device can do: [`Capabilities`], what decides which
//! runs are possible and how large they may be; and [`DeviceOffers`], the
//! part of it a result records (the features the suite uses that the
//! device has, and the limits that decide sizes and splits), since the
//! same kernel can run differently where they differ.

use serde::{Deserialize, Serialize};

/// The features the suite asks a device for where the adapter has them,
/// with wgpu's names: each decides which kernels run (`SHADER_F64`,
/// `SUBGROUP`, `SHADER_FLOAT32_ATOMIC`), how they are timed (the
/// timestamp queries) or how df64 kernels are compiled
/// (`PASSTHROUGH_SHADERS`: SPIR-V on Vulkan, see [`crate::precise`]), or
/// how halos travel (`MAPPABLE_PRIMARY_BUFFERS`: a scale-out rank's
/// packed planes reach the host through a kernel and its unpack reads what
/// arrived where the host wrote it, with no copies, see `scale::halo`).
/// Nothing else (`SHADER_INT64`, for one) is asked for.
const USED_FEATURES: [(wgpu::Features, &str); 8] = [
    (wgpu::Features::SHADER_F64, "SHADER_F64"),
    (wgpu::Features::TIMESTAMP_QUERY, "TIMESTAMP_QUERY"),
    (
        wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        "TIMESTAMP_QUERY_INSIDE_ENCODERS",
    ),
    (
        wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES,
        "TIMESTAMP_QUERY_INSIDE_PASSES",
    ),
    (wgpu::Features::SUBGROUP, "SUBGROUP"),
    (
        wgpu::Features::SHADER_FLOAT32_ATOMIC,
        "SHADER_FLOAT32_ATOMIC",
    ),
    (wgpu::Features::PASSTHROUGH_SHADERS, "PASSTHROUGH_SHADERS"),
    (
        wgpu::Features::MAPPABLE_PRIMARY_BUFFERS,
        "MAPPABLE_PRIMARY_BUFFERS",
    ),
];

/// Features the suite uses when the adapter has them ([`USED_FEATURES`]).
pub(crate) fn wanted_features() -> wgpu::Features {
    USED_FEATURES
        .iter()
        .fold(wgpu::Features::empty(), |all, (f, _)| all | *f)
}

/// The names of the features the suite uses that `features` has, in the
/// order of the suite's list.
pub fn used_feature_names(features: wgpu::Features) -> Vec<String> {
    USED_FEATURES
        .iter()
        .filter(|(f, _)| features.contains(*f))
        .map(|(_, name)| (*name).to_string())
        .collect()
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
    /// GPU rarely has more, and every input is uploaded from a host copy;
    /// not in a browser, whose host budget is its page's memory) and a
    /// buffer of `max_buffer_size` in every storage binding a stage has
    /// (what bounds it where the host's is not known: the browser, a
    /// system [`super::memory::host_available_bytes`] cannot ask);
    /// `None` where neither is known. The label says which bound it is.
    pub fn device_budget(&self) -> Option<(&'static str, u64)> {
        if let Some(m) = self.device_memory {
            return Some(("device memory", m / 10 * 9));
        }
        let limits = self
            .max_buffer
            .saturating_mul(u64::from(self.max_storage_buffers));
        // A page's memory holds its own arrays, not the GPU's buffers.
        let host = match cfg!(target_arch = "wasm32") {
            true => None,
            false => self.host_budget(),
        };
        let host = host.map(|m| ("device memory (bounded by host memory)", m));
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

/// What a device offers that its results depend on, as a result records it
/// (in [`super::PlatformInfo::offers`]): the features of those the suite
/// uses that the device has (`PASSTHROUGH_SHADERS` on Vulkan alone, where
/// it changes the kernels), the limits that decide a case's sizes and how
/// its buffers are split, and the device's memory where the backend
/// reports it. Every field has a default, so that a file written before a
/// field was added still reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeviceOffers {
    /// Names of the features, as wgpu spells them (`SHADER_F64`, ...).
    pub features: Vec<String>,
    /// `max_buffer_size` in bytes.
    pub max_buffer_size: u64,
    /// `max_storage_buffer_binding_size` in bytes.
    pub max_storage_buffer_binding_size: u64,
    /// `max_storage_buffers_per_shader_stage`.
    pub max_storage_buffers_per_shader_stage: u32,
    /// `max_compute_workgroup_size_x`.
    pub max_compute_workgroup_size_x: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_compute_invocations_per_workgroup: u32,
    /// `max_compute_workgroup_storage_size` in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// `max_compute_workgroups_per_dimension`.
    pub max_compute_workgroups_per_dimension: u32,
    /// Smallest subgroup size the adapter reports (0 where it reports none,
    /// or the device has no `SUBGROUP`).
    #[serde(skip_serializing_if = "is_zero")]
    pub subgroup_min_size: u32,
    /// Largest subgroup size the adapter reports (as the smallest).
    #[serde(skip_serializing_if = "is_zero")]
    pub subgroup_max_size: u32,
    /// Bytes of the largest device-local memory heap, where the backend
    /// reports heaps (Vulkan; see [`super::memory::device_local_bytes`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_memory: Option<u64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl DeviceOffers {
    /// What a device with `features` and `limits`, on an adapter described
    /// by `info` with `device_memory` bytes (where known), offers.
    pub fn new(
        features: wgpu::Features,
        limits: &wgpu::Limits,
        info: &wgpu::AdapterInfo,
        device_memory: Option<u64>,
    ) -> Self {
        // Without `SUBGROUP` the sizes are wgpu's placeholders.
        let subgroups = features.contains(wgpu::Features::SUBGROUP);
        // Passthrough changes only a Vulkan device's kernels (Metal, DX12
        // and GL report it for their own shader languages).
        let mut features = features;
        if !super::pipeline::precise_passthrough(info.backend, features) {
            features.remove(wgpu::Features::PASSTHROUGH_SHADERS);
        }
        DeviceOffers {
            features: used_feature_names(features),
            max_buffer_size: limits.max_buffer_size,
            max_storage_buffer_binding_size: limits.max_storage_buffer_binding_size,
            max_storage_buffers_per_shader_stage: limits.max_storage_buffers_per_shader_stage,
            max_compute_workgroup_size_x: limits.max_compute_workgroup_size_x,
            max_compute_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_compute_workgroup_storage_size: limits.max_compute_workgroup_storage_size,
            max_compute_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            subgroup_min_size: if subgroups { info.subgroup_min_size } else { 0 },
            subgroup_max_size: if subgroups { info.subgroup_max_size } else { 0 },
            device_memory,
        }
    }

    /// The limits, the subgroup sizes and the memory as (name, value) for
    /// listings, the same names in the same order for every device: wgpu's
    /// names, sizes in binary units ([`bytes`]), `no SUBGROUP` and `not
    /// reported` where there is nothing to say.
    pub fn limits(&self) -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("max_buffer_size", bytes(self.max_buffer_size)),
            (
                "max_storage_buffer_binding_size",
                bytes(self.max_storage_buffer_binding_size),
            ),
            (
                "max_storage_buffers_per_shader_stage",
                self.max_storage_buffers_per_shader_stage.to_string(),
            ),
            (
                "max_compute_workgroup_size_x",
                self.max_compute_workgroup_size_x.to_string(),
            ),
            (
                "max_compute_invocations_per_workgroup",
                self.max_compute_invocations_per_workgroup.to_string(),
            ),
            (
                "max_compute_workgroup_storage_size",
                bytes(u64::from(self.max_compute_workgroup_storage_size)),
            ),
            (
                "max_compute_workgroups_per_dimension",
                self.max_compute_workgroups_per_dimension.to_string(),
            ),
        ];
        let (lo, hi) = (self.subgroup_min_size, self.subgroup_max_size);
        let subgroup = match hi {
            0 => "no SUBGROUP".into(),
            _ => format!("{lo}..{hi}"),
        };
        v.push(("subgroup size", subgroup));
        let memory = self.device_memory.map_or("not reported".into(), bytes);
        v.push(("device memory", memory));
        v
    }
}

/// `n` bytes in the largest binary unit it reaches (`2 GiB`, `127.5 MiB`,
/// `32 KiB`, `512 B`), rounded to one decimal, which a whole number goes
/// without (a limit of 2^31 - 1 bytes reads `2 GiB`); `unlimited` from
/// 1 PiB up (drivers that bound nothing report the largest number).
pub fn bytes(n: u64) -> String {
    const UNITS: [(u32, &str); 4] = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    if n >= 1 << 50 {
        return "unlimited".into();
    }
    for (shift, unit) in UNITS {
        if n >= 1 << shift {
            let tenths = (u128::from(n) * 10 + (1 << (shift - 1))) >> shift;
            return match tenths % 10 {
                0 => format!("{} {unit}", tenths / 10),
                t => format!("{}.{t} {unit}", tenths / 10),
            };
        }
    }
    format!("{n} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lavapipe() -> DeviceOffers {
        let limits = wgpu::Limits {
            max_buffer_size: 1 << 31,
            max_storage_buffer_binding_size: 1 << 27,
            ..wgpu::Limits::default()
        };
        let info = wgpu::AdapterInfo {
            subgroup_min_size: 4,
            subgroup_max_size: 64,
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Vulkan)
        };
        let features = wgpu::Features::SHADER_F64
            | wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::SUBGROUP
            | wgpu::Features::SHADER_INT64;
        DeviceOffers::new(features, &limits, &info, Some(3 << 30))
    }

    /// Only the features the suite uses are named, in the table's order.
    #[test]
    fn offers_name_the_used_features_and_the_limits() {
        let o = lavapipe();
        assert_eq!(o.features, ["SHADER_F64", "TIMESTAMP_QUERY", "SUBGROUP"]);
        // Passthrough is named where it changes the kernels: on Vulkan.
        let info = |backend| wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, backend);
        let limits = wgpu::Limits::default();
        let names = |backend| {
            let f = wgpu::Features::PASSTHROUGH_SHADERS;
            DeviceOffers::new(f, &limits, &info(backend), None).features
        };
        assert_eq!(names(wgpu::Backend::Vulkan), ["PASSTHROUGH_SHADERS"]);
        assert!(names(wgpu::Backend::Gl).is_empty());
        assert!(names(wgpu::Backend::Metal).is_empty());
        assert!(wanted_features().contains(wgpu::Features::PASSTHROUGH_SHADERS));
        assert!(!wanted_features().contains(wgpu::Features::SHADER_INT64));
        let limits = o.limits();
        let get = |name: &str| {
            limits
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(get("max_buffer_size").as_deref(), Some("2 GiB"));
        assert_eq!(
            get("max_storage_buffer_binding_size").as_deref(),
            Some("128 MiB")
        );
        assert_eq!(get("subgroup size").as_deref(), Some("4..64"));
        assert_eq!(get("device memory").as_deref(), Some("3 GiB"));
    }

    #[test]
    fn bytes_reads_in_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(32 << 10), "32 KiB");
        assert_eq!(bytes((255 << 20) / 2), "127.5 MiB");
        assert_eq!(bytes((1 << 31) - 1), "2 GiB");
        assert_eq!(bytes((1 << 30) + (1 << 30) / 5), "1.2 GiB");
        assert_eq!(bytes(141 << 30), "141 GiB");
        assert_eq!(bytes(u64::MAX), "unlimited");
    }

    /// The record's field reads back as written, and a record of an older
    /// build (no `offers`, or an `offers` without a later field) still reads.
    #[test]
    fn offers_round_trip_and_old_platforms_read() {
        let mut info = super::super::PlatformInfo {
            index: Some(0),
            name: "llvmpipe (LLVM 19.1.7, 256 bits)".into(),
            backend: "vulkan".into(),
            device_type: "cpu".into(),
            driver: "llvmpipe".into(),
            driver_info: "Mesa 25.0.7".into(),
            vendor: 0x10005,
            device: 0,
            df64: Some("fma".into()),
            offers: None,
        };
        let old = serde_json::to_string(&info).expect("json");
        assert!(!old.contains("offers"), "{old}");
        let read: super::super::PlatformInfo = serde_json::from_str(&old).expect("old json");
        assert_eq!(read, info);
        info.offers = Some(lavapipe());
        let new = serde_json::to_string(&info).expect("json");
        let read: super::super::PlatformInfo = serde_json::from_str(&new).expect("new json");
        assert_eq!(read, info);
        let partial: DeviceOffers =
            serde_json::from_str(r#"{"features": ["SHADER_F64"], "max_buffer_size": 4096}"#)
                .expect("partial offers");
        assert_eq!(partial.max_buffer_size, 4096);
        assert_eq!(partial.device_memory, None);
        assert_eq!(partial.max_compute_workgroup_size_x, 0);
    }

    /// Every platform of the reference sets' result files reads and writes
    /// back as it was: the older ones without offers, the newer with.
    #[test]
    fn reference_platforms_read_and_write_back_unchanged() {
        fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("a folder").flatten() {
                let p = e.path();
                if p.is_dir() {
                    files(&p, out);
                } else if p.extension().is_some_and(|x| x == "json") {
                    out.push(p);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benchmarks/reference");
        let mut found = Vec::new();
        files(&root, &mut found);
        let (mut platforms, mut offered) = (0, 0);
        for path in found {
            let text = std::fs::read_to_string(&path).expect("readable");
            let Ok(file) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            let records = file["records"].as_array().into_iter().flatten();
            for p in records.map(|r| &r["platform"]).filter(|p| p.is_object()) {
                let info: super::super::PlatformInfo =
                    serde_json::from_value(p.clone()).expect("a platform");
                offered += usize::from(info.offers.is_some());
                let back = serde_json::to_value(&info).expect("json");
                assert_eq!(&back, p, "{}", path.display());
                platforms += 1;
            }
        }
        assert!(platforms > 100, "only {platforms} platforms");
        assert!(
            offered > 0 && offered < platforms,
            "{offered} of {platforms} with offers"
        );
    }
}
