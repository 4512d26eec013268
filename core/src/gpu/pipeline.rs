//! Compute pipelines: composing and compiling a [`ShaderSpec`] for a device
//! (WGSL through wgpu, or precise SPIR-V for df64), explicit bind group
//! layouts, and workgroup counts for a dispatch.

use wgpu::util::DeviceExt;

use super::adapter::Capabilities;
use crate::error::{Error, Result};
use crate::precision::Precision;
use crate::shader::{Df64Mode, ShaderSpec};

/// How a kernel binds one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bind {
    /// `var<storage, read>`
    Read,
    /// `var<storage, read_write>`
    ReadWrite,
    /// `var<uniform>`
    Uniform,
}

/// What a pipeline was compiled from.
#[derive(Clone, Debug)]
pub struct PipelineSource {
    /// The module.
    pub spec: ShaderSpec,
    /// Its entry point.
    pub entry: String,
    /// Group 0's bindings.
    pub binds: Vec<Bind>,
}

/// A compute pipeline with its explicit bind group layout (group 0).
#[derive(Clone)]
pub struct Pipeline {
    /// The pipeline.
    pub pipeline: wgpu::ComputePipeline,
    /// Layout of bind group 0, in the order of the `Bind` list it was made from.
    pub layout: wgpu::BindGroupLayout,
    /// Group 1 of df64 pipelines (the guard's runtime zero).
    extra: Option<wgpu::BindGroup>,
}

impl Pipeline {
    /// Sets the pipeline, `group0` and any group the runtime adds, on `pass`.
    pub fn set(&self, pass: &mut wgpu::ComputePass<'_>, group0: &wgpu::BindGroup) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group0, &[]);
        if let Some(g) = &self.extra {
            pass.set_bind_group(1, g, &[]);
        }
    }
}

/// What building pipelines needs to know about one device: the features
/// kernels may ask for, whether df64 can be compiled precisely, and the
/// bind group holding df64's runtime zero guard.
pub struct Compiler {
    f64: bool,
    subgroups: bool,
    float32_atomics: bool,
    /// SPIR-V passthrough on Vulkan (see [`crate::precise`]).
    precise: bool,
    /// Whether the device defines out-of-bounds buffer accesses (Vulkan's
    /// robustBufferAccess2), so shaders need no bounds checks on buffers.
    #[cfg(not(target_arch = "wasm32"))]
    robust_buffers: bool,
    /// Group 1 of every df64 pipeline: the runtime zero of `df_g`.
    df64_guard: (wgpu::BindGroupLayout, wgpu::BindGroup),
}

/// Whether df64 kernels may be passed through as SPIR-V (see
/// [`crate::precise`]): only a native Vulkan device with
/// `PASSTHROUGH_SHADERS` takes SPIR-V. Metal and DX12 report that feature
/// too, for their own shader languages, so the backend decides as well.
pub(crate) fn precise_passthrough(backend: wgpu::Backend, features: wgpu::Features) -> bool {
    cfg!(not(target_arch = "wasm32"))
        && backend == wgpu::Backend::Vulkan
        && features.contains(wgpu::Features::PASSTHROUGH_SHADERS)
}

impl Compiler {
    /// The compiler for `device`, opened on `adapter` with capabilities `caps`.
    pub fn new(adapter: &wgpu::Adapter, device: &wgpu::Device, caps: &Capabilities) -> Compiler {
        let precise = precise_passthrough(adapter.get_info().backend, device.features());
        Compiler {
            f64: caps.f64,
            subgroups: caps.subgroups,
            float32_atomics: caps.float32_atomics,
            precise,
            #[cfg(not(target_arch = "wasm32"))]
            robust_buffers: super::adapter::vulkan_robust_buffers(adapter),
            df64_guard: df64_guard_group(device),
        }
    }

    /// Whether df64 kernels can be compiled in a precise formulation.
    pub fn precise_available(&self) -> bool {
        self.precise
    }

