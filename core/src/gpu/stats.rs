//! What a Vulkan driver compiled each kernel to: registers, instructions,
//! spills and whatever else it reports through
//! `VK_KHR_pipeline_executable_properties`. wgpu does not expose that
//! extension, so this opens a second, bare Vulkan device on the same
//! physical device with the extension on, compiles each pipeline the
//! [`Gpu`] compiled (naga's SPIR-V of the same composed source, the same
//! bindings and the same df64 formulation) with statistics captured, and
//! reads them back. The figures are the driver's own names and units; they
//! differ between vendors (issue 22 uses them to count what a change saves).

use std::ffi::CString;

use ash::vk;

use super::adapter::vulkan_robust_buffers;
use super::{Bind, Gpu, PipelineSource};
use crate::error::{Error, Result};
use crate::precision::Precision;
use crate::shader::ConstValue;

/// One figure the driver reports for a compiled executable.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Statistic {
    /// The driver's name for it (e.g. "Register Count").
    pub name: String,
    /// Its value, as the driver formats it (integers without decimals).
    pub value: String,
}

/// One executable of a pipeline (a compute pipeline usually has one).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Executable {
    /// The driver's name for it.
    pub name: String,
    /// Its statistics, in the driver's order.
    pub statistics: Vec<Statistic>,
}

/// The statistics of one pipeline.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PipelineStats {
    /// The module's label.
    pub label: String,
    /// The entry point.
    pub entry: String,
    /// Its precision.
    pub precision: Precision,
    /// The injected constants whose values tell it apart from the other
    /// pipelines of its module, entry point and precision (a sweep's
    /// workgroup sizes, say), as (name, value) in the module's order, then
    /// `source` where only its generated source tells it apart; empty where
    /// it is the only one.
    pub distinct: Vec<(String, String)>,
    /// What the driver compiled it to.
    pub executables: Vec<Executable>,
}

/// The statistics of every pipeline `gpu` has compiled so far, sorted by
/// label and entry point. Errors with [`Error::MissingFeature`] where the
/// adapter is not Vulkan or its driver lacks the extension.
pub fn pipeline_stats(gpu: &Gpu) -> Result<Vec<PipelineStats>> {
    // SAFETY: the handles are used while `gpu` (which owns the adapter) is
    // borrowed, and only to create and destroy a device of our own.
    #[allow(unsafe_code)]
    let hal = unsafe { gpu.adapter.as_hal::<wgpu::hal::api::Vulkan>() }
        .ok_or(Error::MissingFeature("Vulkan (pipeline statistics)"))?;
    let ext = ash::khr::pipeline_executable_properties::NAME;
    if !hal.physical_device_capabilities().supports_extension(ext) {
        return Err(Error::MissingFeature(
            "VK_KHR_pipeline_executable_properties",
        ));
    }
    let instance = hal.shared_instance().raw_instance();
    let robust = vulkan_robust_buffers(&gpu.adapter);
    let atomics = gpu.caps.float32_atomics;
    let phd = hal.raw_physical_device();
    let has_zero_ext = hal
        .physical_device_capabilities()
        .supports_extension(ZERO_EXT);
    let zeroing = driver_zeroing(instance, phd, has_zero_ext);
    let device = StatsDevice::new(instance, phd, gpu.caps.f64, atomics, zeroing)?;
    let mode = gpu.df64.mode();
    let mut sources = gpu.compiled();
    sort_sources(&mut sources);
    let distinct = distinct_constants(&sources);
    let out = sources
        .iter()
        .zip(distinct)
        .map(|(s, distinct)| {
            let precise = mode.precise && s.spec.precision == Precision::Df64;
            let words = if precise {
                crate::precise::precise_spirv(&s.spec, mode, robust)?.words
            } else {
                crate::precise::spirv(&s.spec, mode, robust, zeroing.is_some())?.words
            };
            Ok(PipelineStats {
                label: s.spec.label.clone(),
                entry: s.entry.clone(),
                precision: s.spec.precision,
                distinct,
                executables: device.statistics(s, &words)?,
            })
        })
        .collect();
    device.destroy();
    out
}

/// Whether two pipelines compile one entry point of one module in one
/// precision (they may differ in injected constants).
fn same_kernel(a: &PipelineSource, b: &PipelineSource) -> bool {
    (&a.spec.label, &a.entry, a.spec.precision) == (&b.spec.label, &b.entry, b.spec.precision)
}

