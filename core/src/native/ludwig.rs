//! Ludwig's standard output (ludwig-cf/ludwig) for the plain single-fluid
//! D3Q19 BGK run of `baselines/lbm`, one run per `Welcome to` banner.
//!
//! Ludwig ends a run with its timer table: per section the shortest and
//! longest call and the total (printed to the millisecond) and the mean per
//! call (to the microsecond), host-timed around kernels it synchronises.
//! `Collision (krnl)` and `Propagtn (krnl)` become `collide` and
//! `propagate`; `step` is the `Time step loop` mean less the `Diagnostics /
//! output` mean (the statistics steps copy the field to the host), so it is
//! collision, halo swap and propagation, as Ludwig needs them for a step.
//! Ludwig computes in double precision only.
//!
//! Ludwig checks nothing against a reference, so the parser checks what it
//! prints at each statistics step: the mean density (mass), the total
//! momentum against the body force's `N V F` after `N` steps on `V` sites,
//! and, for its shear-wave start, the decay rate of the velocity extremes
//! against `nu k^2` with Skylight's 2%, each to the digits Ludwig prints.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use super::{NativeRun, Reported, bad_line};
use crate::Precision;
use crate::app::Validation;
use crate::error::Result;

const BANNER: &str = "Welcome to";

/// Skylight's bound on a shear wave's relative decay-rate error (`apps::lbm`).
const DECAY_TOLERANCE: f64 = 0.02;

/// Ludwig prints the mean density with 11 decimals.
const DENSITY_RESOLUTION: f64 = 1e-11;

/// Ludwig prints momenta with 8 significant digits (`%14.7e`).
const MOMENTUM_DIGITS: f64 = 1e-7;

/// Shortest `tmin`/`tmax` kept: Ludwig prints them to the millisecond, so a
/// smaller figure would carry more than 0.5% of rounding.
const RESOLVED_S: f64 = 0.1;

/// Ludwig's statistics at one step (0: the initial conditions).
#[derive(Clone, Default)]
struct Snapshot {
    step: u64,
    density: Option<f64>,
    momentum: Option<[f64; 3]>,
    /// Smallest and largest u_x over the sites.
    ux: [Option<f64>; 2],
}

/// One row of the timer table.
struct Timer {
    min: f64,
    max: f64,
    mean: f64,
    calls: u64,
}

/// What one run prints, as far as it is read.
#[derive(Default)]
struct Log {
    start: usize,
    size: Option<[u64; 3]>,
    viscosity: Option<f64>,
    force: Option<[f64; 3]>,
    scheme: Option<String>,
    model: Option<String>,
    vvl: Option<u64>,
    threads: Option<u64>,
    thread_model: Option<String>,
    shear_wave: bool,
    snapshots: Vec<Snapshot>,
    pending: Snapshot,
    /// The statistics block being read: `Momentum`, `Velocity`, ...
    section: String,
    in_timers: bool,
    timers: BTreeMap<String, Timer>,
}

/// Reads every run in `text`.
pub fn parse(text: &str, origin: &str) -> Result<Vec<NativeRun>> {
    let mut logs = Vec::new();
    let mut cur: Option<Log> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with(BANNER) {
            logs.extend(cur.take());
            cur = Some(Log {
                start: i + 1,
                ..Log::default()
            });
            continue;
        }
        if let Some(log) = cur.as_mut() {
            log.read(line).map_err(|why| bad_line(origin, i + 1, why))?;
        }
    }
    logs.extend(cur);
    if logs.is_empty() {
        return Err(bad_line(origin, 0, "no `Welcome to: Ludwig` banner"));
    }
    let mut runs = Vec::new();
    for log in logs {
        runs.extend(
            log.finish()
                .map_err(|why| bad_line(origin, log.start, why))?,
        );
    }
    Ok(runs)
}

fn numbers<const N: usize>(text: &str, what: &str) -> std::result::Result<[f64; N], String> {
    let v: Vec<f64> = text
        .split_whitespace()
        .take(N)
        .map(str::parse)
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| format!("{what} `{text}` is not {N} numbers"))?;
    v.try_into()
        .map_err(|_| format!("{what} `{text}` is not {N} numbers"))
}

fn count(text: &str, what: &str) -> std::result::Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{what} `{text}` is not a count"))
}

