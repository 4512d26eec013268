//! Efficiency tables: per device, app, kernel, precision and problem, the
//! best Skylight variant beside the best native baseline configuration,
//! with application efficiency (native time over Skylight's) and
//! architectural efficiency (against the device's measured roofline).
//!
//! Only records of the same device are ever compared (a device through two
//! APIs counts as two: lavapipe and llvmpipe, Vulkan's and GL's software
//! drivers, share a name), and a native figure
//! is compared with the same statistic of Skylight's samples (BabelStream
//! reports its best run, su3_bench the mean of its iterations). Records are
//! compared only with records timed alike: lone runs with lone runs,
//! back-to-back runs with back-to-back runs ([`back_to_back`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::Precision;
use crate::native::{self, Statistic};
use crate::record::ResultRecord;
use crate::registry;
use crate::roofline::rating::{self, rated_by_compute};
use crate::roofline::{MemoryLevel, Roofline};

/// One code's best run of a problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// Skylight's variant label, or the native code's configuration.
    pub variant: String,
    /// The code: `Skylight (vulkan)`, `UoB-HPC/BabelStream (CUDA)`,
    /// `baselines/comd (CUDA port)`.
    pub code: String,
    /// The compared statistic of its samples, seconds.
    pub time_s: f64,
    /// FLOPs over that time, GFLOP/s.
    pub gflops: f64,
    /// Bytes over that time, GB/s.
    pub gbps: f64,
    /// Its rate over the attainable rate of the device's measured roofline
    /// at its arithmetic intensity (bandwidth alone for kernels without
    /// FLOPs), from the record's own rate (the median for Skylight's runs),
    /// at the memory level its working set lives in.
    pub architectural: Option<f64>,
    /// That level.
    pub level: Option<MemoryLevel>,
    /// Why `architectural` passes 100%, when it does.
    pub note: Option<String>,
}

/// One problem on one device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Device name.
    pub device: String,
    /// The backend Skylight's runs of the row went through (`vulkan`,
    /// `gl`, ...; empty where only native code ran the device): a device
    /// through two APIs has rows of each, and native runs join both.
    pub backend: String,
    /// App.
    pub app: String,
    /// Kernel.
    pub kernel: String,
    /// Arithmetic.
    pub precision: Precision,
    /// The problem's parameters (`L=32`, ...), see [`crate::app::App::problem`].
    pub problem: String,
    /// Whether both entries' samples are means of back-to-back runs timed
    /// together ([`back_to_back`]) rather than lone runs: a problem can have
    /// a row of each, since the two are never compared with each other.
    pub back_to_back: bool,
    /// The statistic both times are.
    pub statistic: Statistic,
    /// Skylight's best variant.
    pub skylight: Option<Entry>,
    /// The native baseline's best configuration.
    pub native: Option<Entry>,
    /// Native time over Skylight's: above 1 when Skylight is faster.
    pub application: Option<f64>,
}

/// A device's name and the backend Skylight ran it through (see
/// [`Row::backend`]).
type Device = (String, String);

impl Row {
    /// The device as tables show it: its name, and the backend where
    /// there is one.
    pub fn device_label(&self) -> String {
        device_label(&(self.device.clone(), self.backend.clone()))
    }
}

/// Device and [`ProblemKey`]: the records of one key are compared with
/// each other.
type Key = (Device, ProblemKey);

/// App, kernel, precision, problem ([`problem_of`]) and [`back_to_back`]:
/// what makes two records the same measurement on any platform.
pub type ProblemKey = (String, String, String, String, bool);

/// `r`'s [`ProblemKey`].
pub fn problem_key(r: &ResultRecord) -> ProblemKey {
    (
        r.case.app.clone(),
        r.case.kernel.clone(),
        r.case.precision.to_string(),
        problem_of(r),
        back_to_back(r),
    )
}

/// The devices `r` counts for, given the Skylight backends each device
/// name ran on (`skylight`): a Skylight record its own; a native one
/// every backend of its device's name, or none where Skylight never ran
/// the device.
fn devices_of(r: &ResultRecord, skylight: &BTreeMap<&str, BTreeSet<&str>>) -> Vec<Device> {
    let name = &r.platform.name;
    if r.native.is_none() {
        return vec![(name.clone(), r.platform.backend.clone())];
    }
    match skylight.get(name.as_str()) {
        Some(backends) => backends
            .iter()
            .map(|b| (name.clone(), b.to_string()))
            .collect(),
        None => vec![(name.clone(), String::new())],
    }
}

