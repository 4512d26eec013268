//! Result records and result files (one versioned JSON schema for every front end).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::app::{Case, Model, Status, Validation};
use crate::error::{Error, Result};
use crate::gpu::PlatformInfo;
use crate::roofline::Roofline;
use crate::timing::{Phases, Stats, TimingMethod};

mod partial;

/// Version of the result-file schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Whether a file's `schema_version` (`None`: it has none) is one this build
/// reads.
fn check_version(version: Option<u64>, origin: &str) -> Result<()> {
    match version {
        Some(n) if n == u64::from(SCHEMA_VERSION) => Ok(()),
        Some(n) => Err(Error::BadFile {
            path: origin.to_string(),
            reason: format!("schema version {n}, this build reads {SCHEMA_VERSION}"),
        }),
        None => Err(Error::NotResultFile(origin.to_string())),
    }
}

/// One timed, validated kernel run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// What ran.
    #[serde(flatten)]
    pub case: Case,
    /// Where it ran.
    pub platform: PlatformInfo,
    /// How the samples were timed.
    pub timing: TimingMethod,
    /// Back-to-back runs each sample spans (a sample is their mean); 1 in
    /// older files.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub runs_per_sample: u32,
    /// The resolution of the timer that took the samples, seconds: the
    /// GPU timestamp quantum, or what the host clock resolves around a run
    /// (see [`crate::gpu::clock`]); a sample spans at least 50 of it where
    /// the runner could make it. `None` in older files and native records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_resolution_s: Option<f64>,
    /// Every timed sample, seconds.
    pub samples_s: Vec<f64>,
    /// Statistics of the samples.
    pub stats: Stats,
    /// The analytic model of one run.
    pub model: Model,
    /// FLOPs over the median time, in GFLOP/s.
    pub gflops: f64,
    /// Bytes over the median time, in GB/s (10^9 bytes).
    pub gbps: f64,
    /// FLOPs per byte.
    pub arithmetic_intensity: f64,
    /// Check against the CPU reference.
    pub validation: Validation,
    /// App-specific figures.
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
    /// Skylight version that produced the record.
    pub skylight_version: String,
    /// Git commit of that build.
    pub git_hash: String,
    /// UTC date and time, ISO 8601.
    pub date: String,
    /// The native code that produced the record, for baseline records
    /// (`None` for Skylight's own runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<NativeSource>,
    /// Where the case's wall time went (Skylight's GPU runs; `None` for
    /// native records and older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
    /// How the case was split over ranks and where its time went, for
    /// scale-out runs (`None` for a single device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<crate::scale::ScaleOut>,
    /// Bytes of data the run works on, where the kernel says
    /// ([`crate::app::Kernel::working_set`]); else the model's bytes of
    /// one run stand for it ([`ResultRecord::working_set`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_set_bytes: Option<f64>,
    /// Bytes the run's loads and stores request, where the kernel says
    /// ([`crate::app::Kernel::issued_bytes`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_bytes: Option<f64>,
    /// Whether the configuration came from a tuning cache ([`crate::tune`]);
    /// `defaults` in older files.
    #[serde(default)]
    pub tuning: Tuning,
}

/// Where a record's configuration (layout, workgroup size, ...: the
/// parameters `skylight tune` searches) came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tuning {
    /// The request's: the app's defaults and any parameter the run set.
    #[default]
    Defaults,
    /// A tuning cache's best for the adapter and problem: the label of its
    /// entry (`milc/cg f32 L=4 T=8`).
    Tuned(String),
}

impl ResultRecord {
    /// Builds a record, deriving rates from the median sample.
    pub fn new(
        case: Case,
        platform: PlatformInfo,
        timing: TimingMethod,
        samples_s: Vec<f64>,
        model: Model,
        validation: Validation,
        metrics: BTreeMap<String, f64>,
    ) -> ResultRecord {
        let stats = Stats::of(&samples_s);
        let t = stats.median;
        let rate = |x: f64| if t > 0.0 { x / t / 1e9 } else { 0.0 };
        ResultRecord {
            case,
            platform,
            timing,
            runs_per_sample: 1,
            timer_resolution_s: None,
            gflops: rate(model.flops),
            gbps: rate(model.bytes),
            arithmetic_intensity: if model.bytes > 0.0 {
                model.flops / model.bytes
            } else {
                0.0
            },
            samples_s,
            stats,
            model,
            validation,
            metrics,
            skylight_version: env!("CARGO_PKG_VERSION").to_string(),
            git_hash: option_env!("SKYLIGHT_GIT_HASH")
                .unwrap_or("unknown")
                .to_string(),
            date: now_iso8601(),
            native: None,
            phases: None,
            scale: None,
            working_set_bytes: None,
            issued_bytes: None,
            tuning: Tuning::Defaults,
        }
    }

    /// Bytes of data the run works on: the kernel's own figure, else the
    /// bytes one run moves (each datum once, for most kernels).
    pub fn working_set(&self) -> f64 {
        self.working_set_bytes.unwrap_or(self.model.bytes)
    }
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Where a baseline record came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NativeSource {
    /// Programming model, e.g. `CUDA` or `Kokkos-CUDA`.
    pub model: String,
    /// The code: a public repository (`UoB-HPC/BabelStream`) or, for a port,
    /// the recipe that holds it (`baselines/comd`).
    pub code: String,
    /// Commit of the code that was built.
    pub commit: String,
    /// `true` when the code is a port written for Skylight, not the app's
    /// own public native code.
    pub port: bool,
    /// Compiler and flags, e.g. `nvcc 13.0 -O3 -arch=sm_90`.
    pub build: String,
    /// Which statistic of the record's samples is the native code's figure:
    /// `median`, `mean` or `min` (BabelStream reports its best of N, su3_bench
    /// the mean of its iterations). Comparisons use the same statistic of
    /// Skylight's samples.
    pub statistic: Statistic,
}

/// A summary statistic of timed samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Statistic {
    /// The median sample.
    Median,
    /// The mean of the samples.
    Mean,
    /// The fastest sample.
    Min,
}