impl Log {
    /// Takes in one trimmed line.
    fn read(&mut self, line: &str) -> std::result::Result<(), String> {
        if self.in_timers {
            if line.starts_with("Section:") {
                return Ok(());
            }
            match timer_row(line) {
                Some((name, row)) => {
                    self.timers.insert(name, row?);
                    return Ok(());
                }
                None => self.in_timers = false,
            }
        }
        let field = |prefix: &str| line.strip_prefix(prefix).map(str::trim);
        if let Some(v) = field("System size:") {
            let n: [f64; 3] = numbers(v, "the system size")?;
            self.size = Some(n.map(|x| x as u64));
        } else if let Some(v) = field("Shear viscosity") {
            self.viscosity = Some(numbers::<1>(v, "the viscosity")?[0]);
        } else if let Some(v) = field("External body force density") {
            self.force = Some(numbers(v, "the body force")?);
        } else if let Some(v) = field("Relaxation time scheme:") {
            self.scheme = Some(v.to_string());
        } else if let Some(v) = field("Model:").filter(|v| v.starts_with('d')) {
            self.model = Some(v.to_string());
        } else if let Some(v) = field("SIMD vector len:") {
            self.vvl = Some(count(v, "the SIMD vector length")?);
        } else if let Some(v) = field("Default threads per block:") {
            let n = v.split(';').next().unwrap_or(v);
            self.threads = Some(count(n, "the threads per block")?);
        } else if let Some(v) = field("Target thread model:") {
            self.thread_model = Some(v.trim_end_matches('.').to_string());
        } else if line == "Initial distribution: 2d shear wave" {
            self.shear_wave = true;
        } else if line == "Timer statistics" {
            self.in_timers = true;
        } else {
            self.read_statistics(line)?;
        }
        Ok(())
    }

    /// The statistics blocks: headers, bracketed rows, and the lines that
    /// close a block (the loop's start for step 0, `Completed cycle N`).
    fn read_statistics(&mut self, line: &str) -> std::result::Result<(), String> {
        if let Some((name, _)) = line.split_once(" - ") {
            self.section = name.to_string();
        } else if let Some(v) = line.strip_prefix("[rho]") {
            self.pending.density = Some(numbers::<2>(v, "the density")?[1]);
        } else if let Some((label, v)) = line.strip_prefix('[').and_then(|l| l.split_once(']')) {
            match (self.section.as_str(), label.trim()) {
                ("Momentum", "total") => {
                    self.pending.momentum = Some(numbers(v, "the momentum")?);
                }
                ("Velocity", "minimum") => self.pending.ux[0] = Some(numbers::<1>(v, "u_min")?[0]),
                ("Velocity", "maximum") => self.pending.ux[1] = Some(numbers::<1>(v, "u_max")?[0]),
                _ => {}
            }
        } else if line == "Starting time step loop." {
            self.close(0);
        } else if let Some(v) = line.strip_prefix("Completed cycle") {
            let step = count(v, "the cycle")?;
            self.close(step);
        }
        Ok(())
    }

    fn close(&mut self, step: u64) {
        let mut done = std::mem::take(&mut self.pending);
        if done.density.is_some() || done.momentum.is_some() {
            done.step = step;
            self.snapshots.push(done);
        }
    }

    /// The runs of this log, each with the log's check.
    fn finish(&self) -> std::result::Result<Vec<NativeRun>, String> {
        let size = self.size.ok_or("no `System size:` line")?;
        if size[1] != size[0] || size[2] != size[0] {
            return Err(format!("the box {size:?} is not cubic"));
        }
        let model = self.model.as_deref().unwrap_or("");
        if !model.starts_with("d3q19") {
            return Err(format!("the model is `{model}`, not d3q19"));
        }
        let scheme = self.scheme.as_deref().unwrap_or("");
        if scheme != "BGK" {
            return Err(format!("the relaxation scheme is `{scheme}`, not BGK"));
        }
        let threads = self.thread_model.as_deref().unwrap_or("none printed");
        if threads != "CUDA" {
            return Err(format!("the target thread model is {threads}, not CUDA"));
        }
        let layout = if model.ends_with('R') { "soa" } else { "aos" };
        let mut config = format!("{layout}/vvl{}", self.vvl.unwrap_or(1));
        if let Some(t) = self.threads {
            config.push_str(&format!("/tpb{t}"));
        }
        let check = self.check();
        let timer = |name: &str| {
            self.timers
                .get(name)
                .ok_or_else(|| format!("no `{name}` timer row"))
        };
        let step = {
            let (all, io) = (timer("Time step loop")?, timer("Diagnostics / output")?);
            if all.calls != io.calls {
                return Err("the step and diagnostics timers count different calls".into());
            }
            summary(all.mean - io.mean, None, None, all.calls)?
        };
        let kernels = [
            ("collide", timer_summary(timer("Collision (krnl)")?)?),
            ("propagate", timer_summary(timer("Propagtn (krnl)")?)?),
            ("step", step),
        ];
        Ok(kernels
            .into_iter()
            .map(|(kernel, times)| NativeRun {
                app: "lbm".into(),
                kernel: kernel.into(),
                precision: Precision::F64,
                // Ludwig's figures are per step; Skylight's record is per run of `steps`.
                matches: BTreeMap::from([
                    ("L".to_string(), size[0].to_string()),
                    ("steps".to_string(), "1".to_string()),
                ]),
                config: config.clone(),
                times,
                // Ludwig host-times each kernel call, synchronised.
                runs_per_sample: 1,
                model_kernel: None,
                own: None,
                check: check.clone(),
            })
            .collect())
    }

