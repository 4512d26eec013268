//! The line a port prints per timed kernel, so that ports need no parser of
//! their own:
//!
//! ```text
//! skylight-native app=comd kernel=force precision=f32 config=wg256 match.atoms=32000 samples_s=1.9e-3,2.0e-3 runs=20 max_error=3.1e-7 tolerance=1e-5 passed=1 detail="forces against the f64 CPU reference"
//! ```
//!
//! Fields are `key=value` separated by spaces; a value with spaces is in
//! double quotes (no escapes). `match.NAME=VALUE` adds to the run's
//! [`NativeRun::matches`]. `runs=R` (optional, an integer from 1; absent
//! means 1) says each sample is the mean of R back-to-back launches timed
//! together, [`NativeRun::runs_per_sample`]: such samples leave out the
//! GPU's start and drain around each launch, so they are compared only
//! with Skylight's samples of several runs. Other lines are ignored.
//! `model=KERNEL` (optional) names the Skylight kernel whose record gives
//! the run its model where that is not the line's own kernel
//! ([`NativeRun::model_kernel`]).

use std::collections::BTreeMap;

use super::{NativeRun, Reported, bad_line};
use crate::Precision;
use crate::app::Validation;
use crate::error::Result;

const TAG: &str = "skylight-native";

/// Reads every `skylight-native` line of `text`; an error names the line.
pub fn parse_lines(text: &str, origin: &str) -> Result<Vec<NativeRun>> {
    let mut runs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix(TAG) else {
            continue;
        };
        let bad = |why: String| bad_line(origin, i + 1, why);
        let fields = split_fields(rest).map_err(&bad)?;
        runs.push(run_of(&fields).map_err(bad)?);
    }
    if runs.is_empty() {
        return Err(bad_line(origin, 0, format!("no `{TAG}` line")));
    }
    Ok(runs)
}

/// The line [`parse_lines`] reads back as `run`.
pub fn format_line(run: &NativeRun) -> String {
    let mut s = format!(
        "{TAG} app={} kernel={} precision={} config={}",
        run.app, run.kernel, run.precision, run.config
    );
    for (k, v) in &run.matches {
        s.push_str(&format!(" match.{k}={v}"));
    }
    if let Reported::Samples(samples) = &run.times {
        let list: Vec<String> = samples.iter().map(|t| format!("{t:e}")).collect();
        s.push_str(&format!(" samples_s={}", list.join(",")));
    }
    // Lone launches leave the field out, so the lines of ports that time
    // them read as they always did.
    if run.runs_per_sample != 1 {
        s.push_str(&format!(" runs={}", run.runs_per_sample));
    }
    if let Some(k) = &run.model_kernel {
        s.push_str(&format!(" model={k}"));
    }
    let c = &run.check;
    s.push_str(&format!(
        " max_error={:e} tolerance={:e} passed={} detail=\"{}\"",
        c.max_error,
        c.tolerance,
        u8::from(c.passed),
        c.detail.replace('"', "'")
    ));
    s
}

fn split_fields(text: &str) -> std::result::Result<BTreeMap<String, String>, String> {
    let mut fields = BTreeMap::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or_else(|| format!("`{rest}` is not key=value"))?;
        let key = rest[..eq].to_string();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(format!("bad key `{key}`"));
        }
        let after = &rest[eq + 1..];
        let (value, tail) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted
                .find('"')
                .ok_or_else(|| format!("unclosed quote after {key}="))?;
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if fields.insert(key.clone(), value.to_string()).is_some() {
            return Err(format!("{key} given twice"));
        }
        rest = tail.trim_start();
    }
    Ok(fields)
}