    /// Composes, compiles and links `spec` at `entry` with an explicit layout
    /// and df64 formulation `df64`. Loop bounding is off (every suite loop has
    /// a fixed trip count) because the injected counters slow FMA chains;
    /// bounds checks stay on.
    pub fn pipeline(
        &self,
        device: &wgpu::Device,
        spec: &ShaderSpec,
        entry: &str,
        binds: &[Bind],
        df64: Df64Mode,
    ) -> Result<Pipeline> {
        if spec.precision == Precision::F64 && !self.f64 {
            return Err(Error::MissingFeature("SHADER_F64"));
        }
        if spec.subgroups && !self.subgroups {
            return Err(Error::MissingFeature("SUBGROUP"));
        }
        if spec.float32_atomics && !self.float32_atomics {
            return Err(Error::MissingFeature("SHADER_FLOAT32_ATOMIC"));
        }
        let module = self.module(device, spec, df64)?;
        let entries: Vec<wgpu::BindGroupLayoutEntry> = binds
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupLayoutEntry {
                binding: i as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match b {
                        Bind::Read => wgpu::BufferBindingType::Storage { read_only: true },
                        Bind::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                        Bind::Uniform => wgpu::BufferBindingType::Uniform,
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(&spec.label),
            entries: &entries,
        });
        let df64 = spec.precision == Precision::Df64;
        let groups = if df64 {
            vec![Some(&layout), Some(&self.df64_guard.0)]
        } else {
            vec![Some(&layout)]
        };
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(&spec.label),
            bind_group_layouts: &groups,
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&spec.label),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let extra = df64.then(|| self.df64_guard.1.clone());
        Ok(Pipeline {
            pipeline,
            layout,
            extra,
        })
    }

    /// `spec` compiled for `device`: WGSL through wgpu, or for df64 in a
    /// precise formulation, SPIR-V decorated by [`crate::precise`].
    fn module(
        &self,
        device: &wgpu::Device,
        spec: &ShaderSpec,
        df64: Df64Mode,
    ) -> Result<wgpu::ShaderModule> {
        #[cfg(not(target_arch = "wasm32"))]
        if df64.precise && spec.precision == Precision::Df64 {
            if !self.precise {
                return Err(Error::MissingFeature("PASSTHROUGH_SHADERS on Vulkan"));
            }
            let compiled = crate::precise::precise_spirv(spec, df64, self.robust_buffers)?;
            let entry_points: Vec<wgpu::PassthroughShaderEntryPoint> = compiled
                .entry_points
                .iter()
                .map(|(name, [x, y, z])| wgpu::PassthroughShaderEntryPoint {
                    name: name.as_str().into(),
                    workgroup_size: (*x, *y, *z),
                })
                .collect();
            // SAFETY: the words are naga's SPIR-V output for a module naga
            // validated, with decorations added only; the pipeline layout is
            // explicit, so no reflection is needed.
            #[allow(unsafe_code)]
            let module = unsafe {
                device.create_shader_module_passthrough(wgpu::ShaderModuleDescriptorPassthrough {
                    label: Some(&spec.label),
                    entry_points: entry_points.into(),
                    spirv: Some(compiled.words.into()),
                    ..Default::default()
                })
            };
            return Ok(module);
        }
        let checks = wgpu::ShaderRuntimeChecks {
            bounds_checks: true,
            force_loop_bounding: false,
            ray_query_initialization_tracking: false,
            ..wgpu::ShaderRuntimeChecks::checked()
        };
        // SAFETY: the only check relaxed is loop bounding, and every loop in
        // shaders/ runs a trip count fixed by its constants or uniforms.
        #[allow(unsafe_code)]
        let module = unsafe {
            device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(&spec.label),
                    source: wgpu::ShaderSource::Wgsl(spec.compose(df64).into()),
                },
                checks,
            )
        };
        Ok(module)
    }
}

/// The bind group holding df64's runtime zero guard, and its layout.
fn df64_guard_group(device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::BindGroup) {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("df64-guard"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("df64-guard"),
        contents: bytemuck::cast_slice(&[0u32; 4]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("df64-guard"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buf.as_entire_binding(),
        }],
    });
    (layout, group)
}

/// Workgroup counts for `invocations` threads in groups of `wg`, spread over
/// x and y when x alone would pass `max_per_dim`. Kernels rebuild the linear
/// index as `gid.x + gid.y * (num_workgroups.x * WG)`.
pub fn dispatch_shape(invocations: u64, wg: u32, max_per_dim: u32) -> Result<(u32, u32)> {
    let groups = invocations.div_ceil(wg as u64);
    if groups <= max_per_dim as u64 {
        return Ok((groups.max(1) as u32, 1));
    }
    let y = groups.div_ceil(max_per_dim as u64);
    if y > max_per_dim as u64 {
        return Err(Error::OverLimit {
            limit: "max_compute_workgroups_per_dimension",
            needed: groups,
            max: (max_per_dim as u64).pow(2),
        });
    }
    let x = groups.div_ceil(y);
    Ok((x as u32, y as u32))
}

#[cfg(test)]
mod tests {
    use super::dispatch_shape;

    #[test]
    fn dispatch_shape_covers_all_invocations() {
        for &(n, wg) in &[
            (1u64, 64u32),
            (1 << 25, 256),
            (1 << 25, 32),
            (65535 * 64 + 1, 64),
        ] {
            let (x, y) = dispatch_shape(n, wg, 65535).expect("fits");
            assert!(x <= 65535 && y <= 65535);
            assert!(x as u64 * y as u64 * wg as u64 >= n);
        }
        assert!(dispatch_shape(u64::MAX / 2, 1, 65535).is_err());
    }
}
