//! gpu-benches' cache sweeps: `gpu-cache` (every block re-reads one array
//! of the row's size, so it stays in each SM's L1) and `gpu-l2-cache`
//! (blocks read disjoint slices of a set too large for L1, the row's
//! second size). Each row is one working set with its best rate over its
//! repetitions; the time it prints is rounded to whole milliseconds, so
//! the rate is the figure: each record's one sample is the time its
//! nominal gigabyte takes at that rate. `baselines/cache/run.sh` puts a
//! `gpu-benches <program>` line before each program's output.

use std::collections::BTreeMap;

use super::{NativeRun, OwnModel, Reported, bad_line};
use crate::Precision;
use crate::app::{Model, Validation};
use crate::error::Result;

/// Bytes each record stands for: any amount moved at the printed rate.
const NOMINAL_BYTES: f64 = 1e9;

/// Reads every row of both programs' output.
pub fn parse(text: &str, origin: &str) -> Result<Vec<NativeRun>> {
    let mut program: Option<&str> = None;
    let mut runs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(p) = line.strip_prefix("gpu-benches ") {
            program = match p.trim() {
                p @ ("gpu-cache" | "gpu-l2-cache") => Some(p),
                other => {
                    return Err(bad_line(
                        origin,
                        i + 1,
                        format!("unknown program `{other}`"),
                    ));
                }
            };
            continue;
        }
        let cells: Vec<&str> = line.split_whitespace().collect();
        // Rows start with a size in kB; headers and banners do not.
        if cells.get(1) != Some(&"kB") || cells[0].parse::<f64>().is_err() {
            continue;
        }
        let Some(program) = program else {
            return Err(bad_line(
                origin,
                i + 1,
                "a row before any `gpu-benches <program>` line",
            ));
        };
        runs.push(row(program, &cells).map_err(|why| bad_line(origin, i + 1, why))?);
    }
    if runs.is_empty() {
        return Err(bad_line(origin, 0, "no gpu-benches rows"));
    }
    Ok(runs)
}

fn row(program: &str, c: &[&str]) -> std::result::Result<NativeRun, String> {
    let num = |k: usize| -> std::result::Result<f64, String> {
        c.get(k)
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| format!("column {} is not a number", k + 1))
    };
    // gpu-l2-cache prints the slice per block, then the whole set.
    let (kb, rate_at) = match program {
        "gpu-l2-cache" if c.get(3) == Some(&"kB") => (num(2)?, 6),
        "gpu-cache" => (num(0)?, 4),
        _ => return Err(format!("not a {program} row")),
    };
    let gbps = num(rate_at)?;
    if c.get(rate_at + 1) != Some(&"GB/s") || gbps.is_nan() || gbps <= 0.0 {
        return Err(format!(
            "no positive rate in GB/s in column {}",
            rate_at + 1
        ));
    }
    let working_set = kb * 1024.0;
    Ok(NativeRun {
        app: "cache".into(),
        kernel: "read".into(),
        precision: Precision::F32,
        matches: BTreeMap::from([("ws".to_string(), (working_set as u64).to_string())]),
        config: program.into(),
        times: Reported::Samples(vec![NOMINAL_BYTES / (gbps * 1e9)]),
        // Each launch is timed alone on the host, ended by a device sync.
        runs_per_sample: 1,
        model_kernel: None,
        own: Some(OwnModel {
            model: Model {
                flops: 0.0,
                bytes: NOMINAL_BYTES,
            },
            working_set,
        }),
        check: Validation {
            reference: false,
            max_error: 0.0,
            tolerance: 0.0,
            passed: true,
            detail: "gpu-benches checks nothing: its sums only keep the loads from being removed"
                .into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "gpu-benches gpu-cache\n     data set   exec time     spread        Eff. bw       DRAM read\n\
         16 kB         4ms       0.2%   25251.5 GB/s         0 GB/s          0 GB/s          0 GB/s          0 GB/s \n\
gpu-benches gpu-l2-cache\n     data set   exec time     spread       Eff. bw\n\
       512 kB      2048 kB         4ms       0.8%   11745.0 GB/s        0 GB/s      0 GB/s      0 GB/s      0 GB/s \n";

    #[test]
    fn reads_both_programs_rows() {
        let runs = parse(OUT, "gb.log").unwrap_or_default();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].config, "gpu-cache");
        assert_eq!(runs[0].own.as_ref().map(|o| o.working_set), Some(16384.0));
        assert_eq!(runs[1].config, "gpu-l2-cache");
        assert_eq!(
            runs[1].own.as_ref().map(|o| o.working_set),
            Some(2048.0 * 1024.0)
        );
        let Reported::Samples(t) = &runs[1].times else {
            panic!("samples expected");
        };
        assert!((1e9 / t[0] / 1e9 - 11745.0).abs() < 1e-6);
    }

    #[test]
    fn bad_rows_name_their_line() {
        let e = parse(&OUT.replace("25251.5", "fast"), "gb.log").err();
        assert!(e.is_some_and(|e| e.to_string().contains("gb.log:3")));
        assert!(parse("16 kB 4ms 0.1% 1.0 GB/s\n", "gb.log").is_err());
        assert!(parse("nothing\n", "gb.log").is_err());
    }
}