    /// Mass, momentum and (for a shear wave) decay, from the statistics.
    fn check(&self) -> Validation {
        let (Some(first), Some(last)) = (self.snapshots.first(), self.snapshots.last()) else {
            return Validation::fail("Ludwig printed no statistics".into());
        };
        let (Some(rho0), Some(rho1), Some(j0)) = (first.density, last.density, first.momentum)
        else {
            return Validation::fail("Ludwig's statistics lack the density or momentum".into());
        };
        if first.step != 0 || last.step == 0 {
            return Validation::fail(
                "no statistics after the initial conditions: set freq_statistics".into(),
            );
        }
        let [nx, ny, nz] = self.size.unwrap_or_default().map(|n| n as f64);
        let mass = nx * ny * nz * rho0;
        let mass_change = (rho1 - rho0).abs() / rho0;
        let mut v = Validation {
            reference: false,
            max_error: mass_change,
            tolerance: DENSITY_RESOLUTION / rho0,
            passed: mass_change <= DENSITY_RESOLUTION / rho0,
            detail: format!(
                "Ludwig's statistics at steps 0 to {}: mean density change {mass_change:.1e} (printed to 1e-11)",
                last.step
            ),
        };
        v = v.and(self.momentum_check(j0, nx * ny * nz, mass));
        if self.shear_wave {
            v = v.and(self.decay_check(ny, rho0));
        }
        v
    }

    /// Total momentum at each statistics step against `j0 + N V F`.
    fn momentum_check(&self, j0: [f64; 3], sites: f64, mass: f64) -> Validation {
        let force = self.force.unwrap_or_default();
        let (mut err, mut scale) = (0.0f64, 0.0f64);
        for s in &self.snapshots {
            let Some(j) = s.momentum else { continue };
            for d in 0..3 {
                let want = j0[d] + s.step as f64 * sites * force[d];
                err = err.max((j[d] - want).abs() / mass);
                scale = scale.max(j[d].abs()).max(j0[d].abs());
            }
        }
        let tolerance = (MOMENTUM_DIGITS * scale / mass).max(f64::EPSILON);
        Validation {
            reference: false,
            max_error: err,
            tolerance,
            passed: err <= tolerance,
            detail: format!(
                "momentum off j0 + N V F by {err:.1e} per unit mass (printed to {tolerance:.1e})"
            ),
        }
    }

    /// The shear wave's amplitude, half the spread of u_x (a uniform drift
    /// from the body force cancels), from the first statistics step after
    /// the start to the last, against `nu k^2`.
    fn decay_check(&self, ny: f64, rho0: f64) -> Validation {
        let amplitudes: Vec<(u64, f64)> = self
            .snapshots
            .iter()
            .filter_map(|s| match s.ux {
                [Some(lo), Some(hi)] if s.step > 0 => Some((s.step, (hi - lo) / 2.0)),
                _ => None,
            })
            .collect();
        let (Some(&(n0, a0)), Some(&(n1, a1))) = (amplitudes.first(), amplitudes.last()) else {
            return Validation::fail("the shear wave's decay needs the velocity extremes".into());
        };
        if n1 <= n0 {
            return Validation::fail(
                "the shear wave's decay needs two statistics steps after the start".into(),
            );
        }
        let nu = self.viscosity.unwrap_or(f64::NAN) / rho0;
        let k = 2.0 * PI / ny;
        let rate = -(a1 / a0).ln() / (n1 - n0) as f64;
        let want = nu * k * k;
        let err = (rate / want - 1.0).abs();
        Validation {
            reference: false,
            max_error: err,
            tolerance: DECAY_TOLERANCE,
            passed: err <= DECAY_TOLERANCE,
            detail: format!(
                "shear decay rate {rate:.4e} vs nu k^2 = {want:.4e} over steps {n0} to {n1}"
            ),
        }
    }
}

