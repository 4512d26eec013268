//! The CPU reference platform: its identity and capabilities, how a
//! request is planned on it (one `reference` row per implementation it
//! has), and running one case with the host clock.

use std::collections::BTreeMap;

use super::{Outcome, Plan, RunOptions};
use crate::app::{App, Case, Validation};
use crate::gpu::{Capabilities, PlatformInfo};
use crate::record::ResultRecord;
use crate::timing::TimingMethod;
use web_time::Instant;

/// The CPU reference platform's identity.
pub fn cpu_platform() -> PlatformInfo {
    #[cfg(not(target_arch = "wasm32"))]
    let threads = rayon::current_num_threads();
    #[cfg(target_arch = "wasm32")]
    let threads = 1;
    PlatformInfo {
        index: None,
        name: format!(
            "CPU reference ({threads} threads, {})",
            std::env::consts::ARCH
        ),
        backend: "cpu".into(),
        device_type: "cpu".into(),
        driver: "skylight-core (rayon, f64)".into(),
        driver_info: String::new(),
        vendor: 0,
        device: 0,
        df64: None,
        offers: None,
    }
}

/// Capabilities of the CPU reference platform: f64 only, no GPU limits;
/// its "device" is the host, so sizes are checked against the host's memory.
pub fn cpu_capabilities() -> Capabilities {
    Capabilities {
        f64: true,
        host_memory: crate::gpu::memory::host_available_bytes(),
        max_storage_binding: u64::MAX / 4,
        max_buffer: u64::MAX / 4,
        max_workgroup_storage: u32::MAX,
        max_workgroup_invocations: 1024,
        max_workgroups_per_dim: u32::MAX,
        max_storage_buffers: u32::MAX,
        ..Capabilities::default()
    }
}

/// The variant label of the CPU reference platform's cases.
pub const CPU_REFERENCE: &str = "reference";

/// The parameters the CPU reference implementation of `app` honours: the
/// problem's ([`App::problem`]) and those it declares ([`App::cpu_params`]).
pub fn cpu_honoured(app: &dyn App) -> Vec<&'static str> {
    let mut names = app.problem().to_vec();
    for p in app.cpu_params() {
        if !names.contains(p) {
            names.push(p);
        }
    }
    names
}

/// A plan for the CPU reference platform. It has one implementation of each
/// kernel (the f64 reference), so cases that differ only in parameters it
/// does not honour (layouts, mappings, workgroup sizes, ...; see
/// [`cpu_honoured`]) collapse into one case labelled [`CPU_REFERENCE`] (with
/// `/name=value` for each honoured parameter that tells a kernel's cases apart),
/// and the other requested variants become [`Outcome::Unsupported`].
pub fn cpu_plan(app: &dyn App, plan: Plan) -> Plan {
    let honoured = cpu_honoured(app);
    let key = |c: &Case| {
        let values: Vec<Option<String>> =
            honoured.iter().map(|p| c.params.get(*p).cloned()).collect();
        (c.kernel.clone(), c.precision, values)
    };
    // Each distinct key's first case, and the cases it stands for.
    let mut groups: Vec<(Case, Vec<Case>)> = Vec::new();
    for c in plan.cases {
        match groups.iter_mut().find(|(first, _)| key(first) == key(&c)) {
            Some((_, others)) => others.push(c),
            None => groups.push((c, Vec::new())),
        }
    }
    // The honoured parameters that tell this kernel's cases apart, each
    // one only if an earlier one does not already determine it (L and
    // L^3 sites).
    let distinct = |kernel: &str, names: &[&str]| {
        groups
            .iter()
            .filter(|(o, _)| o.kernel == kernel)
            .map(|(o, _)| names.iter().map(|p| o.params.get(*p)).collect::<Vec<_>>())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let label = |c: &Case| {
        let mut shown: Vec<&str> = Vec::new();
        for p in &honoured {
            let mut with = shown.clone();
            with.push(p);
            if distinct(&c.kernel, &with) > distinct(&c.kernel, &shown) {
                shown = with;
            }
        }
        let mut label = CPU_REFERENCE.to_string();
        for p in shown {
            label.push_str(&format!("/{p}={}", c.text(p)));
        }
        label
    };
    let labels: Vec<String> = groups.iter().map(|(c, _)| label(c)).collect();
    let mut cases = Vec::new();
    let mut skipped = plan.skipped;
    for ((mut first, others), label) in groups.into_iter().zip(labels) {
        for c in others {
            let ignored: Vec<&str> = c
                .params
                .keys()
                .map(String::as_str)
                .filter(|p| !honoured.contains(p))
                .collect();
            skipped.push(Outcome::Unsupported {
                reason: format!(
                    "the CPU reference platform implements one variant of {}/{} ({label}); it has no {}",
                    c.app,
                    c.kernel,
                    ignored.join(", ")
                ),
                case: c,
            });
        }
        first.variant = label;
        cases.push(first);
    }
    Plan { cases, skipped }
}

/// `case` as the CPU reference platform's record of it holds it: with only
/// the parameters the implementation honours.
pub(super) fn recorded_case(app: &dyn App, case: &Case) -> Case {
    let honoured = cpu_honoured(app);
    let mut case = case.clone();
    case.params.retain(|p, _| honoured.contains(&p.as_str()));
    case
}

/// Runs one case on the CPU reference platform: runs it once, warms up and
/// times the samples with the host clock. The record's validation is
/// [`Validation::reference`] (the run is the reference: there is nothing
/// independent to compare it with), unless the implementation's own checks
/// of that run (conservation laws, a solve's residual, ...) failed; its
/// parameters are those the implementation honours ([`cpu_honoured`]).
pub fn run_case_cpu(app: &dyn App, case: &Case, opts: RunOptions) -> Outcome {
    let mut k = match app.prepare_cpu(case) {
        None => {
            return Outcome::Unsupported {
                case: case.clone(),
                reason: "no CPU implementation".into(),
            };
        }
        Some(Err(error)) => {
            return Outcome::Failed {
                case: case.clone(),
                error,
            };
        }
        Some(Ok(k)) => k,
    };
    k.run();
    let own = k.validate();
    let validation = if own.passed {
        Validation::reference("the CPU f64 reference")
    } else {
        own
    };
    for _ in 0..opts.warmup {
        k.run();
    }
    let samples: Vec<f64> = (0..opts.samples.max(1))
        .map(|_| {
            let t0 = Instant::now();
            k.run();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    let mut record = ResultRecord::new(
        recorded_case(app, case),
        cpu_platform(),
        TimingMethod::CpuClock,
        samples,
        k.model(),
        validation,
        BTreeMap::new(),
    );
    record.timer_resolution_s = Some(crate::gpu::clock::host_tick_s());
    Outcome::Done(Box::new(record))
}
