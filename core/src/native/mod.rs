//! Native baselines: each app's public native code (or a labelled port of
//! the same algorithm where none builds with the CUDA toolkit), run on the
//! same device as Skylight in the same call, turned into result records.
//!
//! A recipe in `baselines/<app>/` builds and runs the native code; one parser
//! here per native code reads its output into [`NativeRun`]s, and
//! [`to_records`] gives them the FLOP/byte model of the Skylight record that
//! solves the same problem on the same device (so the roofline places both),
//! with `platform.backend` naming the native programming model.

mod babelstream;
mod gpp;
mod gpu_benches;
mod line;
mod ludwig;
mod su3_bench;
mod testsnap;

use std::collections::BTreeMap;

use crate::Precision;
use crate::app::{Case, Model, Validation};
use crate::error::{Error, Result};
use crate::record::{ResultRecord, now_iso8601};
use crate::timing::{Stats, TimingMethod};

pub use crate::record::{NativeSource, Statistic};
pub use line::{format_line, parse_lines};

/// The times a native code reports for one kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Reported {
    /// Every timed sample, seconds.
    Samples(Vec<f64>),
    /// Only a summary, seconds (`min` and `max` where the code prints them).
    Summary {
        /// Fastest run, if printed.
        min: Option<f64>,
        /// Mean over `count` runs, if printed.
        mean: Option<f64>,
        /// Slowest run, if printed.
        max: Option<f64>,
        /// Runs summarised.
        count: u64,
    },
}

/// One kernel of a native code's output.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeRun {
    /// Skylight app name.
    pub app: String,
    /// Skylight kernel name.
    pub kernel: String,
    /// Arithmetic.
    pub precision: Precision,
    /// Case parameters that must match the Skylight record whose model this
    /// run takes: the app's problem parameters, plus any that change the
    /// model (su3's `layout`).
    pub matches: BTreeMap<String, String>,
    /// The native launch configuration, e.g. `threads128`.
    pub config: String,
    /// The times it reports.
    pub times: Reported,
    /// Each reported time is the mean of this many back-to-back launches
    /// timed together (no start or drain of the GPU between them); 1 for
    /// lone launches, each ended by a host sync. Skylight's efficiency
    /// tables compare only records timed alike.
    pub runs_per_sample: u32,
    /// The Skylight kernel whose record gives this run its model (work and
    /// traffic) where that is not `kernel`'s: the milc port reports its
    /// one-pass operator as `dslash` too, beside MILC's five-kernel split
    /// of Skylight's `dslash`, and moves the one pass's bytes, not the
    /// split's.
    pub model_kernel: Option<String>,
    /// The run's own model, for a code whose problems Skylight's cases do
    /// not share (gpu-benches' working sets are not powers of two): then
    /// no Skylight record of the same problem is needed, only one of the
    /// same app for the platform.
    pub own: Option<OwnModel>,
    /// The native code's own check (or the port's, against its CPU reference).
    pub check: Validation,
}

/// A native run's work, traffic and working set, where it says them itself.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnModel {
    /// FLOPs and bytes of one timed run.
    pub model: Model,
    /// Bytes of data it works on.
    pub working_set: f64,
}

impl NativeRun {
    /// The Skylight kernel whose record gives this run its model: its
    /// [`NativeRun::model_kernel`], else its own kernel.
    pub fn model_from(&self) -> &str {
        self.model_kernel.as_deref().unwrap_or(&self.kernel)
    }
}

/// A native code this module can read: its name on the command line, the
/// source defaults of its records and its output parser.
pub struct NativeCode {
    /// Name for `skylight native import --code`.
    pub name: &'static str,
    /// Programming model.
    pub model: &'static str,
    /// Repository or recipe.
    pub code: &'static str,
    /// Written for Skylight.
    pub port: bool,
    /// The statistic its figure is.
    pub statistic: Statistic,
    /// The code always times loops of back-to-back launches, so its records
    /// are back-to-back even where an old record says `runs_per_sample` 1
    /// (records made before [`NativeRun::runs_per_sample`] existed, which
    /// stored reference files still hold).
    pub times_loops: bool,
    /// Reads its output; `origin` names the file in errors.
    pub parse: fn(text: &str, origin: &str) -> Result<Vec<NativeRun>>,
}