/// The Skylight backends each device name of `records` ran on.
fn skylight_backends<'a>(records: &[&'a ResultRecord]) -> BTreeMap<&'a str, BTreeSet<&'a str>> {
    let mut out: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.native.is_none()) {
        out.entry(r.platform.name.as_str())
            .or_default()
            .insert(r.platform.backend.as_str());
    }
    out
}

/// `device` as tables show it: its name, and the backend where there is one.
fn device_label((name, backend): &Device) -> String {
    if backend.is_empty() {
        name.clone()
    } else {
        format!("{name} ({backend})")
    }
}

/// Builds the rows of every validated record; records of each device are
/// compared only with each other, and only with records timed alike
/// ([`back_to_back`]). Rows sort by device, app, kernel, precision and
/// problem, lone runs before back-to-back ones.
pub fn rows(records: &[ResultRecord]) -> Vec<Row> {
    let ok: Vec<&ResultRecord> = records.iter().filter(|r| r.validation.usable()).collect();
    let backends = skylight_backends(&ok);
    let mut groups: BTreeMap<Key, Vec<&ResultRecord>> = BTreeMap::new();
    for r in &ok {
        for device in devices_of(r, &backends) {
            groups.entry((device, problem_key(r))).or_default().push(r);
        }
    }
    let roofs = roofs(&ok);
    groups
        .into_iter()
        .map(
            |(((device, backend), (app, kernel, _, problem, back_to_back)), recs)| {
                let precision = recs[0].case.precision;
                let statistic = recs
                    .iter()
                    .find_map(|r| r.native.as_ref().map(|n| n.statistic))
                    .unwrap_or(Statistic::Median);
                let roof = roofs.get(&(device.clone(), backend.clone()));
                let best = |native: bool| {
                    recs.iter()
                        .filter(|r| r.native.is_some() == native)
                        .min_by(|a, b| statistic.of(&a.stats).total_cmp(&statistic.of(&b.stats)))
                        .map(|r| entry(r, statistic, roof))
                };
                let (skylight, native) = (best(false), best(true));
                let application = match (&skylight, &native) {
                    (Some(s), Some(n)) => Some(n.time_s / s.time_s),
                    _ => None,
                };
                Row {
                    device,
                    backend,
                    app,
                    kernel,
                    precision,
                    problem,
                    back_to_back,
                    statistic,
                    skylight,
                    native,
                    application,
                }
            },
        )
        .collect()
}

/// Each device's roofline from its Skylight records (native records define
/// no ceiling: the roofline is what portable code measured on the device,
/// through the API it went through).
fn roofs(records: &[&ResultRecord]) -> BTreeMap<Device, Roofline> {
    let mut by_device: BTreeMap<Device, Vec<ResultRecord>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.native.is_none()) {
        by_device
            .entry((r.platform.name.clone(), r.platform.backend.clone()))
            .or_default()
            .push((*r).clone());
    }
    by_device
        .into_iter()
        .filter_map(|(d, recs)| Roofline::from_records(&recs).map(|roof| (d, roof)))
        .collect()
}

/// Why rows of `records` lack an architectural efficiency: one line per
/// device whose validated Skylight records lack a ceiling of its
/// roofline, stream's bandwidth ceiling or the `peak` FMA ceiling of a
/// precision its FLOP-counting records use. Empty when nothing is missing.
pub fn roofline_gaps(records: &[ResultRecord]) -> Vec<String> {
    let ok: Vec<&ResultRecord> = records.iter().filter(|r| r.validation.usable()).collect();
    let roofs = roofs(&ok);
    let backends = skylight_backends(&ok);
    let mut used: BTreeMap<Device, BTreeSet<Precision>> = BTreeMap::new();
    for r in &ok {
        for device in devices_of(r, &backends) {
            let precisions = used.entry(device).or_default();
            if rated_by_compute(r) {
                precisions.insert(r.case.precision);
            }
        }
    }
    let mut gaps = Vec::new();
    for (device, precisions) in used {
        let Some(roof) = roofs.get(&device) else {
            gaps.push(format!(
                "{}: no architectural efficiency: these files hold no validated Skylight `stream` run of it (the roofline's bandwidth ceiling)",
                device_label(&device)
            ));
            continue;
        };
        let missing: Vec<String> = precisions
            .into_iter()
            .filter(|&p| roof.compute_peak(p).is_none())
            .map(|p| p.to_string())
            .collect();
        if !missing.is_empty() {
            gaps.push(format!(
                "{}: no architectural efficiency in {}: these files hold no validated Skylight `peak --kernel fma` run of it (the compute ceiling)",
                device_label(&device),
                missing.join(", ")
            ));
        }
    }
    gaps
}