/// Orders pipelines by module, entry point and precision, then by their
/// constants' values (numerically, so a sweep's wg 64 comes before 128).
fn sort_sources(sources: &mut [PipelineSource]) {
    let values = |s: &PipelineSource| -> Vec<f64> {
        s.spec.consts.iter().map(|(_, v)| order_value(v)).collect()
    };
    sources.sort_by(|a, b| {
        (&a.spec.label, &a.entry, a.spec.precision)
            .cmp(&(&b.spec.label, &b.entry, b.spec.precision))
            .then_with(|| {
                let (x, y) = (values(a), values(b));
                x.iter()
                    .zip(&y)
                    .map(|(p, q)| p.total_cmp(q))
                    .find(|o| o.is_ne())
                    .unwrap_or(x.len().cmp(&y.len()))
            })
    });
}

/// A constant as a number to order pipelines by (`true` is 1).
fn order_value(v: &ConstValue) -> f64 {
    match v {
        ConstValue::U32(v) => f64::from(*v),
        ConstValue::Bool(v) => f64::from(u8::from(*v)),
        ConstValue::F32(v) => f64::from(*v),
    }
}

/// For each pipeline, its constants whose values are not the same in every
/// pipeline of the same kernel ([`same_kernel`]), and, where the peers'
/// generated sources differ (a form a module writes out rather than
/// injects as a constant), `source` = `#n`, the ordinal of its source among
/// the peers' distinct ones in their sorted order.
fn distinct_constants(sources: &[PipelineSource]) -> Vec<Vec<(String, String)>> {
    sources
        .iter()
        .map(|s| {
            let peers: Vec<&PipelineSource> =
                sources.iter().filter(|o| same_kernel(o, s)).collect();
            let varies = |name: &str, value: &ConstValue| {
                peers.iter().any(|o| {
                    o.spec
                        .consts
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| v)
                        != Some(value)
                })
            };
            let mut named: Vec<(String, String)> = s
                .spec
                .consts
                .iter()
                .filter(|(name, value)| varies(name, value))
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect();
            let mut texts: Vec<(&str, &[std::borrow::Cow<'static, str>], bool)> = Vec::new();
            for o in &peers {
                if !texts.contains(&source_text(o)) {
                    texts.push(source_text(o));
                }
            }
            if texts.len() > 1 {
                let n = texts.iter().position(|t| *t == source_text(s)).unwrap_or(0);
                named.push(("source".to_string(), format!("#{}", n + 1)));
            }
            named
        })
        .collect()
}

/// What a pipeline's composed source is made of besides its constants.
fn source_text(s: &PipelineSource) -> (&str, &[std::borrow::Cow<'static, str>], bool) {
    (s.spec.source, &s.spec.includes, s.spec.subgroups)
}

/// The extension that lets a Vulkan 1.2 driver zero workgroup memory.
const ZERO_EXT: &std::ffi::CStr = ash::khr::zero_initialize_workgroup_memory::NAME;

/// The driver zeroes workgroup memory, as wgpu asks it to where it can.
#[derive(Clone, Copy)]
struct DriverZeroing {
    /// The extension to enable for it ([`ZERO_EXT`] below Vulkan 1.3).
    extension: Option<&'static std::ffi::CStr>,
}

/// Whether wgpu would leave the zeroing of workgroup memory to this driver
/// (Vulkan 1.3, or 1.2 with [`ZERO_EXT`], `has_extension`, and the feature
/// reported) rather than to naga's stores, which a driver compiles into
/// a different kernel.
#[allow(unsafe_code)]
fn driver_zeroing(
    instance: &ash::Instance,
    phd: vk::PhysicalDevice,
    has_extension: bool,
) -> Option<DriverZeroing> {
    // SAFETY: `phd` belongs to `instance`.
    let api = unsafe { instance.get_physical_device_properties(phd) }.api_version;
    let extension = match (api >= vk::API_VERSION_1_3, has_extension) {
        (true, _) => None,
        (false, true) => Some(ZERO_EXT),
        (false, false) => return None,
    };
    let mut zero = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut zero);
    // SAFETY: a valid chain for a device of API 1.3 or with the extension.
    unsafe { instance.get_physical_device_features2(phd, &mut features) };
    (zero.shader_zero_initialize_workgroup_memory == vk::TRUE)
        .then_some(DriverZeroing { extension })
}

/// A bare device with pipeline executable statistics on.
struct StatsDevice {
    device: ash::Device,
    ext: ash::khr::pipeline_executable_properties::Device,
}

/// A Vulkan error as this crate's.
fn vk_err(what: &'static str) -> impl Fn(vk::Result) -> Error {
    move |e| Error::Device(format!("pipeline statistics: {what}: {e}"))
}

#[allow(unsafe_code)]
impl StatsDevice {
    /// A device on `phd` with one compute queue, the extension, and what
    /// kernels may declare: f64 where `f64`, f32 atomic adds on buffers
    /// where `atomics` (`VK_EXT_shader_atomic_float`, as wgpu enables it),
    /// and the driver's zeroing of workgroup memory where `zeroing` (see
    /// [`driver_zeroing`]).
    fn new(
        instance: &ash::Instance,
        phd: vk::PhysicalDevice,
        f64: bool,
        atomics: bool,
        zeroing: Option<DriverZeroing>,
    ) -> Result<StatsDevice> {
        // SAFETY: `phd` belongs to `instance`.
        let families = unsafe { instance.get_physical_device_queue_family_properties(phd) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or(Error::MissingFeature("a compute queue"))? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut extensions = vec![ash::khr::pipeline_executable_properties::NAME.as_ptr()];
        if atomics {
            extensions.push(ash::ext::shader_atomic_float::NAME.as_ptr());
        }
        if let Some(ext) = zeroing.and_then(|z| z.extension) {
            extensions.push(ext.as_ptr());
        }
        let mut zero = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default()
            .shader_zero_initialize_workgroup_memory(true);
        let mut executables = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(true);
        let mut float_atomics = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default()
            .shader_buffer_float32_atomics(true)
            .shader_buffer_float32_atomic_add(true);
        let features = vk::PhysicalDeviceFeatures::default().shader_float64(f64);
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .enabled_features(&features)
            .push_next(&mut executables);
        if atomics {
            info = info.push_next(&mut float_atomics);
        }
        if zeroing.is_some() {
            info = info.push_next(&mut zero);
        }
        // SAFETY: a valid create info whose extension the device supports.
        let device = unsafe { instance.create_device(phd, &info, None) }
            .map_err(vk_err("creating the device"))?;
        let ext = ash::khr::pipeline_executable_properties::Device::new(instance, &device);
        Ok(StatsDevice { device, ext })
    }

    /// Compiles `source` from `words` with statistics captured and reads
    /// them; every object made is destroyed before returning.
    fn statistics(&self, source: &PipelineSource, words: &[u32]) -> Result<Vec<Executable>> {
        let d = &self.device;
        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: naga's SPIR-V for a module naga validated.
        let module = unsafe { d.create_shader_module(&module_info, None) }
            .map_err(vk_err("creating the shader module"))?;
        let mut sets = vec![self.set_layout(&source.binds)?];
        if source.spec.precision == Precision::Df64 {
            // df64's runtime zero guard (group 1, one uniform).
            sets.push(self.set_layout(&[Bind::Uniform])?);
        }
        let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets);
        // SAFETY: the set layouts are live.
        let layout = unsafe { d.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_err("creating the pipeline layout"));
        let entry = CString::new(source.entry.as_str())
            .map_err(|_| Error::Device("an entry point name with a NUL".into()));
        let out = match (layout, entry) {
            (Ok(layout), Ok(entry)) => {
                let read = self.compile_and_read(module, layout, &entry);
                // SAFETY: no pipeline made with it is alive any more.
                unsafe { d.destroy_pipeline_layout(layout, None) };
                read
            }
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        // SAFETY: nothing made from them is alive any more.
        unsafe {
            sets.iter()
                .for_each(|s| d.destroy_descriptor_set_layout(*s, None));
            d.destroy_shader_module(module, None);
        }
        out
    }

    /// The descriptor set layout of `binds`, binding i for entry i.
    fn set_layout(&self, binds: &[Bind]) -> Result<vk::DescriptorSetLayout> {
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = binds
            .iter()
            .enumerate()
            .map(|(i, b)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i as u32)
                    .descriptor_type(match b {
                        Bind::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                        Bind::Read | Bind::ReadWrite => vk::DescriptorType::STORAGE_BUFFER,
                    })
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: a valid create info.
        unsafe { self.device.create_descriptor_set_layout(&info, None) }
            .map_err(vk_err("creating a descriptor set layout"))
    }

    /// The pipeline of `module` at `entry` with `layout`, compiled with
    /// statistics captured; its executables' statistics.
    fn compile_and_read(
        &self,
        module: vk::ShaderModule,
        layout: vk::PipelineLayout,
        entry: &CString,
    ) -> Result<Vec<Executable>> {
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(entry);
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)
            .stage(stage)
            .layout(layout);
        // SAFETY: a valid create info with live module and layout.
        let pipeline = unsafe {
            self.device
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, e)| vk_err("compiling the pipeline")(e))?[0];
        let read = self.read(pipeline);
        // SAFETY: the pipeline was never used on a queue.
        unsafe { self.device.destroy_pipeline(pipeline, None) };
        read
    }

    /// The statistics of every executable of `pipeline`.
    fn read(&self, pipeline: vk::Pipeline) -> Result<Vec<Executable>> {
        let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
        // SAFETY: a pipeline created with CAPTURE_STATISTICS on this device.
        let executables = unsafe { self.ext.get_pipeline_executable_properties(&info) }
            .map_err(vk_err("listing the executables"))?;
        executables
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let which = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(i as u32);
                // SAFETY: as above, with an index the driver listed.
                let stats = unsafe { self.ext.get_pipeline_executable_statistics(&which) }
                    .map_err(vk_err("reading the statistics"))?;
                Ok(Executable {
                    name: text(e.name_as_c_str()),
                    statistics: stats.iter().map(statistic).collect(),
                })
            })
            .collect()
    }

    fn destroy(self) {
        // SAFETY: every object made on the device has been destroyed.
        #[allow(unsafe_code)]
        unsafe {
            self.device.destroy_device(None)
        };
    }
}