/// Every native code with a parser.
pub fn codes() -> Vec<NativeCode> {
    vec![
        NativeCode {
            name: "gpu_benches",
            model: "CUDA",
            code: "te42kyfo/gpu-benches",
            port: false,
            statistic: Statistic::Min,
            times_loops: false,
            parse: gpu_benches::parse,
        },
        NativeCode {
            name: "babelstream",
            model: "CUDA",
            code: "UoB-HPC/BabelStream",
            port: false,
            statistic: Statistic::Min,
            times_loops: false,
            parse: babelstream::parse,
        },
        NativeCode {
            name: "su3_bench",
            model: "CUDA",
            code: "isazi/su3_bench",
            port: false,
            statistic: Statistic::Mean,
            times_loops: true,
            parse: su3_bench::parse,
        },
        NativeCode {
            name: "ludwig",
            model: "CUDA",
            code: "ludwig-cf/ludwig",
            port: false,
            statistic: Statistic::Mean,
            times_loops: false,
            parse: ludwig::parse,
        },
        NativeCode {
            name: "testsnap",
            model: "Kokkos-CUDA",
            code: "FitSNAP/TestSNAP",
            port: false,
            statistic: Statistic::Mean,
            times_loops: false,
            parse: testsnap::parse,
        },
        NativeCode {
            name: "gpp-kokkos",
            model: "Kokkos-CUDA",
            code: "rgayatri23/BerkeleyGW-Kernels-CPP",
            port: false,
            statistic: Statistic::Min,
            times_loops: false,
            parse: gpp::parse,
        },
        NativeCode {
            name: "port",
            model: "CUDA",
            code: "baselines",
            port: true,
            statistic: Statistic::Median,
            times_loops: false,
            parse: line::parse_lines,
        },
    ]
}

/// The native code called `name`.
pub fn find(name: &str) -> Result<NativeCode> {
    codes().into_iter().find(|c| c.name == name).ok_or_else(|| {
        let names: Vec<_> = codes().iter().map(|c| c.name).collect();
        Error::bad_param(
            "code",
            format!("unknown native code `{name}` (known: {})", names.join(", ")),
        )
    })
}

/// Turns `runs` into records: each takes its model and platform from the
/// Skylight record in `like` (a run of the same call) of the same app,
/// kernel and precision whose parameters agree with the run's `matches`;
/// the platform's backend becomes the source's model in lower case. A run
/// with no such record (a kernel this call did not run in Skylight) is
/// returned as an error beside the records of the others.
pub fn to_records(
    runs: &[NativeRun],
    source: &NativeSource,
    like: &[ResultRecord],
) -> (Vec<ResultRecord>, Vec<Error>) {
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for run in runs {
        match to_record(run, source, like) {
            Ok(r) => records.push(r),
            Err(e) => errors.push(e),
        }
    }
    (records, errors)
}

fn to_record(
    run: &NativeRun,
    source: &NativeSource,
    like: &[ResultRecord],
) -> Result<ResultRecord> {
    let twin = like
        .iter()
        .find(|r| {
            r.native.is_none()
                && r.case.app == run.app
                && (run.own.is_some()
                    || r.case.kernel == run.model_from()
                        && r.case.precision == run.precision
                        && run
                            .matches
                            .iter()
                            .all(|(k, v)| r.case.params.get(k) == Some(v)))
        })
        .ok_or_else(|| {
            Error::bad_param("like", format!(
                "no Skylight record of {}/{} {} with {} to take the model from: run that case in the same call and pass its file",
                run.app,
                run.model_from(),
                run.precision,
                describe(&run.matches)
            ))
        })?;
    let (samples_s, stats) = stats_of(&run.times)?;
    let figure = source.statistic.of(&stats);
    if !(figure > 0.0 && figure.is_finite()) {
        return Err(Error::Validation(format!(
            "{}/{}: the native code reports no positive {} time",
            run.app,
            run.kernel,
            source.statistic.name()
        )));
    }
    let mut case = Case::new(
        &run.app,
        &run.kernel,
        &format!("{}/{}", source.model.to_ascii_lowercase(), run.config),
        run.precision,
    );
    case.params = run.matches.clone();
    case.params
        .insert("native-config".into(), run.config.clone());
    let mut platform = twin.platform.clone();
    platform.backend = source.model.to_ascii_lowercase();
    platform.df64 = None;
    // The features and limits are what wgpu offered, not the native code.
    platform.offers = None;
    let (model, working_set) = match &run.own {
        Some(own) => (own.model, Some(own.working_set)),
        None => (twin.model, twin.working_set_bytes),
    };
    let intensity = if model.bytes > 0.0 {
        model.flops / model.bytes
    } else {
        0.0
    };
    Ok(ResultRecord {
        case,
        platform,
        timing: TimingMethod::Native,
        runs_per_sample: run.runs_per_sample,
        timer_resolution_s: None,
        samples_s,
        gflops: model.flops / figure / 1e9,
        gbps: model.bytes / figure / 1e9,
        arithmetic_intensity: intensity,
        stats,
        model,
        validation: run.check.clone(),
        metrics: BTreeMap::new(),
        skylight_version: env!("CARGO_PKG_VERSION").to_string(),
        git_hash: option_env!("SKYLIGHT_GIT_HASH")
            .unwrap_or("unknown")
            .to_string(),
        date: now_iso8601(),
        native: Some(source.clone()),
        phases: None,
        scale: None,
        working_set_bytes: working_set,
        issued_bytes: None,
        tuning: crate::record::Tuning::Defaults,
    })
}

