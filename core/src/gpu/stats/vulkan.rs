//! The Vulkan side of [`super::pipeline_stats`]: a bare device on the
//! [`Gpu`]'s physical device with `VK_KHR_pipeline_executable_properties`
//! on, compiling naga's SPIR-V of each pipeline with statistics captured.

use std::ffi::CString;

use ash::vk;

use super::{Executable, Statistic};
use crate::error::{Error, Result};
use crate::gpu::adapter::vulkan_robust_buffers;
use crate::gpu::{Bind, Gpu, PipelineSource};
use crate::precision::Precision;
use crate::shader::Df64Mode;

/// A stats device and how to write SPIR-V as the [`Gpu`]'s pipelines were.
pub(super) struct Driver {
    device: StatsDevice,
    mode: Df64Mode,
    robust: bool,
    zeroing: bool,
}

impl Driver {
    /// Opens the stats device on `gpu`'s adapter. Errors with
    /// [`Error::MissingFeature`] where the adapter is not Vulkan or its
    /// driver lacks the extension.
    pub(super) fn open(gpu: &Gpu) -> Result<Driver> {
        // SAFETY: the handles are used while `gpu` (which owns the adapter)
        // is borrowed, and only to create and destroy a device of our own.
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
        let atomics = gpu.caps.float32_atomics;
        let phd = hal.raw_physical_device();
        let has_zero_ext = hal
            .physical_device_capabilities()
            .supports_extension(ZERO_EXT);
        let zeroing = driver_zeroing(instance, phd, has_zero_ext);
        Ok(Driver {
            device: StatsDevice::new(instance, phd, gpu.caps.f64, atomics, zeroing)?,
            mode: gpu.df64.mode(),
            robust: vulkan_robust_buffers(&gpu.adapter),
            zeroing: zeroing.is_some(),
        })
    }

    /// What the driver compiled `s` to.
    pub(super) fn statistics(&self, s: &PipelineSource) -> Result<Vec<Executable>> {
        let precise = self.mode.precise && s.spec.precision == Precision::Df64;
        let words = if precise {
            crate::precise::precise_spirv(&s.spec, self.mode, self.robust)?.words
        } else {
            crate::precise::spirv(&s.spec, self.mode, self.robust, self.zeroing)?.words
        };
        self.device.statistics(s, &words)
    }

    /// Destroys the stats device.
    pub(super) fn destroy(self) {
        self.device.destroy();
    }
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
