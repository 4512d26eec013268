//! A case's timed runs: the warm-up, then samples of back-to-back runs,
//! as many runs a sample as its timer's resolution asks (see
//! [`crate::gpu::clock`]), timed by GPU timestamps where the device and
//! kernel allow them, else by the host clock.

use std::sync::atomic::{AtomicUsize, Ordering};

use web_time::Instant;

use super::RunOptions;
use crate::app::{Kernel, Timestamps};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::gpu::clock::{self, MAX_RUNS, MIN_QUANTA};
use crate::gpu::timer::{self, Timer};
use crate::timing::{Stats, TimingMethod};

/// Sample sets a case may take while its samples fall short of
/// [`MIN_QUANTA`] quanta (the first, then more runs a sample).
const ATTEMPTS: u32 = 4;

/// Kernels being timed now, on any device of this process.
static TIMING: AtomicUsize = AtomicUsize::new(0);

/// Whether a kernel is being timed now in this process. A front end whose
/// frames share the GPU holds its repaints meanwhile: in Chromium on
/// SwiftShader a frame of the page kept another device's empty
/// submission waiting 0.7-1.4 s (0.5 ms without frames), the scatter of
/// every sample that overlapped one (docs/notebook/benchmarks.md,
/// 2026-11-29 y).
pub fn timing_now() -> bool {
    TIMING.load(Ordering::Relaxed) > 0
}

/// Counts a timed section in [`TIMING`] while it lives (also when its
/// future is dropped part-way).
struct Timing;

impl Timing {
    fn start() -> Timing {
        TIMING.fetch_add(1, Ordering::Relaxed);
        Timing
    }
}

impl Drop for Timing {
    fn drop(&mut self) {
        TIMING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// At least `opts.warmup` runs, continued until the GPU has been busy
/// without a break for `opts.warmup_s`: a GPU idling at low clocks needs up
/// to seconds of load before its clocks settle, far longer than two runs of
/// a short kernel, but a GPU kept busy since the last case needs no more.
/// Returns the wall time of one run as the last batch measured it (`None`
/// when no run was needed).
pub(super) async fn warm_up(
    gpu: &Gpu,
    kernel: &dyn Kernel,
    opts: RunOptions,
) -> Result<Option<f64>> {
    let mut runs = 0u32;
    let mut batch = opts.warmup.max(1);
    let mut run_s = None;
    while runs < opts.warmup || gpu.busy.seconds() < opts.warmup_s {
        let t = Instant::now();
        submit_runs(gpu, kernel, batch);
        gpu.finish().await?;
        let end = Instant::now();
        gpu.busy.record(t, end);
        run_s = Some(end.duration_since(t).as_secs_f64() / f64::from(batch));
        runs += batch;
        batch = (batch * 2).min(64);
    }
    Ok(run_s)
}

pub(super) fn submit_runs(gpu: &Gpu, kernel: &dyn Kernel, runs: u32) {
    for _ in 0..runs {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        kernel.encode(&mut enc, Timestamps::None);
        gpu.queue.submit([enc.finish()]);
    }
}

/// A case's timed samples and what timed them.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Timed {
    /// How they were timed.
    pub method: TimingMethod,
    /// Each sample: the mean of its runs, seconds.
    pub samples: Vec<f64>,
    /// Back-to-back runs a sample spans.
    pub runs: u32,
    /// The resolution of their timer, seconds.
    pub resolution_s: f64,
}

/// Times `kernel`, whose runs took `run_s` each in the warm-up: samples of
/// `opts.runs()` back-to-back runs, or more where fewer would span less
/// than [`MIN_QUANTA`] quanta of the timer's resolution. Timestamps'
/// quantum is measured on the samples themselves (see [`clock::quantum`]),
/// so a set that falls short is taken again with more runs a sample.
pub(super) async fn time_kernel(
    gpu: &Gpu,
    kernel: &dyn Kernel,
    opts: RunOptions,
    run_s: f64,
) -> Result<Timed> {
    let _timing = Timing::start();
    let method = timer::method(gpu, kernel.pass_timed());
    let mut resolution_s = gpu.resolution(method).await?;
    let mut runs = clock::runs_for(opts.runs(), resolution_s, run_s);
    let mut attempt = 1;
    loop {
        let n = RunOptions {
            runs_per_sample: runs,
            ..opts
        }
        .samples_for(run_s);
        let samples = time_samples(gpu, kernel, method, n, runs).await?;
        resolution_s = gpu.resolution(method).await?;
        let shortest = samples.iter().copied().fold(f64::INFINITY, f64::min) * f64::from(runs);
        if shortest >= MIN_QUANTA * resolution_s || runs >= MAX_RUNS || attempt == ATTEMPTS {
            if Stats::of(&samples).median <= 0.0 {
                return Err(Error::Device(format!(
                    "{} runs a sample timed zero: shorter than the timer's {resolution_s:e} s resolution",
                    runs
                )));
            }
            return Ok(Timed {
                method,
                samples,
                runs,
                resolution_s,
            });
        }
        runs = clock::more_runs(runs, resolution_s, shortest);
        attempt += 1;
    }
}

/// `n` timed samples of `kernel` by `method`, each the mean of `runs`
/// back-to-back runs: GPU timestamps (whose quantum the device's clock
/// takes in) or the host clock around each sample's runs.
async fn time_samples(
    gpu: &Gpu,
    kernel: &dyn Kernel,
    method: TimingMethod,
    n: u32,
    runs: u32,
) -> Result<Vec<f64>> {
    let per_run = f64::from(runs);
    if method == TimingMethod::WallClock {
        let mut samples = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let t0 = Instant::now();
            submit_runs(gpu, kernel, runs);
            gpu.finish().await?;
            samples.push(t0.elapsed().as_secs_f64() / per_run);
        }
        return Ok(samples);
    }
    let timer = Timer::new(gpu, n);
    gpu.scoped(|| {
        // A submission a sample, so that many runs a sample never make one
        // command buffer long enough for a driver's watchdog; the queue runs
        // them back to back, and each interval lies within one of them.
        for s in 0..n {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            if method == TimingMethod::GpuTimestampsEncoder {
                timer.around(&mut enc, s, |enc| {
                    kernel.encode_runs(enc, runs, Timestamps::None)
                });
            } else {
                kernel.encode_runs(&mut enc, runs, timer.passes(s));
            }
            gpu.queue.submit([enc.finish()]);
        }
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        timer.resolve(&mut enc);
        gpu.queue.submit([enc.finish()]);
        Ok(())
    })
    .await?;
    let raw = gpu.read_buffers(&[timer.buffer()]).await?;
    let ticks = Timer::ticks(&raw[0]);
    if let Some(q) = clock::quantum(&ticks) {
        gpu.clock.saw_ticks(q);
    }
    ticks
        .into_iter()
        .map(|[start, end]| {
            // Equal ticks are a sample within one quantum, which the
            // caller answers with more runs; an end before the start is no
            // clock at all.
            if end < start {
                return Err(Error::Device(format!(
                    "GPU timestamps going backwards ({start} then {end}): the adapter's timer is unusable"
                )));
            }
            Ok(timer.seconds(end - start) / per_run)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timed section counts while it lives, across a pending await too
    /// (other tests may time kernels meanwhile: only that it counts is
    /// checked, not the count falling after).
    #[test]
    fn a_timed_section_counts_while_it_lives() {
        let future = async {
            let _timing = Timing::start();
            assert!(timing_now());
            std::future::pending::<()>().await;
        };
        let mut future = Box::pin(future);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(future.as_mut().poll(&mut cx).is_pending());
        assert!(timing_now());
        drop(future);
    }
}