/// Samples and statistics of what the code reports; a summary fills the
/// statistics it lacks with the ones it has, and keeps no samples.
fn stats_of(times: &Reported) -> Result<(Vec<f64>, Stats)> {
    match times {
        Reported::Samples(s) if s.is_empty() => Err(Error::Validation(
            "the native code reports no samples".into(),
        )),
        Reported::Samples(s) => Ok((s.clone(), Stats::of(s))),
        Reported::Summary { min, mean, max, .. } => {
            let known = mean
                .or(*min)
                .or(*max)
                .ok_or_else(|| Error::Validation("the native code reports no time".into()))?;
            let mean = mean.unwrap_or(known);
            Ok((
                Vec::new(),
                Stats {
                    min: min.unwrap_or(mean),
                    median: mean,
                    max: max.unwrap_or(mean),
                    mean,
                    stddev: 0.0,
                },
            ))
        }
    }
}

fn describe(m: &BTreeMap<String, String>) -> String {
    if m.is_empty() {
        return "any parameters".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A parse error naming the file and line.
fn bad_line(origin: &str, line: usize, reason: impl Into<String>) -> Error {
    Error::BadFile {
        path: format!("{origin}:{line}"),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skylight's record of comd/force f32 on 32000 atoms, the native
    /// record's twin.
    fn twin() -> ResultRecord {
        let case = Case::new("comd", "force", "wg256", Precision::F32).param("atoms", 32000);
        let model = Model {
            flops: 2e9,
            bytes: 1e9,
        };
        crate::fixtures::record(case, "GPU A", "vulkan", model, vec![1e-3])
    }

    /// The ports' source, as `skylight native --code port` makes it.
    fn port_source() -> NativeSource {
        let port = find("port").expect("the port code");
        crate::fixtures::native_source(port.code, port.port, port.statistic)
    }

    /// A port's line for the twin's case, with `extra` fields before `max_error`.
    fn port_line(extra: &str) -> String {
        format!(
            "skylight-native app=comd kernel=force precision=f32 config=wg256 \
             match.atoms=32000 samples_s=1e-3{extra} max_error=0 tolerance=1e-5 passed=1 detail=d"
        )
    }

    #[test]
    fn a_record_keeps_the_runs_each_sample_spans() {
        let source = port_source();
        for (runs, field) in [(1, ""), (20, " runs=20")] {
            let text = port_line(field);
            let parsed = parse_lines(&text, "x").expect("parses");
            let (records, errors) = to_records(&parsed, &source, &[twin()]);
            assert!(errors.is_empty(), "{errors:?}");
            let got: Vec<_> = records.iter().map(|r| r.runs_per_sample).collect();
            assert_eq!(got, [runs], "{text}");
            assert_eq!(crate::efficiency::back_to_back(&records[0]), runs > 1);
        }
    }

    /// A run with a model kernel keeps its own kernel and takes that
    /// kernel's record's model; a model kernel the call did not run is an
    /// error naming it.
    #[test]
    fn a_model_kernel_gives_the_model() {
        let source = port_source();
        let mut fused = twin();
        fused.case.kernel = "fused".into();
        fused.model.bytes = 3e8;
        let line = port_line(" model=fused");
        let parsed = parse_lines(&line, "x").expect("parses");
        let (records, errors) = to_records(&parsed, &source, &[twin(), fused]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(records[0].case.kernel, "force");
        assert_eq!(records[0].model.bytes, 3e8);
        let (records, errors) = to_records(&parsed, &source, &[twin()]);
        assert!(records.is_empty());
        assert!(errors[0].to_string().contains("comd/fused"), "{errors:?}");
    }
}
