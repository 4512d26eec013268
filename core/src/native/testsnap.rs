//! TestSNAP's output (FitSNAP/TestSNAP, Kokkos branches), one run per
//! invocation, each opened by its `Kokkos::ExecutionSpace = ...` line. A run
//! times its force kernels over `nsteps` force calls (Kokkos timers around
//! fenced kernels: no host work, no copies) and prints the mean `step time`
//! and the `grind time` (ms per atom-step); the step time is one sample of
//! Skylight's `force` kernel (one force call). Its check is the RMS |F|
//! deviation of its forces from the reference forces compiled in with the
//! problem (`baselines/snap` writes Skylight's CPU f64 forces there), held
//! to Skylight's f64 force tolerance. Runs of the same problem (atoms, 2J)
//! are one [`NativeRun`] with a sample each.

use std::collections::BTreeMap;

use super::{NativeRun, Reported, bad_line};
use crate::Precision;
use crate::app::Validation;
use crate::error::Result;

const MARK: &str = "Kokkos::ExecutionSpace =";

/// Skylight's f64 tolerance on the RMS |F| deviation, eV/A (`apps::snap`).
const FORCE_TOL: f64 = 1e-9;

#[derive(Default)]
struct Partial {
    start: usize,
    natoms: Option<u64>,
    nsteps: Option<u64>,
    twojmax: Option<u64>,
    step_s: Option<f64>,
    grind_ms: Option<f64>,
    rms: Option<f64>,
}

/// One finished run.
struct Run {
    natoms: u64,
    twojmax: u64,
    step_s: f64,
    grind_ms: f64,
    rms: f64,
}

/// Reads every run in `text`, grouped by problem.
pub fn parse(text: &str, origin: &str) -> Result<Vec<NativeRun>> {
    let mut done = Vec::new();
    let mut cur: Option<Partial> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with(MARK) {
            if let Some(p) = cur.take() {
                done.push(finish(p, origin)?);
            }
            cur = Some(Partial {
                start: i + 1,
                ..Partial::default()
            });
            continue;
        }
        let Some(run) = cur.as_mut() else { continue };
        let bad = |what: &str| bad_line(origin, i + 1, format!("{what} is not a number"));
        // `name = value [unit]`: the value is the first word after `=`.
        let value = |prefix: &str| {
            line.strip_prefix(prefix)
                .and_then(|v| v.trim_start().strip_prefix('='))
                .and_then(|v| v.split_whitespace().next())
        };
        if let Some(v) = value("natoms") {
            run.natoms = Some(v.parse().map_err(|_| bad("natoms"))?);
        } else if let Some(v) = value("nsteps") {
            run.nsteps = Some(v.parse().map_err(|_| bad("nsteps"))?);
        } else if let Some(v) = value("twojmax") {
            run.twojmax = Some(v.parse().map_err(|_| bad("twojmax"))?);
        } else if let Some(v) = value("step time") {
            run.step_s = Some(v.parse().map_err(|_| bad("the step time"))?);
        } else if let Some(v) = value("grind time") {
            run.grind_ms = Some(v.parse().map_err(|_| bad("the grind time"))?);
        } else if let Some(v) = line.strip_prefix("RMS |Fj| deviation") {
            let v = v.split_whitespace().next().unwrap_or("");
            run.rms = Some(v.parse().map_err(|_| bad("the RMS |Fj| deviation"))?);
        }
    }
    if let Some(p) = cur {
        done.push(finish(p, origin)?);
    }
    if done.is_empty() {
        return Err(bad_line(origin, 0, format!("no `{MARK}` line")));
    }
    Ok(group(&done))
}

fn finish(p: Partial, origin: &str) -> Result<Run> {
    let at = |why: String| bad_line(origin, p.start, why);
    let missing = |what: &str| at(format!("the run starting here prints no {what}"));
    let run = Run {
        natoms: p.natoms.ok_or_else(|| missing("natoms"))?,
        twojmax: p.twojmax.ok_or_else(|| missing("twojmax"))?,
        step_s: p.step_s.ok_or_else(|| missing("step time"))?,
        grind_ms: p.grind_ms.ok_or_else(|| missing("grind time"))?,
        rms: p.rms.ok_or_else(|| missing("RMS |Fj| deviation"))?,
    };
    if p.nsteps.ok_or_else(|| missing("nsteps"))? == 0 || run.natoms == 0 {
        return Err(at("the run has no steps or no atoms".into()));
    }
    if !(run.step_s > 0.0 && run.step_s.is_finite()) {
        return Err(at(format!(
            "step time {} is not a positive time",
            run.step_s
        )));
    }
    // The grind time is the step time per atom in ms; both are printed to
    // 6 digits, so they agree to well within 1e-4 unless the output is mixed up.
    let from_grind = run.grind_ms * run.natoms as f64 / 1e3;
    if ((from_grind - run.step_s) / run.step_s).abs() > 1e-4 {
        return Err(at(format!(
            "grind time {} ms/atom-step x {} atoms is not the step time {} s",
            run.grind_ms, run.natoms, run.step_s
        )));
    }
    Ok(run)
}

