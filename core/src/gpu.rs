//! Buffers, bind groups, pipelines and asynchronous readback on a [`Gpu`].
//!
//! Nothing here blocks: results come back through futures. In the browser the
//! event loop fires wgpu's callbacks; natively [`Pump`] polls the device while
//! the future is pending.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_channel::oneshot;
use wgpu::util::DeviceExt;

use crate::device::Gpu;
use crate::error::{Error, Result};
use crate::shader::{Df64Mode, ShaderSpec};

/// How a kernel binds one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bind {
    /// `var<storage, read>`
    Read,
    /// `var<storage, read_write>`
    ReadWrite,
    /// `var<uniform>`
    Uniform,
}

/// A compute pipeline with its explicit bind group layout (group 0).
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

/// The bind group holding df64's runtime zero guard, and its layout.
pub(crate) fn df64_guard_group(device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::BindGroup) {
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

/// Resolves when the wrapped receiver does, driving the device natively.
struct Pump<'a, T> {
    device: &'a wgpu::Device,
    rx: oneshot::Receiver<T>,
}

impl<T> Future for Pump<'_, T> {
    type Output = Result<T>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(v) = Pin::new(&mut self.rx).poll(cx) {
            return Poll::Ready(
                v.map_err(|_| Error::Device("callback dropped (device lost?)".into())),
            );
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            // A short bounded wait on the device fence: the executor's thread sleeps
            // in the driver instead of spinning, and the future still yields so
            // other work on the executor proceeds.
            let r = self.device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: Some(std::time::Duration::from_millis(2)),
            });
            if let Err(e) = r
                && !matches!(e, wgpu::PollError::Timeout)
            {
                return Poll::Ready(Err(Error::Device(format!("poll failed: {e}"))));
            }
            cx.waker().wake_by_ref();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = self.device;
        Poll::Pending
    }
}

