//! Keeping a GPU warm between cases. A GPU's clock governor lowers the
//! clocks soon after the GPU goes idle and needs up to seconds of load to
//! raise them again (on the H200 the SM clock idles at 345 MHz), so a case
//! timed after the host spent a second preparing it would need that second
//! of warm-up again. Instead, [`Busy`] tracks how long the GPU has been
//! busy without a break, and a [`Heater`] keeps it busy with a light load on
//! a thread of its own while the host prepares and validates the next case:
//! the warm-up is then paid once per process, not once per case.

use std::sync::Mutex;

use web_time::Instant;

/// A gap longer than this between two pieces of GPU work counts as idle:
/// the clocks may have dropped, and the warm-up starts over.
pub const IDLE_GAP_S: f64 = 0.1;

/// How long the GPU has been busy without a break.
#[derive(Default)]
pub struct Busy {
    /// Start and end of the current busy stretch.
    span: Mutex<Option<(Instant, Instant)>>,
}

impl Busy {
    /// Records that the GPU was busy from `start` to `end`: it extends the
    /// current stretch unless the gap since that stretch's end counts as idle.
    pub fn record(&self, start: Instant, end: Instant) {
        if let Ok(mut span) = self.span.lock() {
            *span = Some(match *span {
                Some((since, until))
                    if start.saturating_duration_since(until).as_secs_f64() <= IDLE_GAP_S =>
                {
                    (since, end.max(until))
                }
                _ => (start, end),
            });
        }
    }

    /// Seconds of unbroken load up to now (0 when idle for longer than
    /// [`IDLE_GAP_S`]).
    pub fn seconds(&self) -> f64 {
        match self.span.lock().ok().and_then(|s| *s) {
            Some((since, until)) if until.elapsed().as_secs_f64() <= IDLE_GAP_S => {
                until.duration_since(since).as_secs_f64()
            }
            _ => 0.0,
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use native::{Heat, Heater, SOURCE};

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::JoinHandle;
    use std::time::Duration;

    use web_time::Instant;

    use super::super::pipeline::Pipeline;

    /// The kernel's source.
    pub const SOURCE: &str = include_str!("../../../shaders/heater/heater.wgsl");

    /// Workgroups per dispatch: enough to touch every SM of a large GPU
    /// without filling it (the point is to look busy, not to draw power).
    const GROUPS: u32 = 128;

    /// Target length of one dispatch: short enough that stopping waits
    /// little, long enough that submissions are a small share.
    const TARGET_S: f64 = 1e-3;

    /// The keep-warm kernel with its buffers, ready to run on a thread.
    pub struct Heater {
        device: wgpu::Device,
        queue: wgpu::Queue,
        pipeline: wgpu::ComputePipeline,
        group: wgpu::BindGroup,
        steps: wgpu::Buffer,
    }

    impl Heater {
        /// A heater for `device` from the compiled keep-warm `pipeline`.
        pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, pipeline: &Pipeline) -> Heater {
            let sink = super::super::resources::storage(device, "heater-sink", 64 * 4 * 128);
            let steps = super::super::resources::uniform(device, "heater-steps", &[0; 16]);
            let group = super::super::resources::bind_resources(
                device,
                &pipeline.layout,
                &[sink.as_entire_binding(), steps.as_entire_binding()],
            );
            Heater {
                device: device.clone(),
                queue: queue.clone(),
                pipeline: pipeline.pipeline.clone(),
                group,
                steps,
            }
        }

        /// Starts keeping the GPU busy; it stops when the returned [`Heat`]
        /// is dropped.
        pub fn start(&self) -> Heat {
            let stop = Arc::new(AtomicBool::new(false));
            let (device, queue) = (self.device.clone(), self.queue.clone());
            let (pipeline, group, steps) = (
                self.pipeline.clone(),
                self.group.clone(),
                self.steps.clone(),
            );
            let flag = stop.clone();
            let thread = std::thread::spawn(move || {
                let mut n = 1024u32;
                let mut runs = 0u64;
                while !flag.load(Ordering::Relaxed) {
                    queue.write_buffer(&steps, 0, &n.to_le_bytes());
                    let t0 = Instant::now();
                    let mut enc = device.create_command_encoder(&Default::default());
                    {
                        let mut pass = enc.begin_compute_pass(&Default::default());
                        pass.set_pipeline(&pipeline);
                        pass.set_bind_group(0, &group, &[]);
                        pass.dispatch_workgroups(GROUPS, 1, 1);
                    }
                    let index = queue.submit([enc.finish()]);
                    let waited = device.poll(wgpu::PollType::Wait {
                        submission_index: Some(index),
                        timeout: Some(Duration::from_secs(1)),
                    });
                    if waited.is_err() {
                        // A lost or hung device: the case's own operations report it.
                        break;
                    }
                    runs += 1;
                    // Steer the chain's length so one dispatch takes about TARGET_S.
                    let scale = TARGET_S / t0.elapsed().as_secs_f64().max(1e-6);
                    n = (f64::from(n) * scale.clamp(0.5, 2.0)).clamp(64.0, 1e8) as u32;
                }
                runs
            });
            Heat {
                stop,
                thread: Some(thread),
                since: Instant::now(),
            }
        }
    }

    /// A running heater; dropping it stops the thread and waits for it.
    pub struct Heat {
        stop: Arc<AtomicBool>,
        thread: Option<JoinHandle<u64>>,
        since: Instant,
    }

    impl Heat {
        /// When the heater started.
        pub fn since(&self) -> Instant {
            self.since
        }

        /// Stops the heater and says how many dispatches it completed.
        pub fn stop(mut self) -> u64 {
            self.halt()
        }

        fn halt(&mut self) -> u64 {
            self.stop.store(true, Ordering::Relaxed);
            self.thread.take().and_then(|t| t.join().ok()).unwrap_or(0)
        }
    }

    impl Drop for Heat {
        fn drop(&mut self) {
            self.halt();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_gap_extends_the_stretch_and_a_long_one_restarts_it() {
        let busy = Busy::default();
        assert_eq!(busy.seconds(), 0.0);
        let t0 = Instant::now();
        let ms = |m: u64| t0 + std::time::Duration::from_millis(m);
        let span = |b: &Busy| b.span.lock().ok().and_then(|s| *s);
        busy.record(ms(0), ms(50));
        busy.record(ms(60), ms(80));
        assert_eq!(span(&busy), Some((ms(0), ms(80))));
        busy.record(ms(400), ms(410));
        assert_eq!(span(&busy), Some((ms(400), ms(410))));
    }
}