impl Statistic {
    /// That statistic of `stats`.
    pub fn of(self, stats: &Stats) -> f64 {
        match self {
            Statistic::Median => stats.median,
            Statistic::Mean => stats.mean,
            Statistic::Min => stats.min,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Statistic::Median => "median",
            Statistic::Mean => "mean",
            Statistic::Min => "min",
        }
    }
}

/// The contents of a result file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultFile {
    /// [`SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// Every record of the run.
    pub records: Vec<ResultRecord>,
    /// The roofline built from the records, when the run measured one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roofline: Option<Roofline>,
}

impl ResultFile {
    /// A file of the current schema.
    pub fn new(records: Vec<ResultRecord>, roofline: Option<Roofline>) -> ResultFile {
        ResultFile {
            schema_version: SCHEMA_VERSION,
            records,
            roofline,
        }
    }

    /// Pretty JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Parses a result file; `origin` names it in errors. Rejects other schema versions.
    pub fn from_json(text: &str, origin: &str) -> Result<ResultFile> {
        let bad = |reason: String| Error::BadFile {
            path: origin.to_string(),
            reason,
        };
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        check_version(v.get("schema_version").and_then(|s| s.as_u64()), origin)?;
        let mut file: ResultFile = serde_json::from_value(v).map_err(|e| bad(e.to_string()))?;
        file.mark_cpu_references();
        Ok(file)
    }

    /// Parses a result file like [`ResultFile::from_json`], or, from a file
    /// cut short mid-write, every record before the cut; then the warning
    /// (which names `origin`) says so. A cut before the records, or any
    /// other fault, is an error.
    pub fn from_json_partial(text: &str, origin: &str) -> Result<(ResultFile, Option<String>)> {
        match ResultFile::from_json(text, origin) {
            Err(Error::BadFile { .. }) if partial::ends_early(text) => {
                let mut file = partial::salvage(text, origin)?;
                file.mark_cpu_references();
                let warning = format!(
                    "{origin} is cut short (a write that did not finish): read its {} whole record(s) before the cut",
                    file.records.len()
                );
                Ok((file, Some(warning)))
            }
            read => read.map(|file| (file, None)),
        }
    }

    /// Files written before validations could say `reference` record the CPU
    /// reference platform's runs as passed: they compared the reference
    /// with itself. Such records are the reference.
    fn mark_cpu_references(&mut self) {
        for r in &mut self.records {
            if r.platform.backend == "cpu" && r.native.is_none() && r.validation.passed {
                r.validation = Validation::reference("the CPU f64 reference (an older file)");
            }
        }
    }

    /// CSV with one row per record.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "app,kernel,variant,precision,platform,backend,timing,median_s,min_s,max_s,gflops,gbps,ai,validated,max_error,tolerance\n",
        );
        for r in &self.records {
            s.push_str(&format!(
                "{},{},{},{},\"{}\",{},{},{:e},{:e},{:e},{:.3},{:.3},{:.4},{},{:e},{:e}\n",
                r.case.app,
                r.case.kernel,
                r.case.variant,
                r.case.precision,
                r.platform.name.replace('"', "'"),
                r.platform.backend,
                r.timing.name(),
                r.stats.median,
                r.stats.min,
                r.stats.max,
                r.gflops,
                r.gbps,
                r.arithmetic_intensity,
                match r.validation.status() {
                    Status::Passed => "true",
                    Status::Failed => "false",
                    Status::Reference => "reference",
                },
                r.validation.max_error,
                r.validation.tolerance
            ));
        }
        s
    }

    /// Reads a result file from disk.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load(path: &std::path::Path) -> Result<ResultFile> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::BadFile {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        ResultFile::from_json(&text, &path.display().to_string())
    }

    /// Reads a result file from disk as [`ResultFile::from_json_partial`]
    /// does: a file cut short gives its whole records and a warning.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_partial(path: &std::path::Path) -> Result<(ResultFile, Option<String>)> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::BadFile {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        ResultFile::from_json_partial(&text, &path.display().to_string())
    }
}

/// Writes `contents` to `path` atomically: a temporary file beside it, then a rename.
#[cfg(not(target_arch = "wasm32"))]
pub fn write_atomic(path: &std::path::Path, contents: &str) -> Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("results");
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents.as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    // The rename is on disk only once the folder is (POSIX); elsewhere a
    // folder cannot be opened to sync.
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    Ok(())
}

/// Current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_iso8601() -> String {
    let secs = web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn rejects_malformed_and_foreign_files() {
        assert!(ResultFile::from_json("{", "x").is_err());
        assert!(ResultFile::from_json("{\"records\": []}", "x").is_err());
        assert!(ResultFile::from_json("{\"schema_version\": 99, \"records\": []}", "x").is_err());
        assert!(
            ResultFile::from_json("{\"schema_version\": 1, \"records\": [{\"app\": 3}]}", "x")
                .is_err()
        );
        let ok = ResultFile::new(vec![], None).to_json();
        assert!(ResultFile::from_json(&ok, "x").is_ok());
    }
}