/// A timer row `NAME: tmin tmax total mean (N calls)`, or `None` when the
/// line is not one (the table has ended).
fn timer_row(line: &str) -> Option<(String, std::result::Result<Timer, String>)> {
    let (name, rest) = line.split_once(':')?;
    let t: Vec<&str> = rest.split_whitespace().collect();
    if t.len() != 6 || !matches!(t[5], "call)" | "calls)") {
        return None;
    }
    let name = name.trim().to_string();
    let row = (|| {
        let [min, max, _total, mean] = numbers::<4>(&t[..4].join(" "), "the timer row")?;
        let calls = count(t[4].trim_start_matches('('), "the call count")?;
        Ok(Timer {
            min,
            max,
            mean,
            calls,
        })
    })();
    Some((name, row))
}

fn timer_summary(t: &Timer) -> std::result::Result<Reported, String> {
    let resolved = |v: f64| (v >= RESOLVED_S).then_some(v);
    summary(t.mean, resolved(t.min), resolved(t.max), t.calls)
}

fn summary(
    mean: f64,
    min: Option<f64>,
    max: Option<f64>,
    count: u64,
) -> std::result::Result<Reported, String> {
    if !(mean > 0.0 && mean.is_finite()) || count == 0 {
        return Err(format!(
            "a timer's mean {mean} s over {count} calls is not a time"
        ));
    }
    Ok(Reported::Summary {
        min,
        mean: Some(mean),
        max,
        count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real run of `baselines/lbm/input` on a 16^3 box for 200 steps
    /// (statistics every 100), by Ludwig built for the CPU here.
    const SAMPLE: &str = include_str!("../../../baselines/lbm/sample-cpu-L16.log");

    /// The sample as the CUDA build prints it: targetDP's CUDA target
    /// states its thread model and block size where the CPU one says None.
    fn cuda_sample() -> String {
        SAMPLE.replace(
            "Target thread model: None.",
            "Target thread model: CUDA.\nDefault threads per block: 128; max. threads per block: 1024.",
        )
    }

    fn mean(run: &NativeRun) -> f64 {
        match run.times {
            Reported::Summary { mean: Some(m), .. } => m,
            ref other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_the_kernels_and_checks_conservation_and_decay() {
        let runs = parse(&cuda_sample(), "ludwig.log").unwrap_or_default();
        let kernels: Vec<&str> = runs.iter().map(|r| r.kernel.as_str()).collect();
        assert_eq!(kernels, ["collide", "propagate", "step"]);
        let collide = &runs[0];
        assert_eq!(collide.precision, Precision::F64);
        assert_eq!(collide.config, "soa/vvl1/tpb128");
        assert_eq!(collide.matches.get("L").map(String::as_str), Some("16"));
        assert_eq!(collide.matches.get("steps").map(String::as_str), Some("1"));
        assert_eq!(
            collide.times,
            Reported::Summary {
                min: None,
                mean: Some(0.002877),
                max: None,
                count: 200
            }
        );
        assert!((mean(&runs[2]) - (0.004005 - 0.000032)).abs() < 1e-12);
        let check = &collide.check;
        assert!(check.passed, "{}", check.detail);
        assert!(check.detail.contains("shear decay"), "{}", check.detail);
    }

    #[test]
    fn a_cpu_build_is_refused() {
        let e = parse(SAMPLE, "ludwig.log").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("ludwig.log:1"));
    }

    #[test]
    fn broken_conservation_or_decay_fails_the_check() {
        let cases = [
            (
                "8.1920000e+00 -4.0960000e+00",
                "8.1930000e+00 -4.0960000e+00",
            ),
            (
                "[rho]        4096.00  1.00000000000  6.6",
                "[rho]        4096.00  1.00000000002  6.6",
            ),
            ("[maximum ]  3.7700734e-03", "[maximum ]  4.7700734e-03"),
        ];
        for (from, to) in cases {
            let text = cuda_sample().replacen(from, to, 1);
            assert_ne!(text, cuda_sample(), "{from}");
            let runs = parse(&text, "ludwig.log").unwrap_or_default();
            assert!(!runs.is_empty() && !runs[0].check.passed, "{from}");
        }
    }

    #[test]
    fn a_run_without_its_timer_or_statistics_is_caught() {
        let text = cuda_sample().replace("Propagtn (krnl)", "Propagation (k)");
        let e = parse(&text, "ludwig.log").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("Propagtn (krnl)"));
        let cut = cuda_sample().replace("Completed cycle", "Cycle");
        let runs = parse(&cut, "ludwig.log").unwrap_or_default();
        assert!(!runs.is_empty() && !runs[0].check.passed);
    }
}