fn run_of(f: &BTreeMap<String, String>) -> std::result::Result<NativeRun, String> {
    let get = |k: &str| f.get(k).ok_or_else(|| format!("no {k}="));
    let num = |k: &str| -> std::result::Result<f64, String> {
        get(k)?
            .parse::<f64>()
            .map_err(|_| format!("{k} is not a number"))
    };
    let precision: Precision = get("precision")?
        .parse()
        .map_err(|e| format!("precision: {e}"))?;
    let samples = get("samples_s")?
        .split(',')
        .map(|t| {
            t.parse::<f64>()
                .map_err(|_| format!("sample `{t}` is not a number"))
        })
        .collect::<std::result::Result<Vec<f64>, String>>()?;
    if samples.iter().any(|t| !(*t > 0.0 && t.is_finite())) {
        return Err("a sample is not a positive time".into());
    }
    let passed = match get("passed")?.as_str() {
        "1" => true,
        "0" => false,
        other => return Err(format!("passed is `{other}`, not 0 or 1")),
    };
    let runs_per_sample = match f.get("runs") {
        None => 1,
        Some(r) => r
            .parse::<u32>()
            .ok()
            .filter(|&r| r >= 1)
            .ok_or_else(|| format!("runs is `{r}`, not an integer from 1"))?,
    };
    let model_kernel = f.get("model").cloned();
    let matches = f
        .iter()
        .filter_map(|(k, v)| k.strip_prefix("match.").map(|k| (k.to_string(), v.clone())))
        .collect();
    Ok(NativeRun {
        app: get("app")?.clone(),
        kernel: get("kernel")?.clone(),
        precision,
        matches,
        config: get("config")?.clone(),
        times: Reported::Samples(samples),
        runs_per_sample,
        model_kernel,
        own: None,
        check: Validation {
            reference: false,
            max_error: num("max_error")?,
            tolerance: num("tolerance")?,
            passed,
            detail: get("detail")?.clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> NativeRun {
        NativeRun {
            app: "comd".into(),
            kernel: "force".into(),
            precision: Precision::F32,
            matches: [("atoms".to_string(), "32000".to_string())].into(),
            config: "wg256".into(),
            times: Reported::Samples(vec![1.5e-3, 1.25e-3]),
            runs_per_sample: 1,
            model_kernel: None,
            own: None,
            check: Validation {
                reference: false,
                max_error: 3e-7,
                tolerance: 1e-5,
                passed: true,
                detail: "forces against the f64 CPU reference".into(),
            },
        }
    }

    #[test]
    fn a_line_reads_back_as_written() {
        let text = format!("warming up\n{}\ndone\n", format_line(&run()));
        assert_eq!(parse_lines(&text, "out.txt").ok(), Some(vec![run()]));
    }

    #[test]
    fn a_bad_line_is_an_error_naming_it() {
        let line = format_line(&run()).replace("samples_s=1.5e-3", "samples_s=fast");
        let err = parse_lines(&format!("header\n{line}\n"), "out.txt").err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("out.txt:2"), "{text}");
        let unclosed = format_line(&run()).trim_end_matches('"').to_string();
        assert!(parse_lines(&unclosed, "x").is_err());
        assert!(parse_lines("nothing here\n", "x").is_err());
        let zero = format_line(&run()).replace("1.5e-3", "0");
        assert!(parse_lines(&zero, "x").is_err());
    }

    /// The optional fields are written only where they differ from their
    /// defaults (so lone launches' lines read as they always did), and
    /// read back as written.
    #[test]
    fn optional_fields_round_trip() {
        let plain = format_line(&run());
        assert!(
            !plain.contains("runs=") && !plain.contains("model="),
            "{plain}"
        );
        let both = NativeRun {
            runs_per_sample: 20,
            model_kernel: Some("dslash-fused".into()),
            own: None,
            ..run()
        };
        let line = format_line(&both);
        assert!(line.contains(" runs=20 model=dslash-fused "), "{line}");
        assert_eq!(parse_lines(&line, "x").ok(), Some(vec![both]));
    }

    #[test]
    fn runs_must_be_an_integer_from_one() {
        for bad in ["0", "x", "-1", "2.5"] {
            let line = format_line(&run()).replace(" max_error", &format!(" runs={bad} max_error"));
            let err = parse_lines(&format!("header\n{line}\n"), "out.txt").err();
            let text = err.map(|e| e.to_string()).unwrap_or_default();
            assert!(
                text.contains("out.txt:2") && text.contains("runs"),
                "{bad}: {text}"
            );
        }
    }
}
