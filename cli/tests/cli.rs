//! The `skylight` binary's contract: clear errors and exit codes for bad
//! input, a validated run and a chart for good input.

use std::process::Command;

mod common;
#[path = "common/process.rs"]
mod process;

use process::{run_to_json, scratch, skylight, stderr};

#[test]
fn unknown_app_is_exit_2_with_its_name() {
    let o = skylight(&["run", "fft"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown app `fft`"), "{}", stderr(&o));
}

#[test]
fn bad_parameters_are_exit_2_before_any_device_work() {
    for args in [
        &["run", "stream", "--size", "lots"][..],
        &["run", "stream", "--layout", "soa"][..],
        &["run", "stream", "--precision", "f16"][..],
        &["run", "su3", "--set", "mapping=diagonal"][..],
    ] {
        let o = skylight(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("error"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn malformed_result_files_are_exit_2_naming_the_file() {
    let dir = scratch("test");
    for (name, text) in [
        ("truncated.json", "{\"schema_version\": 1, \"records\": ["),
        ("foreign.json", "{\"hello\": 1}"),
        ("future.json", "{\"schema_version\": 99, \"records\": []}"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let o = skylight(&["roofline", "--from", path.to_str().expect("utf-8 path")]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(name), "{name}: {}", stderr(&o));
    }
    let o = skylight(&["roofline", "--from", "/nonexistent/results.json"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A small validated run on the real adapter writes a result file that the
/// roofline command then draws.
#[test]
fn small_run_writes_results_and_a_chart() {
    let (o, json) = run_to_json(
        "run",
        &[
            "run",
            "stream",
            "--size",
            "small",
            "--kernel",
            "triad,copy-buffer",
            "--samples",
            "3",
            "--quiet",
        ],
    );
    let svg = json.with_file_name("r.svg");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("stream/triad") && stdout.contains(" ok "),
        "{stdout}"
    );
    let o = plot_roofline(&json, &svg);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let chart = std::fs::read_to_string(&svg).expect("chart written");
    assert!(
        chart.contains("<svg") && chart.contains("DRAM"),
        "chart lacks content"
    );
}

/// `skylight roofline --from json --plot svg`.
fn plot_roofline(json: &std::path::Path, svg: &std::path::Path) -> std::process::Output {
    skylight(&[
        "roofline",
        "--from",
        json.to_str().expect("utf-8"),
        "--plot",
        svg.to_str().expect("utf-8"),
    ])
}

/// The roofline of a whole suite (the committed H200 levels set, hundreds
/// of records) is drawn to be read: its text is the ceilings' labels, the
/// legend (apps, precisions, L1), the axes and the caption, not one label
/// per record; and every ceiling the command prints is labelled.
#[test]
fn suite_roofline_plot_labels_ceilings_not_records() {
    let json = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../benchmarks/reference/nvidia-h200-levels/all.json");
    let svg = scratch("suite-plot").join("roofline.svg");
    let o = plot_roofline(&json, &svg);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let points: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("  point "))
        .collect();
    let apps: std::collections::BTreeSet<&str> = points
        .iter()
        .filter_map(|p| p.split_whitespace().next())
        .collect();
    // Each ceiling as the chart labels it: "DRAM: 4402.6 GB/s",
    // "f32 FMA: 65237.9 GFLOP/s".
    let mut labels = Vec::new();
    for l in out.lines() {
        let words: Vec<&str> = l.split_whitespace().collect();
        match words[..] {
            ["bandwidth", "ceiling", level, bw, "GB/s", ..] => {
                labels.push(format!("{level}: {bw} GB/s"));
            }
            ["compute", "ceiling", v, "GFLOP/s", "(FMA", "peak", p, ..] => {
                labels.push(format!("{} FMA: {v} GFLOP/s", p.trim_end_matches("),")));
            }
            _ => {}
        }
    }
    assert!(points.len() > 200 && labels.len() >= 5, "{out}");
    let chart = std::fs::read_to_string(&svg).expect("chart written");
    for label in &labels {
        assert!(chart.contains(label.as_str()), "no `{label}` on the chart");
    }
    // Caption and axis titles, ticks of two log axes (a decade each), the
    // legend: apps, three precisions and the L1 markers.
    let bound = 3 + 2 * 10 + labels.len() + apps.len() + 3 + 1;
    let texts = chart.matches("<text").count();
    assert!(texts <= bound, "{texts} texts for {} points", points.len());
}

/// `skylight roofline` measures device memory, the cache sweep, workgroup
/// memory and the FMA peak on the adapter, and states each level it finds
/// (or that the sweep found none) with the working sets it spans.
#[test]
fn roofline_measures_and_states_every_level() {
    let mut args = vec!["roofline", "--precision", "f32"];
    args.extend(common::FAST);
    let (o, json) = run_to_json("levels", &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for line in [
        "bandwidth ceiling DRAM",
        "bandwidth ceiling shared",
        "compute ceiling",
    ] {
        assert!(out.contains(line), "no `{line}` in:\n{out}");
    }
    let caches = out.lines().filter(|l| l.contains("(cache read L")).count();
    assert!(
        (caches > 0 && out.contains("working sets")) || out.contains("no cache level"),
        "levels not stated:\n{out}"
    );
    let file = std::fs::read_to_string(&json).expect("result file");
    assert!(
        file.contains("\"kernel\": \"shared\""),
        "no workgroup-memory record"
    );
    let o = skylight(&["counters"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("counters (VK_KHR_performance_query)")
            || out.contains("not offered by this driver"),
        "{out}"
    );
}

#[test]
fn isolated_cases_come_back_from_their_own_processes() {
    let (o, json) = run_to_json(
        "isolate",
        &[
            "run",
            "stream",
            "--size",
            "small",
            "--kernel",
            "triad,dot",
            "--precision",
            "f32,df64",
            "--samples",
            "2",
            "--quiet",
            "--isolate",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&json).expect("results written");
    let file: serde_json::Value = serde_json::from_str(&text).expect("json");
    let records = file["records"].as_array().expect("records");
    assert_eq!(records.len(), 4, "{text}");
    assert!(
        records
            .iter()
            .all(|r| r["validation"]["passed"] == serde_json::Value::Bool(true)),
        "{text}"
    );
    // A case the child cannot parse is an error of the child, reported.
    let o = skylight(&["case", "--case-json", "{not json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--case-json"), "{}", stderr(&o));
}

/// `--variant` selects su3's thread mapping as it does comd's and snap's,
/// and the records keep its name in result files, `mapping`.
#[test]
fn variant_selects_the_su3_mapping() {
    let (o, json) = run_to_json(
        "su3variant",
        &[
            "run",
            "su3",
            "--variant",
            "element",
            "--layout",
            "soa",
            "--wg",
            "128",
            "--precision",
            "f32",
            "--size",
            "4",
            "--samples",
            "2",
            "--quiet",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&json).expect("results written");
    let file: serde_json::Value = serde_json::from_str(&text).expect("json");
    let records = file["records"].as_array().expect("records");
    assert_eq!(records.len(), 1, "{text}");
    assert_eq!(records[0]["variant"], "element/soa/wg128", "{text}");
    assert_eq!(records[0]["params"]["mapping"], "element", "{text}");
}

fn testsnap(file: &str) -> String {
    format!("{}/../assets/testsnap/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// TestSNAP's 2J = 2 configuration through the GPU f64 force: the RMS
/// deviation line as the reference code prints it, in the result file too.
#[test]
fn snap_reference_file_prints_the_force_deviation() {
    let (o, json) = run_to_json(
        "snap",
        &[
            "run",
            "snap",
            "--refdata",
            &testsnap("2J2_W.json"),
            "--precision",
            "f64",
            "--kernel",
            "force",
            "--samples",
            "2",
            "--quiet",
        ],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", stderr(&o));
    let line = stdout
        .lines()
        .find(|l| l.contains("RMS |F| deviation: ") && l.ends_with(" eV/A"))
        .unwrap_or_else(|| panic!("no deviation line in {stdout}"));
    let value: f64 = line
        .split("deviation: ")
        .nth(1)
        .and_then(|v| v.trim_end_matches(" eV/A").parse().ok())
        .expect("a number");
    assert!(value < 1e-9, "{line}");
    let file = std::fs::read_to_string(&json).expect("result file");
    assert!(
        file.contains("rms_force_deviation") && file.contains("grind_ms_per_atom_step"),
        "{file}"
    );
}

#[test]
fn malformed_snap_reference_file_is_exit_2_naming_the_field() {
    let dir = scratch("snapbad");
    let text = std::fs::read_to_string(testsnap("2J2_W.json")).expect("shipped file");
    // Drop the last rij value: 47 of the 48 numbers.
    let start = text.find("\"rij\"").expect("rij field");
    let end = start + text[start..].find(']').expect("rij array end");
    let cut = text[..end].trim_end().rfind(',').expect("a comma");
    let broken = format!("{}{}", &text[..cut], &text[end..]);
    let path = dir.join("truncated_rij.json");
    std::fs::write(&path, broken).expect("write");
    let o = skylight(&[
        "run",
        "snap",
        "--refdata",
        path.to_str().expect("utf-8"),
        "--precision",
        "f64",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("truncated_rij.json") && err.contains("`rij` has 47 values, expected 48"),
        "{err}"
    );
}

#[test]
fn unwritable_outputs_fail_before_any_case_runs() {
    let started = std::time::Instant::now();
    for args in [
        &["run", "stream", "--json", "/no/such/folder/r.json"][..],
        &["run", "stream", "--csv", "/no/such/folder/r.csv"][..],
    ] {
        let o = skylight(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("cannot write") && err.matches("/no/such/folder").count() == 2,
            "{err}"
        );
    }
    // No adapter was opened: a run would take far longer on lavapipe.
    assert!(started.elapsed().as_secs() < 20);
}

#[test]
fn native_output_errors_name_the_file_and_line() {
    let dir = scratch("native");
    let like = dir.join("like.json");
    std::fs::write(&like, "{\"schema_version\": 1, \"records\": []}").expect("write");
    let log = dir.join("bs.csv");
    std::fs::write(
        &log,
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\nCopy,100,64,4,1.0,fast,1,1\n",
    )
    .expect("write");
    let like = like.to_str().expect("utf-8");
    let o = skylight(&[
        "native",
        "--code",
        "babelstream",
        "--like",
        like,
        log.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bs.csv:2"), "{}", stderr(&o));
    let o = skylight(&["native", "--code", "fortran", "--like", like, "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("babelstream"), "{}", stderr(&o));
}

/// `stats` prints each kernel's statistics where the Vulkan driver offers
/// them (NVIDIA's does); where it does not (lavapipe), it names the missing
/// extension and exits non-zero, never panicking.
#[test]
fn stats_prints_driver_figures_or_names_the_missing_extension() {
    let o = skylight(&[
        "stats",
        "gpp",
        "--size",
        "small",
        "--precision",
        "f32",
        "--set",
        "reduction=tree",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    if o.status.success() {
        assert!(out.contains("gpp/tree [main] f32"), "{out}");
        assert!(out.contains("gpp/tree [finish] f32"), "{out}");
        assert!(
            out.lines()
                .any(|l| l.starts_with("    ") && l.contains('=')),
            "{out}"
        );
    } else {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("VK_KHR_pipeline_executable_properties"),
            "{}",
            stderr(&o)
        );
    }
}

/// The committed lavapipe scale-out runs (strong and weak, 1 to 4 ranks).
fn lavapipe_scale_out() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../benchmarks/lavapipe-mpi-2026-11-23");
    [
        "strong-1", "strong-2", "strong-4", "weak-1", "weak-2", "weak-4",
    ]
    .iter()
    .map(|n| dir.join(format!("{n}.json")).display().to_string())
    .collect()
}

#[test]
fn scaling_prints_the_committed_runs_table_and_draws_it() {
    let svg = scratch("scaling").join("scaling.svg");
    let mut args: Vec<String> = vec!["scaling".into()];
    args.extend(lavapipe_scale_out());
    args.extend(["--plot".into(), svg.display().to_string()]);
    let o = skylight(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    // The table as it was printed before the curves moved into core, then
    // where each run goes (these files predate the finer phases, so
    // compute, pack and transfer are whole). The committed lavapipe runs have no single-GPU run beside them: no
    // speed-up, and a note saying what the efficiency is against.
    let expected = "\
scaling case                                         ranks          run vs 1 GPU     eff.  eff. MPI  exchange  comm.
strong  lbm/step soa/vvl1/wg128 f32 L=32                 1    16.017 ms        -        -      100%        0%    14%
strong  lbm/step soa/vvl1/wg128 f32 L=32                 2     6.293 ms        -        -      127%       25%    50%
strong  lbm/step soa/vvl1/wg128 f32 L=32                 4    19.433 ms        -        -       21%       37%    61%
weak    lbm/step soa/vvl1/wg128 f32 L=16                 1     3.192 ms        -        -      100%        1%    30%
weak    lbm/step soa/vvl1/wg128 f32 L=16                 2     3.239 ms        -        -       99%       11%    43%
weak    lbm/step soa/vvl1/wg128 f32 L=16                 4    11.040 ms        -        -       29%       52%    77%
note: no single-GPU run without MPI of lbm/step soa/vvl1/wg128 f32 L=32, lbm/step soa/vvl1/wg128 f32 L=16 among the files: \"eff. MPI\" is against the curve's fewest ranks; add a plain `skylight run` of the problem for the speed-up over one GPU
where a run goes (ms; \"hidden\" ran during the swap, counted in its phase):
strong  lbm/step soa/vvl1/wg128 f32 L=32                 1  compute 15.856, pack + unpack 1.571, transfer 0.631, exchange 0.053, hidden 0.000
strong  lbm/step soa/vvl1/wg128 f32 L=32                 2  compute 4.718, pack + unpack 1.204, transfer 0.377, exchange 1.560, hidden 0.000
strong  lbm/step soa/vvl1/wg128 f32 L=32                 4  compute 10.200, pack + unpack 3.254, transfer 1.491, exchange 7.132, hidden 0.000
weak    lbm/step soa/vvl1/wg128 f32 L=16                 1  compute 2.258, pack + unpack 0.579, transfer 0.352, exchange 0.031, hidden 0.000
weak    lbm/step soa/vvl1/wg128 f32 L=16                 2  compute 2.131, pack + unpack 0.632, transfer 0.395, exchange 0.361, hidden 0.000
weak    lbm/step soa/vvl1/wg128 f32 L=16                 4  compute 4.326, pack + unpack 1.645, transfer 1.060, exchange 5.791, hidden 0.000
";
    assert_eq!(String::from_utf8_lossy(&o.stdout), expected);
    let chart = std::fs::read_to_string(&svg).expect("the chart is written");
    assert!(chart.contains("strong scaling") && chart.contains("weak scaling"));
    // A log time axis; the legend names each curve by what tells it apart
    // and the rest once; no base among these files, so no base is keyed.
    for want in [
        "ms per run (log)",
        "strong L=32",
        "all: lbm/step soa/vvl1/wg128 f32",
    ] {
        assert!(chart.contains(want), "no {want}: {chart}");
    }
    assert!(!chart.contains("one GPU without MPI"), "{chart}");
}

/// `skylight list` shows every backend's adapters (CI has lavapipe through
/// Vulkan and llvmpipe through GL), each with the features and limits its
/// results record, and `--backend` keeps to one.
#[test]
fn list_shows_every_backend_and_backend_keeps_to_one() {
    let o = skylight(&["list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let all = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        all.contains("backend vulkan") && all.contains("backend gl"),
        "{all}"
    );
    for adapter in format!("\n{all}").split("\n[").skip(1) {
        for want in [
            "features: ",
            "max_storage_buffer_binding_size",
            "max_compute_workgroup_size_x",
            "device memory",
            "host memory available",
        ] {
            assert!(adapter.contains(want), "no {want}: {all}");
        }
    }
    // Lavapipe through Vulkan times with timestamps.
    assert!(all.contains("TIMESTAMP_QUERY"), "{all}");
    let o = skylight(&["list", "--backend", "gl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let gl = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        gl.contains("backend gl") && !gl.contains("backend vulkan"),
        "{gl}"
    );
}

/// A backend that is no backend, one this build lacks, or one beside
/// `--cpu` is exit 2 before any device work.
#[test]
fn bad_backends_are_exit_2_before_any_device_work() {
    for (args, says) in [
        (
            &["run", "stream", "--backend", "opengl"][..],
            "unknown backend",
        ),
        (
            &["run", "stream", "--backend", "metal"][..],
            "no metal backend",
        ),
        (&["list", "--backend", "dx12"][..], "no dx12 backend"),
        (&["run", "stream", "--backend", "gl", "--cpu"][..], "--cpu"),
    ] {
        let o = skylight(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let o = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(["run", "stream"])
        .env("SKYLIGHT_BACKEND", "webgpu")
        .output()
        .expect("the skylight binary runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no webgpu backend"), "{}", stderr(&o));
}

/// `--backend gl` runs on llvmpipe through GL, and the records say so,
/// with their timer's resolution.
#[test]
fn backend_gl_runs_and_records_it() {
    let mut args = vec!["run", "stream", "--backend", "gl", "--kernel", "triad"];
    args.extend(common::FAST);
    let (o, json) = run_to_json("gl", &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&json).expect("results written");
    let file: serde_json::Value = serde_json::from_str(&text).expect("json");
    let records = file["records"].as_array().expect("records");
    assert!(!records.is_empty(), "{text}");
    for r in records {
        assert_eq!(r["platform"]["backend"], "gl", "{text}");
        assert!(
            r["timer_resolution_s"].as_f64().is_some_and(|s| s > 0.0),
            "{text}"
        );
    }
}

/// `skylight compare` sets the same problems of two platforms side by side
/// with the second's time over the first's; one platform is exit 2.
#[test]
fn compare_sets_platforms_side_by_side() {
    let repo = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let lavapipe = format!("{repo}/benchmarks/reference/lavapipe");
    let browser = format!("{repo}/benchmarks/reference/browser");
    let o = skylight(&[
        "compare",
        &browser,
        &lavapipe,
        "--platforms",
        "(vulkan),(webgpu)",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    let head = table.lines().next().unwrap_or_default();
    assert!(
        head.contains("| time unnamed webgpu adapter (cpu) (webgpu) / llvmpipe"),
        "{head}"
    );
    assert!(table.contains("| su3 | mat-mul | f32 |"), "{table}");
    let o = skylight(&["compare", &lavapipe]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("two platforms"), "{}", stderr(&o));
}