/// A driver string, or a placeholder where it is malformed.
fn text(s: std::result::Result<&std::ffi::CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "?".into())
}

/// One statistic with its value in its declared format.
fn statistic(s: &vk::PipelineExecutableStatisticKHR) -> Statistic {
    // SAFETY: the union member read is the one `format` declares.
    #[allow(unsafe_code)]
    let value = unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (s.value.b32 != 0).to_string(),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => format!("{:.3}", s.value.f64),
            _ => "?".into(),
        }
    };
    Statistic {
        name: text(s.name_as_c_str()),
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::ShaderSpec;

    fn source(label: &str, entry: &str, wg: u32, stage: u32) -> PipelineSource {
        PipelineSource {
            spec: ShaderSpec::new(label, "", Precision::F32)
                .with_u32("WG", wg)
                .with_u32("STAGE", stage)
                .with_u32("CAP", 32),
            entry: entry.into(),
            binds: Vec::new(),
        }
    }

    /// A sweep's pipelines of one kernel are told apart by the constants
    /// that vary among them, in numeric order; a lone kernel names none.
    #[test]
    fn pipelines_of_one_kernel_are_named_by_the_constants_that_vary() {
        let mut sources = vec![
            source("comd", "force_cell", 256, 256),
            source("comd", "force_cell", 64, 256),
            source("comd", "force_cell", 128, 256),
            source("comd", "force_atom", 128, 256),
        ];
        sort_sources(&mut sources);
        let named: Vec<(String, Vec<(String, String)>)> = sources
            .iter()
            .map(|s| s.entry.clone())
            .zip(distinct_constants(&sources))
            .collect();
        let wg = |v: &str| vec![("WG".to_string(), v.to_string())];
        assert_eq!(
            named,
            [
                ("force_atom".into(), vec![]),
                ("force_cell".into(), wg("64")),
                ("force_cell".into(), wg("128")),
                ("force_cell".into(), wg("256")),
            ]
        );
    }

    /// Pipelines of one kernel whose generated sources differ, with the
    /// same constants, are told apart by their source's ordinal.
    #[test]
    fn generated_forms_of_one_kernel_are_numbered() {
        let form = |include: &'static str, wg: u32| {
            let mut s = source("milc", "dslash_fused", wg, 1);
            s.spec = s.spec.with_include(include);
            s
        };
        let mut sources = vec![
            form("fn a() {}", 128),
            form("fn b() {}", 128),
            form("fn a() {}", 256),
        ];
        sort_sources(&mut sources);
        let named: Vec<String> = distinct_constants(&sources)
            .iter()
            .map(|d| {
                d.iter()
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            named,
            ["WG=128 source=#1", "WG=128 source=#2", "WG=256 source=#1"]
        );
        let lone = vec![source("su3", "main", 128, 1)];
        assert_eq!(distinct_constants(&lone), [Vec::<(String, String)>::new()]);
    }
}
