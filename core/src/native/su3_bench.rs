//! su3_bench's output, one run per invocation. It does not print its
//! precision, so the recipe precedes each run with a line
//! `su3_bench precision=f32|f64`; the run's lattice size, thread count,
//! iterations and total time are read from su3_bench's own lines. Its figure
//! is the mean time of the timed iterations (it times them back to back
//! with a host clock, one loop of `iterations` launches, so each run's
//! [`NativeRun::runs_per_sample`] is its iteration count). It checks every
//! element against a host product and prints `Verification Failed!` when
//! one differs.

use std::collections::BTreeMap;

use super::{NativeRun, Reported, bad_line};
use crate::Precision;
use crate::app::Validation;
use crate::error::{Error, Result};

const MARK: &str = "su3_bench precision=";

#[derive(Default)]
struct Partial {
    precision: Option<Precision>,
    start: usize,
    ldim: Option<u64>,
    iterations: Option<u64>,
    threads: Option<u64>,
    total_s: Option<f64>,
    failed: bool,
}

/// Reads every run in `text`.
pub fn parse(text: &str, origin: &str) -> Result<Vec<NativeRun>> {
    let mut runs = Vec::new();
    let mut cur: Option<Partial> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(p) = line.strip_prefix(MARK) {
            if let Some(done) = cur.take() {
                runs.push(finish(done, origin)?);
            }
            let precision = p
                .parse()
                .map_err(|e: Error| bad_line(origin, i + 1, e.to_string()))?;
            cur = Some(Partial {
                precision: Some(precision),
                start: i + 1,
                ..Partial::default()
            });
            continue;
        }
        let Some(run) = cur.as_mut() else { continue };
        let field = |prefix: &str| line.strip_prefix(prefix).map(str::trim);
        let bad = |what: &str| bad_line(origin, i + 1, format!("{what} is not a number"));
        if let Some(v) = field("Number of sites =") {
            let l = v.strip_suffix("^4").unwrap_or(v);
            run.ldim = Some(l.parse().map_err(|_| bad("the lattice size"))?);
        } else if let Some(v) = field("Executing") {
            let n = v.split_whitespace().next().unwrap_or("");
            run.iterations = Some(n.parse().map_err(|_| bad("the iteration count"))?);
        } else if let Some(v) = field("Threads per block set to") {
            run.threads = Some(v.parse().map_err(|_| bad("the thread count"))?);
        } else if let Some(v) = field("Total execution time =") {
            let t = v.strip_suffix("secs").unwrap_or(v).trim();
            run.total_s = Some(t.parse().map_err(|_| bad("the execution time"))?);
        } else if line.contains("Verification Failed") {
            run.failed = true;
        }
    }
    if let Some(done) = cur {
        runs.push(finish(done, origin)?);
    }
    if runs.is_empty() {
        return Err(bad_line(origin, 0, format!("no `{MARK}...` line")));
    }
    Ok(runs)
}

fn finish(p: Partial, origin: &str) -> Result<NativeRun> {
    let missing = |what: &str| {
        bad_line(
            origin,
            p.start,
            format!("the run starting here prints no {what} (run su3_bench with -v 1)"),
        )
    };
    let ldim = p.ldim.ok_or_else(|| missing("lattice size"))?;
    let iterations = p.iterations.ok_or_else(|| missing("iteration count"))?;
    let threads = p.threads.ok_or_else(|| missing("thread count"))?;
    let total = p.total_s.ok_or_else(|| missing("execution time"))?;
    if iterations == 0 {
        return Err(missing("timed iteration"));
    }
    Ok(NativeRun {
        app: "su3".into(),
        kernel: "mat-mul".into(),
        precision: p.precision.ok_or_else(|| missing("precision"))?,
        matches: BTreeMap::from([
            ("L".to_string(), ldim.to_string()),
            ("layout".to_string(), "aos-milc".to_string()),
        ]),
        config: format!("threads{threads}"),
        times: Reported::Summary {
            min: None,
            mean: Some(total / iterations as f64),
            max: None,
            count: iterations,
        },
        runs_per_sample: u32::try_from(iterations).unwrap_or(u32::MAX),
        model_kernel: None,
        own: None,
        check: Validation {
            reference: false,
            max_error: 0.0,
            tolerance: 1e-6,
            passed: !p.failed,
            detail: if p.failed {
                "su3_bench: Verification Failed!".into()
            } else {
                "su3_bench's own check of every element against a host product passed; it prints no error figure".into()
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "su3_bench precision=f32\nNumber of sites = 32^4\n\
Executing 100 iterations with 1 warmups\nThreads per block set to 128\n\
Total execution time = 0.022000 secs\nTotal GFLOP/s = 4118.0\n\
su3_bench precision=f64\nNumber of sites = 32^4\nExecuting 100 iterations with 1 warmups\n\
Threads per block set to 64\nTotal execution time = 0.040000 secs\nVerification Failed!\n";

    #[test]
    fn reads_each_run() {
        let runs = parse(OUT, "su3.txt").unwrap_or_default();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].precision, Precision::F32);
        assert_eq!(runs[0].config, "threads128");
        assert!(runs[0].check.passed);
        assert!(!runs[1].check.passed);
        // One loop of 100 launches timed together: a sample of 100 runs.
        assert_eq!(runs[0].runs_per_sample, 100);
        match runs[1].times {
            Reported::Summary { mean: Some(m), .. } => assert!((m - 4e-4).abs() < 1e-12),
            ref other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_run_without_its_time_is_an_error() {
        let cut = OUT.replace("Total execution time = 0.040000 secs\n", "");
        let e = parse(&cut, "su3.txt").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("su3.txt:7"));
    }
}
