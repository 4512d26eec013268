//! BabelStream's `--csv` output: one row per kernel with the element count,
//! the element size and its min / max / average time over `num_times` runs
//! (the first run left out). BabelStream checks every array and the dot sum
//! after the runs and exits before printing any row when a check fails, so
//! a row is evidence that its check passed.

use std::collections::BTreeMap;

use super::{NativeRun, Reported, bad_line};
use crate::Precision;
use crate::app::Validation;
use crate::error::Result;

const HEADER: &str = "function,num_times,n_elements,sizeof,";

/// Reads every kernel row of a BabelStream `--csv` run (several runs may be
/// concatenated, each with its header).
pub fn parse(text: &str, origin: &str) -> Result<Vec<NativeRun>> {
    let mut runs = Vec::new();
    let mut in_table = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with(HEADER) {
            in_table = true;
            continue;
        }
        if !in_table || line.is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != 8 {
            // Anything after the table (a second run's banner) ends it.
            in_table = false;
            continue;
        }
        runs.push(row(&cells).map_err(|why| bad_line(origin, i + 1, why))?);
    }
    if runs.is_empty() {
        return Err(bad_line(origin, 0, "no BabelStream --csv table"));
    }
    Ok(runs)
}

fn row(c: &[&str]) -> std::result::Result<NativeRun, String> {
    let num = |k: usize| -> std::result::Result<f64, String> {
        c[k].parse::<f64>()
            .map_err(|_| format!("column {} is `{}`, not a number", k + 1, c[k]))
    };
    let kernel = c[0].to_ascii_lowercase();
    if !matches!(
        kernel.as_str(),
        "copy" | "mul" | "add" | "triad" | "dot" | "nstream"
    ) {
        return Err(format!("unknown BabelStream kernel `{}`", c[0]));
    }
    let precision = match c[3] {
        "4" => Precision::F32,
        "8" => Precision::F64,
        other => return Err(format!("element size {other} is neither 4 nor 8")),
    };
    let count = num(1)? as u64;
    let n = c[2]
        .parse::<u64>()
        .map_err(|_| format!("n_elements `{}` is not a count", c[2]))?;
    let eps = if precision == Precision::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let tolerance = if kernel == "dot" {
        1e7 * eps
    } else {
        100.0 * eps
    };
    Ok(NativeRun {
        app: "stream".into(),
        kernel,
        precision,
        matches: BTreeMap::from([("n".to_string(), n.to_string())]),
        config: "grid-stride".into(),
        times: Reported::Summary {
            min: Some(num(5)?),
            max: Some(num(6)?),
            mean: Some(num(7)?),
            count: count.saturating_sub(1),
        },
        // BabelStream times each launch alone, ended by a device sync.
        runs_per_sample: 1,
        model_kernel: None,
        own: None,
        check: Validation {
            reference: false,
            max_error: 0.0,
            tolerance,
            passed: true,
            detail: "BabelStream's own check passed (it exits before its table otherwise); it prints no error figure".into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "BabelStream\nVersion: 5.0\nImplementation: CUDA\n\
function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n\
Copy,100,33554432,4,2521432.1,0.000106,0.000112,0.000108\n\
Dot,100,33554432,4,2418000.5,0.000111,0.000120,0.000114\n";

    #[test]
    fn reads_each_kernel_row() {
        let runs = parse(OUT, "bs.csv").unwrap_or_default();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].kernel, "copy");
        assert_eq!(runs[0].precision, Precision::F32);
        assert_eq!(
            runs[0].matches.get("n").map(String::as_str),
            Some("33554432")
        );
        assert_eq!(
            runs[1].times,
            Reported::Summary {
                min: Some(0.000111),
                max: Some(0.000120),
                mean: Some(0.000114),
                count: 99
            }
        );
    }

    #[test]
    fn a_malformed_row_names_its_line() {
        let bad = OUT.replace("0.000106", "fast");
        let e = parse(&bad, "bs.csv").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("bs.csv:5"));
        assert!(parse("FAILED validation of a[0]\n", "bs.csv").is_err());
    }
}