/// One [`NativeRun`] per (atoms, 2J), in order of first appearance.
fn group(done: &[Run]) -> Vec<NativeRun> {
    let mut keys: Vec<(u64, u64)> = Vec::new();
    for r in done {
        if !keys.contains(&(r.natoms, r.twojmax)) {
            keys.push((r.natoms, r.twojmax));
        }
    }
    keys.into_iter()
        .map(|(natoms, twojmax)| {
            let runs: Vec<&Run> = done
                .iter()
                .filter(|r| (r.natoms, r.twojmax) == (natoms, twojmax))
                .collect();
            let worst = runs.iter().map(|r| r.rms).fold(0.0, f64::max);
            // A NaN deviation fails: `max` would drop it.
            let finite = runs.iter().all(|r| r.rms.is_finite());
            let grind = runs.iter().map(|r| r.grind_ms).fold(f64::INFINITY, f64::min);
            NativeRun {
                app: "snap".into(),
                kernel: "force".into(),
                precision: Precision::F64,
                matches: BTreeMap::from([
                    ("atoms".to_string(), natoms.to_string()),
                    ("twojmax".to_string(), twojmax.to_string()),
                ]),
                config: "default".into(),
                times: Reported::Samples(runs.iter().map(|r| r.step_s).collect()),
                // Each force call's kernels are fenced: lone launches.
                runs_per_sample: 1,
                model_kernel: None,
                own: None,
                check: Validation {
                    reference: false,
                    max_error: if finite { worst } else { f64::MAX },
                    tolerance: FORCE_TOL,
                    passed: finite && worst <= FORCE_TOL,
                    detail: format!(
                        "TestSNAP's RMS |Fj| deviation from its reference forces, eV/A (worst of {} runs); best grind time {grind} ms/atom-step",
                        runs.len()
                    ),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two runs of the OpenMP build (the CUDA build prints the same lines,
    /// with `N6Kokkos4CudaE`), on baselines/snap's 2000-atom 2J = 8 problem,
    /// then a 2J = 14 run.
    const OUT: &str = "\
Kokkos::OpenMP::initialize WARNING: You are likely oversubscribing your CPU cores.
Kokkos::ExecutionSpace = N6Kokkos6OpenMPE
-----------------------
Summary of TestSNAP run
-----------------------
natoms = 2000 
nghostatoms = 0 
nsteps = 1 
nneighs = 26 
twojmax = 8 
computation time including copies = 3.83485 [sec]
duration = 3.83414 [sec]
step time = 3.83414 [sec/step]
grind time = 1.91707 [msec/atom-step]
RMS |Fj| deviation 6.5247e-14 [eV/A]

 Individual routine timings
compute_ck = 0.000000
compute_ui = 1.814204
compute_yi = 0.876705
compute_duarray = 0.751727
compute_deidrj = 0.391506
Kokkos::ExecutionSpace = N6Kokkos6OpenMPE
-----------------------
Summary of TestSNAP run
-----------------------
natoms = 2000 
nghostatoms = 0 
nsteps = 1 
nneighs = 26 
twojmax = 8 
computation time including copies = 6.16374 [sec]
duration = 6.16285 [sec]
step time = 6.16285 [sec/step]
grind time = 3.08142 [msec/atom-step]
RMS |Fj| deviation 6.53337e-14 [eV/A]

 Individual routine timings
compute_ck = 0.000000
compute_ui = 4.214873
compute_yi = 0.833421
compute_duarray = 0.802294
compute_deidrj = 0.312261
Kokkos::ExecutionSpace = N6Kokkos6OpenMPE
-----------------------
Summary of TestSNAP run
-----------------------
natoms = 2000 
nghostatoms = 0 
nsteps = 1 
nneighs = 26 
twojmax = 14 
computation time including copies = 31.5151 [sec]
duration = 31.5145 [sec]
step time = 31.5145 [sec/step]
grind time = 15.7572 [msec/atom-step]
RMS |Fj| deviation 4.98045e-13 [eV/A]

 Individual routine timings
compute_ck = 0.000000
compute_ui = 11.864647
compute_yi = 16.161747
compute_duarray = 2.556018
compute_deidrj = 0.932053
";

    #[test]
    fn groups_runs_by_problem() -> Result<()> {
        let runs = parse(OUT, "snap.log")?;
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].matches["twojmax"], "8");
        assert_eq!(runs[0].matches["atoms"], "2000");
        assert_eq!(runs[0].times, Reported::Samples(vec![3.83414, 6.16285]));
        assert!(runs[0].check.passed);
        assert_eq!(runs[0].check.max_error, 6.53337e-14);
        assert_eq!(runs[1].matches["twojmax"], "14");
        assert_eq!(runs[1].times, Reported::Samples(vec![31.5145]));
        assert!(runs[1].check.detail.contains("15.7572 ms/atom-step"));
        Ok(())
    }

    #[test]
    fn a_deviation_over_the_tolerance_fails() -> Result<()> {
        let off = OUT.replace("4.98045e-13", "2.2e-3");
        let runs = parse(&off, "snap.log")?;
        assert!(runs[0].check.passed);
        assert!(!runs[1].check.passed);
        let nan = OUT.replace("4.98045e-13", "nan");
        assert!(!parse(&nan, "snap.log")?[1].check.passed);
        Ok(())
    }

    #[test]
    fn a_run_without_its_check_is_an_error() {
        let cut = OUT.replace("RMS |Fj| deviation 6.53337e-14 [eV/A]\n", "");
        let e = parse(&cut, "snap.log").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("snap.log:23: "));
    }

    #[test]
    fn an_inconsistent_grind_time_is_an_error() {
        let off = OUT.replace("grind time = 1.91707", "grind time = 1.7");
        let e = parse(&off, "snap.log").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("snap.log:2: "));
        assert!(parse("no run here\n", "snap.log").is_err());
    }
}