/// Whether `r`'s samples are means of back-to-back runs timed together
/// rather than lone runs. A lone run's sample holds the GPU's start and
/// drain around the run (2-6 us on an H100) and a back-to-back one
/// spreads them over its runs, so the two are never compared. A native
/// record of a code that only times loops ([`native::NativeCode::times_loops`])
/// is back-to-back even where it says `runs_per_sample` 1, as records made
/// before native runs carried their count do.
pub fn back_to_back(r: &ResultRecord) -> bool {
    r.runs_per_sample > 1
        || r.native.as_ref().is_some_and(|n| {
            native::codes()
                .iter()
                .any(|c| c.times_loops && c.code == n.code)
        })
}

/// `name=value` of the record's problem parameters, in the app's order.
pub fn problem_of(r: &ResultRecord) -> String {
    let names = registry::find(&r.case.app)
        .map(|a| a.problem())
        .unwrap_or(&[]);
    names
        .iter()
        .filter_map(|k| r.case.params.get(*k).map(|v| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(" ")
}

fn entry(r: &ResultRecord, statistic: Statistic, roof: Option<&Roofline>) -> Entry {
    let t = statistic.of(&r.stats);
    let rate = |x: f64| if t > 0.0 { x / t / 1e9 } else { 0.0 };
    let (gflops, gbps) = (rate(r.model.flops), rate(r.model.bytes));
    // The roof's ceilings are medians, so this uses the record's own rates
    // (the median for Skylight's runs, the native code's figure for its).
    let rating = roof.and_then(|roof| rating::rate(roof, r));
    let code = match &r.native {
        Some(n) if n.port => format!("{} ({} port)", n.code, n.model),
        Some(n) => format!("{} ({})", n.code, n.model),
        None => format!("Skylight ({})", r.platform.backend),
    };
    Entry {
        variant: entry_variant(r),
        code,
        time_s: t,
        gflops,
        gbps,
        architectural: rating.as_ref().map(|x| x.fraction),
        level: rating.as_ref().map(|x| x.level),
        note: rating.and_then(|x| x.note),
    }
}

/// How a run's rate reads in a table, with its time: GB/s for stream and
/// kernels that count no FLOPs, else GFLOP/s.
pub(crate) fn rate_text(app: &str, gflops: f64, gbps: f64, time_s: f64) -> String {
    if app == "stream" || gflops == 0.0 {
        format!("{gbps:.1} GB/s ({:.3} ms)", time_s * 1e3)
    } else {
        format!("{gflops:.1} GFLOP/s ({:.3} ms)", time_s * 1e3)
    }
}

/// The rows as a Markdown table; `native_only` keeps the rows that have a
/// native baseline. The statistic column says when both times are of
/// back-to-back runs, since a problem may have a row of each kind.
pub fn markdown(rows: &[Row], native_only: bool) -> String {
    let mut s = String::from(
        "| device | app | kernel | prec | problem | native code (config) | native | Skylight best variant | Skylight | application eff. | architectural eff. Skylight / native | statistic |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows.iter().filter(|r| !native_only || r.native.is_some()) {
        let fig = |e: &Entry| rate_text(&r.app, e.gflops, e.gbps, e.time_s);
        let pct = |x: Option<f64>| x.map(|v| format!("{:.1}%", 100.0 * v)).unwrap_or_default();
        let arch = |e: &Entry| rating::shown(e.architectural, e.level, 1);
        let (ncode, nfig, narch) = match &r.native {
            Some(n) => (format!("{} ({})", n.code, n.variant), fig(n), arch(n)),
            None => (String::new(), String::new(), String::new()),
        };
        let (svar, sfig, sarch) = match &r.skylight {
            Some(e) => (e.variant.clone(), fig(e), arch(e)),
            None => (String::new(), String::new(), String::new()),
        };
        let statistic = if r.back_to_back {
            format!("{}, back-to-back runs", r.statistic.name())
        } else {
            r.statistic.name().to_string()
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |\n",
            r.device_label(),
            r.app,
            r.kernel,
            r.precision,
            r.problem,
            ncode,
            nfig,
            svar,
            sfig,
            pct(r.application),
            sarch,
            narch,
            statistic
        ));
    }
    if s.contains('†') {
        s.push_str(&format!("\n† {}\n", crate::portability::CAPPED));
    }
    s
}

/// `r`'s variant as an [`Entry`] names it. A sample over several
/// back-to-back runs says so: it leaves out the GPU's start and drain
/// around each run that a lone run's sample holds.
pub fn entry_variant(r: &ResultRecord) -> String {
    match r.runs_per_sample {
        1 => r.case.variant.clone(),
        n => format!("{} (mean of {n} runs a sample)", r.case.variant),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Case, Model};
    use crate::fixtures;

    fn record(
        app: &str,
        kernel: &str,
        variant: &str,
        l: &str,
        t: f64,
        native: bool,
    ) -> ResultRecord {
        let case = Case::new(app, kernel, variant, Precision::F32).param("L", l);
        let flops = if app == "stream" { 0.0 } else { 2e9 };
        let model = Model { flops, bytes: 1e9 };
        let backend = if native { "cuda" } else { "vulkan" };
        let mut r = fixtures::record(case, "GPU A", backend, model, vec![t, t]);
        if native {
            r.native = Some(fixtures::native_source("x/y", false, Statistic::Median));
        }
        r
    }

    #[test]
    fn pairs_the_best_of_each_code_per_problem() {
        let recs = vec![
            record("stream", "copy", "wg256", "0", 0.5, false),
            record("peak", "fma", "chains16", "0", 0.002, false),
            record("su3", "mat-mul", "site", "32", 0.004, false),
            record("su3", "mat-mul", "link", "32", 0.002, false),
            record("su3", "mat-mul", "cuda/threads128", "32", 0.003, true),
            record("su3", "mat-mul", "site", "8", 0.001, false),
        ];
        let rows = rows(&recs);
        let su3: Vec<&Row> = rows.iter().filter(|r| r.app == "su3").collect();
        assert_eq!(su3.len(), 2, "L=32 and L=8 are different problems");
        let big = su3.iter().find(|r| r.problem == "L=32").expect("L=32 row");
        assert_eq!(
            big.skylight.as_ref().map(|e| e.variant.as_str()),
            Some("link")
        );
        assert_eq!(big.application.map(|a| (a * 100.0).round()), Some(150.0));
        // 2 GB/s bandwidth roof at AI 2: 4 GFLOP/s attainable; link runs at 1000.
        let arch = big.skylight.as_ref().and_then(|e| e.architectural);
        assert!(arch.is_some_and(|a| a > 1.0), "{arch:?}");
        let table = markdown(&rows, true);
        assert_eq!(
            table.lines().filter(|l| l.starts_with('|')).count(),
            3,
            "{table}"
        );
        // Past its roof: marked, and the footnote says why.
        assert!(
            table.contains("%†") && table.contains(crate::portability::CAPPED),
            "{table}"
        );
    }

    /// lavapipe and llvmpipe (one name, Vulkan's and GL's) are two
    /// devices, each rated against its own roofline; a native run of the
    /// name is set beside both.
    #[test]
    fn one_device_through_two_backends_has_rows_of_each() {
        let mut recs = Vec::new();
        for (backend, t) in [("vulkan", 0.004), ("gl", 0.008)] {
            for mut r in [
                record("su3", "mat-mul", "site", "32", t, false),
                record("stream", "copy", "wg256", "0", 0.5, false),
                record("peak", "fma", "chains16", "0", 0.002, false),
            ] {
                r.platform.backend = backend.into();
                recs.push(r);
            }
        }
        recs.push(record(
            "su3",
            "mat-mul",
            "cuda/threads128",
            "32",
            0.002,
            true,
        ));
        let su3: Vec<Row> = rows(&recs).into_iter().filter(|r| r.app == "su3").collect();
        let labels: Vec<String> = su3.iter().map(Row::device_label).collect();
        assert_eq!(labels, ["GPU A (gl)", "GPU A (vulkan)"]);
        let application: Vec<Option<f64>> = su3
            .iter()
            .map(|r| r.application.map(|a| (a * 100.0).round()))
            .collect();
        assert_eq!(application, [Some(25.0), Some(50.0)]);
        // Each against its own roofline: the same ceilings, so GL's
        // twice-as-slow kernel rates half as high.
        let arch: Vec<f64> = su3
            .iter()
            .filter_map(|r| r.skylight.as_ref()?.architectural)
            .collect();
        assert_eq!(arch.len(), 2, "{su3:?}");
        assert!((arch[1] / arch[0] - 2.0).abs() < 1e-9, "{arch:?}");
        let table = markdown(&su3, true);
        assert!(table.contains("| GPU A (gl) |"), "{table}");
    }

    #[test]
    fn roofline_gaps_name_the_missing_ceiling() {
        let su3 = record("su3", "mat-mul", "site", "32", 0.004, false);
        let native = record("su3", "mat-mul", "cuda/threads128", "32", 0.003, true);
        let stream = record("stream", "copy", "wg256", "0", 0.5, false);
        let peak = record("peak", "fma", "chains16", "0", 0.002, false);
        let gaps = roofline_gaps(&[su3.clone(), native.clone()]);
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert!(
            gaps[0].starts_with("GPU A (vulkan): ") && gaps[0].contains("`stream`"),
            "{gaps:?}"
        );
        let gaps = roofline_gaps(&[su3.clone(), native.clone(), stream.clone()]);
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert!(
            gaps[0].contains("in f32") && gaps[0].contains("`peak"),
            "{gaps:?}"
        );
        let all = [su3, native, stream, peak];
        assert!(roofline_gaps(&all).is_empty());
        let rows = rows(&all);
        assert!(rows.iter().all(|r| {
            r.skylight
                .as_ref()
                .is_some_and(|e| e.architectural.is_some())
        }));
    }

    /// An su3 L=32 record of `variant` at `t` seconds a run, of `runs`
    /// back-to-back runs a sample; native, of `code`, when `code` is given.
    fn su3(variant: &str, t: f64, runs: u32, code: Option<&str>) -> ResultRecord {
        let mut r = record("su3", "mat-mul", variant, "32", t, code.is_some());
        r.runs_per_sample = runs;
        if let (Some(n), Some(code)) = (r.native.as_mut(), code) {
            n.code = code.into();
        }
        r
    }

    /// The (Skylight, native) variants of `row`.
    fn variants(row: &Row) -> (Option<&str>, Option<&str>) {
        fn v(e: &Option<Entry>) -> Option<&str> {
            e.as_ref().map(|e| e.variant.as_str())
        }
        (v(&row.skylight), v(&row.native))
    }

    #[test]
    fn lone_and_back_to_back_runs_are_compared_only_with_their_kind() {
        let mut recs = vec![
            su3("lone", 0.004, 1, None),
            su3("loop", 0.003, 20, None),
            su3("cuda/threads128", 0.002, 1, Some("x/y")),
        ];
        let got = rows(&recs);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(!got[0].back_to_back && got[1].back_to_back, "lone first");
        // The faster 20-run record is not set against the lone launch.
        assert_eq!(variants(&got[0]), (Some("lone"), Some("cuda/threads128")));
        assert_eq!(got[0].application.map(|a| (a * 100.0).round()), Some(50.0));
        let looped = Some("loop (mean of 20 runs a sample)");
        assert_eq!(variants(&got[1]), (looped, None));
        assert_eq!(got[1].application, None);
        recs.push(su3("cuda/loop", 0.0015, 20, Some("x/y")));
        let got = rows(&recs);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(variants(&got[0]), (Some("lone"), Some("cuda/threads128")));
        let native = Some("cuda/loop (mean of 20 runs a sample)");
        assert_eq!(variants(&got[1]), (looped, native));
        assert_eq!(got[1].application.map(|a| (a * 100.0).round()), Some(50.0));
        let table = markdown(&got, true);
        assert!(table.contains("| median |"), "{table}");
        assert!(table.contains("| median, back-to-back runs |"), "{table}");
    }

    #[test]
    fn an_old_su3_bench_record_is_back_to_back() {
        // Stored su3_bench records say one run a sample, though su3_bench
        // only times loops of launches.
        let old = su3("cuda/threads128", 0.002, 1, Some("isazi/su3_bench"));
        assert!(back_to_back(&old));
        assert!(!back_to_back(&su3(
            "cuda/threads128",
            0.002,
            1,
            Some("x/y")
        )));
        let got = rows(&[su3("site", 0.004, 100, None), old]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].back_to_back);
        let site = Some("site (mean of 100 runs a sample)");
        assert_eq!(variants(&got[0]), (site, Some("cuda/threads128")));
        assert_eq!(got[0].application.map(|a| (a * 100.0).round()), Some(50.0));
    }
}