impl Gpu {
    /// A storage buffer holding `bytes` (also a copy source and destination).
    pub fn storage_init(&self, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
        self.check_size(bytes.len() as u64)?;
        Ok(self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            }))
    }

    /// A storage buffer of `len` bytes filled with repetitions of `pattern`
    /// (the poison that makes an unwritten output element fail validation).
    pub fn storage_poisoned(&self, label: &str, len: u64, pattern: &[u8]) -> Result<wgpu::Buffer> {
        self.check_size(len)?;
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: len,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.poison(&buf, pattern);
        Ok(buf)
    }

    /// Overwrites `buf` with repetitions of `pattern`, in bounded chunks.
    pub fn poison(&self, buf: &wgpu::Buffer, pattern: &[u8]) {
        self.poison_range(buf, 0, buf.size(), pattern);
    }

    /// Overwrites `len` bytes of `buf` from `offset` with repetitions of `pattern`.
    pub fn poison_range(&self, buf: &wgpu::Buffer, offset: u64, len: u64, pattern: &[u8]) {
        const CHUNK: u64 = 16 << 20;
        let chunk: Vec<u8> = pattern
            .iter()
            .copied()
            .cycle()
            .take(CHUNK.min(len) as usize)
            .collect();
        let mut done = 0;
        while done < len {
            let n = CHUNK.min(len - done) as usize;
            self.queue.write_buffer(buf, offset + done, &chunk[..n]);
            done += n as u64;
        }
    }

    /// A uniform buffer holding `bytes`.
    pub fn uniform(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            })
    }

    /// `Err(OverLimit)` when one binding of `bytes` would pass the adapter's limits.
    pub fn check_size(&self, bytes: u64) -> Result<()> {
        if bytes > self.caps.max_buffer {
            return Err(Error::OverLimit {
                limit: "max_buffer_size",
                needed: bytes,
                max: self.caps.max_buffer,
            });
        }
        if bytes > self.caps.max_storage_binding {
            return Err(Error::OverLimit {
                limit: "max_storage_buffer_binding_size",
                needed: bytes,
                max: self.caps.max_storage_binding,
            });
        }
        Ok(())
    }

    /// Composes, compiles and links `spec` at `entry` with an explicit layout.
    /// Loop bounding is off (every suite loop has a fixed trip count) because
    /// the injected counters slow FMA chains; bounds checks stay on.
    pub fn pipeline(&self, spec: &ShaderSpec, entry: &str, binds: &[Bind]) -> Result<Pipeline> {
        self.pipeline_with(spec, entry, binds, self.df64.mode())
    }

    /// [`Gpu::pipeline`] with an explicit df64 formulation (for the self-test).
    pub(crate) fn pipeline_with(
        &self,
        spec: &ShaderSpec,
        entry: &str,
        binds: &[Bind],
        df64: Df64Mode,
    ) -> Result<Pipeline> {
        if spec.precision == crate::Precision::F64 && !self.caps.f64 {
            return Err(Error::MissingFeature("SHADER_F64"));
        }
        if spec.subgroups && !self.caps.subgroups {
            return Err(Error::MissingFeature("SUBGROUP"));
        }
        let module = self.module(spec, df64)?;
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
        let layout = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&spec.label),
                entries: &entries,
            });
        let df64 = spec.precision == crate::Precision::Df64;
        let groups = if df64 {
            vec![Some(&layout), Some(&self.df64_guard.0)]
        } else {
            vec![Some(&layout)]
        };
        let pl = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&spec.label),
                bind_group_layouts: &groups,
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
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

    /// `spec` compiled for this device: WGSL through wgpu, or for df64 in a
    /// precise formulation, SPIR-V decorated by [`crate::precise`].
    fn module(&self, spec: &ShaderSpec, df64: Df64Mode) -> Result<wgpu::ShaderModule> {
        #[cfg(not(target_arch = "wasm32"))]
        if df64.precise && spec.precision == crate::Precision::Df64 {
            if !self.precise_available() {
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
                self.device.create_shader_module_passthrough(
                    wgpu::ShaderModuleDescriptorPassthrough {
                        label: Some(&spec.label),
                        entry_points: entry_points.into(),
                        spirv: Some(compiled.words.into()),
                        ..Default::default()
                    },
                )
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
            self.device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(&spec.label),
                    source: wgpu::ShaderSource::Wgsl(spec.compose(df64).into()),
                },
                checks,
            )
        };
        Ok(module)
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
        let entries: Vec<wgpu::BindGroupEntry> = resources
            .iter()
            .enumerate()
            .map(|(i, r)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: r.clone(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.layout,
            entries: &entries,
        })
    }

    /// Copies `buffers` to the host and returns their bytes.
    pub async fn read_buffers(&self, buffers: &[&wgpu::Buffer]) -> Result<Vec<Vec<u8>>> {
        let mut enc = self.device.create_command_encoder(&Default::default());
        let staging: Vec<wgpu::Buffer> = buffers
            .iter()
            .map(|b| {
                let s = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size: b.size(),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                enc.copy_buffer_to_buffer(b, 0, &s, 0, b.size());
                s
            })
            .collect();
        self.queue.submit([enc.finish()]);
        let mut out = Vec::with_capacity(staging.len());
        for s in &staging {
            let (tx, rx) = oneshot::channel();
            s.map_async(wgpu::MapMode::Read, .., move |r| {
                let _ = tx.send(r);
            });
            Pump {
                device: &self.device,
                rx,
            }
            .await?
            .map_err(|e| Error::Device(format!("buffer map failed: {e}")))?;
            let view = s
                .get_mapped_range(..)
                .map_err(|e| Error::Device(format!("mapped range: {e}")))?;
            out.push(view.to_vec());
            drop(view);
            s.unmap();
        }
        self.check_lost()?;
        Ok(out)
    }

    /// Resolves when the queue has finished everything submitted so far.
    pub async fn finish(&self) -> Result<()> {
        let (tx, rx) = oneshot::channel();
        self.queue.on_submitted_work_done(move || {
            let _ = tx.send(());
        });
        Pump {
            device: &self.device,
            rx,
        }
        .await?;
        self.check_lost()
    }

    /// Runs `f` inside validation and out-of-memory error scopes and turns any
    /// captured wgpu error into an [`Error`], so bad sizes or shaders come back
    /// as errors instead of a panic or a lost device.
    pub async fn scoped<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let val_err = val.pop().await;
        let oom_err = oom.pop().await;
        let out = out?;
        if let Some(e) = oom_err {
            return Err(Error::Device(format!("out of device memory: {e}")));
        }
        if let Some(e) = val_err {
            return Err(Error::Device(e.to_string()));
        }
        self.check_lost()?;
        Ok(out)
    }
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
