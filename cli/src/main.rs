//! `skylight`: the headless front end. Lists adapters, runs apps (validated and
//! timed), sweeps parameters and draws the empirical roofline.

mod cascade;
mod chart;
mod compare;
mod counters;
mod inputs;
mod isolate;
mod native;
mod output;
mod page;
mod plot;
mod pp;
mod report;
mod run;
#[cfg(feature = "mpi")]
mod scaleout;
mod scaling;
mod stats;
mod stop;
mod table;
mod timing_report;
mod tune;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use skylight_core::app::{App, Request};
use skylight_core::gpu::{Api, Gpu, Selector, adapters_on, list_adapters};
use skylight_core::roofline::Roofline;
use skylight_core::runner::RunOptions;
use skylight_core::{Error, Precision, registry};

use crate::output::Output;

#[derive(Parser)]
#[command(
    name = "skylight",
    version,
    about = "Cross-vendor GPU benchmark suite: WGSL mini-apps against an empirical roofline"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List adapters with their compute features and limits.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        backend: BackendArg,
    },
    /// List the registered apps and their parameters.
    Apps,
    /// Run an app (or `all`), validate every kernel and print the timings.
    Run(RunArgs),
    /// Run an app over comma lists of parameters and print the sweep table.
    Sweep(RunArgs),
    /// Search each app's tunable parameters (layouts, workgroup sizes, ...)
    /// for the fastest validated configuration on this adapter, within a
    /// time budget, into the tuning cache that `run` then uses.
    Tune(tune::TuneArgs),
    /// Measure the roofline (stream, the cache levels and peak) and place
    /// other results on it.
    Roofline {
        #[command(flatten)]
        common: CommonArgs,
        /// Write the chart here (.svg or .png): the report's roofline, one
        /// marker per app, kernel and precision at its best variant.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Also place the records of these result files (or folders of
        /// them) on the chart.
        #[arg(long = "with")]
        with: Vec<PathBuf>,
        /// Draw from an existing result file instead of measuring.
        #[arg(long)]
        from: Option<PathBuf>,
    },
    /// Read a native baseline's output (run on the same device in the same
    /// call) into result records beside Skylight's.
    Native(native::NativeArgs),
    /// Performance portability (Pennycook's PP) of each app over the
    /// platforms of result files, with a cascade plot.
    Pp(pp::PpArgs),
    /// One self-contained HTML page of result files: devices, rooflines,
    /// efficiency beside native codes, PP, scaling and validation.
    Report(page::ReportArgs),
    /// Strong and weak scaling of scale-out result files (`mpirun -np N
    /// skylight run ...`): a table, and a chart with --plot.
    Scaling(scaling::ScalingArgs),
    /// Print what the driver compiled each kernel of an app to (registers,
    /// instructions: Vulkan's pipeline executable statistics) for the cases
    /// the same flags would run.
    Stats(RunArgs),
    /// List the hardware counters the adapter's Vulkan driver offers
    /// (VK_KHR_performance_query), or say that it offers none.
    Counters {
        /// Adapter index or name substring (see `skylight list`).
        #[arg(long, env = "SKYLIGHT_ADAPTER", default_value = "auto")]
        adapter: String,
        #[command(flatten)]
        backend: BackendArg,
    },
    /// Print the efficiency table of result files: each problem's best
    /// Skylight variant beside its native baseline on the same device.
    Table(table::TableArgs),
    /// Print the same problems on several platforms side by side (one GPU
    /// through Vulkan and GL: what the API costs): each platform's best
    /// variant and its time over the first platform's.
    Compare(compare::CompareArgs),
    /// Runs one serialized case and prints its record as JSON (the child
    /// process of `--isolate`).
    #[command(hide = true)]
    Case {
        #[command(flatten)]
        common: CommonArgs,
        /// The case, as JSON.
        #[arg(long)]
        case_json: String,
    },
}

/// The graphics API an adapter is looked for on.
#[derive(Args, Clone)]
struct BackendArg {
    /// Graphics API: vulkan, gl, metal, dx12 or webgpu (the browser's, in
    /// the web build) [default: Vulkan, Metal or DX12, whichever this
    /// platform has; GL only when named].
    #[arg(long, env = "SKYLIGHT_BACKEND")]
    backend: Option<Api>,
}

impl BackendArg {
    /// The API asked for, after checking that this build has it.
    fn api(&self) -> skylight_core::Result<Option<Api>> {
        self.backend
            .map(|a| a.check_built().map(|()| a))
            .transpose()
    }
}

#[derive(Args, Clone)]
struct CommonArgs {
    /// Adapter index or name substring (see `skylight list`).
    #[arg(long, env = "SKYLIGHT_ADAPTER", default_value = "auto")]
    adapter: String,
    #[command(flatten)]
    backend: BackendArg,
    /// Run on the CPU reference platform (f64, rayon) instead of a GPU.
    #[arg(long, conflicts_with = "backend")]
    cpu: bool,
    /// Precisions, comma separated: f32, f64, df64 (default: all the adapter supports).
    #[arg(long, value_delimiter = ',')]
    precision: Vec<Precision>,
    /// Problem size (app-specific: a preset such as small/default or a number).
    #[arg(long)]
    size: Option<String>,
    /// Timed runs per kernel [default: 20, or fewer (at least 3) where 20
    /// would take longer than --budget-s].
    #[arg(long)]
    samples: Option<u32>,
    /// Seconds of timed runs per kernel that the default --samples aims for
    /// [default: 1 on a GPU, 0.25 on a CPU adapter or the CPU backend; none
    /// when --samples is given].
    #[arg(long)]
    budget_s: Option<f64>,
    /// Back-to-back runs each timed GPU sample spans; the sample is their
    /// mean [default: 1]. One run a sample also times the GPU's start and
    /// drain around it (2-6 us on an H100); more matches codes that time
    /// a loop of launches, as su3_bench does. (The CPU backend and scale-out
    /// runs time one run a sample.)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    runs_per_sample: Option<u32>,
    /// Untimed warm-up runs after validation (at least this many) [default:
    /// 2 on a GPU, 1 on a CPU adapter, where the validation run has already
    /// warmed the caches].
    #[arg(long)]
    warmup: Option<u32>,
    /// Warm up until the GPU has been busy this many seconds without a break
    /// (lets GPU clocks settle: NVIDIA's idle at a fifth of their boost and
    /// take up to a second of load; the GPU is kept busy between cases, so
    /// this is paid once per run) [default: 1 on a GPU, 0 on a CPU adapter
    /// or the CPU backend].
    #[arg(long)]
    warmup_s: Option<f64>,
    /// Write the result file (JSON) here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Print only the table (no progress bar).
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args, Clone)]
struct RunArgs {
    /// App name, or `all`.
    app: String,
    #[command(flatten)]
    common: CommonArgs,
    /// Variant(s) of the app (comma list sweeps).
    #[arg(long)]
    variant: Option<String>,
    /// Kernel(s) of the app.
    #[arg(long)]
    kernel: Option<String>,
    /// Data layout(s).
    #[arg(long)]
    layout: Option<String>,
    /// Workgroup size(s).
    #[arg(long)]
    wg: Option<String>,
    /// Virtual vector length(s) of the lattice apps (sites per invocation).
    #[arg(long)]
    vvl: Option<String>,
    /// Reference data file (apps with a `refdata` parameter, e.g. snap's TestSNAP JSON).
    #[arg(long)]
    refdata: Option<String>,
    /// Any other app parameter, as name=value (repeatable).
    #[arg(long = "set", value_parser = parse_kv)]
    set: Vec<(String, String)>,
    /// Resume a stopped run: leave out the cases this result file already
    /// holds and keep their records (written back to it unless --json
    /// names another file).
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Run every case in a fresh process (no case inherits another's device
    /// state, and a crash or device loss ends only its own case).
    #[arg(long)]
    isolate: bool,
    /// The tuning cache `run` takes each kernel's best configuration on
    /// this adapter from, where `tune` confirmed it faster than the
    /// defaults (see `skylight tune`) [default:
    /// skylight/tuning.json in the user's cache folder].
    #[arg(long, env = "SKYLIGHT_TUNING", value_name = "FILE")]
    tuning: Option<PathBuf>,
    /// Run the apps' default configurations, not the tuning cache's.
    #[arg(long)]
    untuned: bool,
    /// After the table, print where the wall time went: per app its cases,
    /// wall time and the median per-case overhead by phase (prepare,
    /// compile, validate, warm-up, timing).
    #[arg(long)]
    timing_report: bool,
    /// Under `mpirun`: strong (the lattice of --size split over the ranks)
    /// or weak (a lattice of --size per rank, stacked along z).
    #[cfg(feature = "mpi")]
    #[arg(long, default_value = "strong", value_parser = skylight_core::scale::Scaling::parse)]
    scaling: skylight_core::scale::Scaling,
    /// Under `mpirun`: swap the halos before updating any site, instead of
    /// updating each rank's interior while they travel (the default, where
    /// the kernel allows).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    no_overlap: bool,
    /// Under `mpirun`: split the lattice along its slowest axis (1) or
    /// over a grid of ranks along its two slowest axes (2: as square as
    /// the rank count and the extents allow).
    #[cfg(feature = "mpi")]
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=2))]
    axes: u32,
    /// Under `mpirun`: how the halos travel. shared: each GPU writes its
    /// planes into its neighbours' mailboxes in the node's shared memory
    /// and reads its own (Vulkan devices that import host memory, all
    /// ranks on one node; else MPI); mpi: read back and swapped by MPI;
    /// auto: each app's faster one (lbm mpi, milc shared).
    #[cfg(feature = "mpi")]
    #[arg(long, default_value = "auto", value_parser = skylight_core::scale::Halos::parse)]
    halos: skylight_core::scale::Halos,
}

/// Fails before any work when `path` cannot be written: its folder must
/// exist, and the file must be creatable there.
fn check_writable(path: &std::path::Path) -> Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !dir.is_dir() {
        bail!(
            "cannot write {}: no folder {}",
            path.display(),
            dir.display()
        );
    }
    if path.is_dir() {
        bail!("cannot write {}: it is a folder", path.display());
    }
    let probe = dir.join(format!(".skylight-probe-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .map_err(|e| anyhow::anyhow!("cannot write in {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

fn parse_kv(s: &str) -> std::result::Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .ok_or_else(|| format!("`{s}` is not name=value"))
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        #[cfg(feature = "mpi")]
        Err(e) if e.is::<scaleout::Reported>() => ExitCode::from(2),
        Err(e) if e.is::<stop::Stopped>() => ExitCode::from(stop::STOPPED_STATUS),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `Ok(false)` when a kernel failed validation or errored.
fn real_main() -> Result<bool> {
    let cli = Cli::parse();
    match cli.command {
        Command::List { json, backend } => {
            let adapters = match backend.api()? {
                None => pollster::block_on(list_adapters()),
                api => pollster::block_on(adapters_on(api))?,
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&adapters)?);
            } else {
                report::print_adapters(&adapters);
            }
            Ok(true)
        }
        Command::Apps => {
            report::print_apps(&registry::apps());
            Ok(true)
        }
        Command::Run(args) => run::run(&args, false),
        Command::Sweep(args) => run::run(&args, true),
        Command::Tune(args) => tune::run(&args),
        Command::Roofline {
            common,
            plot,
            with,
            from,
        } => roofline(&common, plot, &with, from),
        Command::Native(args) => native::run(&args),
        Command::Table(args) => table::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Pp(args) => pp::run(&args),
        Command::Report(args) => page::run(&args),
        Command::Scaling(args) => scaling::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Counters { adapter, backend } => counters::run(&adapter, backend.api()?),
        Command::Case { common, case_json } => {
            // The parent passes every option resolved.
            let opts = RunOptions {
                warmup: common.warmup.unwrap_or(2),
                warmup_s: common.warmup_s.unwrap_or(GPU_WARMUP_S),
                samples: common.samples.unwrap_or(20),
                budget_s: common.budget_s.unwrap_or(0.0),
                runs_per_sample: common.runs_per_sample.unwrap_or(1),
            };
            isolate::serve(&case_json, &common, opts)
        }
    }
}

/// Builds the request for `app` from the flags, passing only the parameters
/// the app declares (so `run all --wg 128` sets it where it means something).
/// The request `args` make of `app`; a sweep adds the app's characteristic
/// sweep for every parameter the user left unset.
fn request_for(app: &dyn App, args: &RunArgs, strict: bool, sweep: bool) -> Result<Request> {
    let mut req = Request::default().precisions(&args.common.precision);
    let common = [
        ("size", &args.common.size),
        ("variant", &args.variant),
        ("kernel", &args.kernel),
        ("layout", &args.layout),
        ("wg", &args.wg),
        ("vvl", &args.vvl),
        ("refdata", &args.refdata),
    ];
    for (name, value) in common {
        if let Some(v) = value {
            if app.param_name(name).is_some() {
                req = req.set(name, v.clone());
            } else if strict {
                bail!(Error::bad_param(
                    name,
                    format!("app `{}` has no such parameter", app.name())
                ));
            }
        }
    }
    for (k, v) in &args.set {
        if app.param_name(k).is_some() || strict {
            req = req.set(k, v.clone());
        }
    }
    if sweep {
        for (k, v) in app.sweep_defaults() {
            if !req.params.contains_key(k) {
                req = req.set(k, v);
            }
        }
    }
    Ok(req)
}

/// The platform benchmarks run on: a GPU, or the CPU reference platform.
enum Platform {
    Gpu(Box<Gpu>),
    Cpu,
}

fn open_platform(common: &CommonArgs) -> Result<Platform> {
    if common.cpu {
        return Ok(Platform::Cpu);
    }
    match open_gpu(common) {
        Ok(gpu) => {
            if !common.quiet {
                eprintln!(
                    "adapter: {} [{}] features: {}; df64: {:?}",
                    gpu.info.label(),
                    gpu.info.device_type,
                    gpu.caps.feature_names().join(" "),
                    gpu.df64
                );
            }
            Ok(Platform::Gpu(Box::new(gpu)))
        }
        Err(Error::NoAdapter(why))
            if common.adapter == "auto"
                && common.backend.backend.is_none()
                && std::env::var_os("CI").is_none() =>
        {
            eprintln!(
                "no GPU adapter found{why}: running the CPU reference backend instead (install mesa-vulkan-drivers for lavapipe)"
            );
            Ok(Platform::Cpu)
        }
        Err(e) => Err(e).context("opening the adapter"),
    }
}

/// Opens the adapter `common` picks (`--adapter` on `--backend`).
fn open_gpu(common: &CommonArgs) -> skylight_core::Result<Gpu> {
    let api = common.backend.api()?;
    pollster::block_on(Gpu::open(&Selector::parse(&common.adapter), api))
}

/// Warm-up that lets a GPU's clock governor reach full clocks (docs/notebook/benchmarks.md).
const GPU_WARMUP_S: f64 = 1.0;

/// The warm-up when `--warmup-s` is not given: a CPU adapter (lavapipe) or
/// the CPU backend has no clock ramp to wait for (the `--warmup` runs
/// still warm its caches).
fn default_warmup_s(platform: &Platform) -> f64 {
    match platform {
        Platform::Gpu(gpu) if gpu.info.device_type != "cpu" => GPU_WARMUP_S,
        _ => 0.0,
    }
}

/// The options of a run: explicit --samples are taken exactly unless a
/// --budget-s is given too.
fn run_options(common: &CommonArgs, platform: &Platform) -> RunOptions {
    let gpu = matches!(platform, Platform::Gpu(g) if g.info.device_type != "cpu");
    let default_budget = match (common.samples, gpu) {
        (Some(_), _) => 0.0,
        (None, true) => 1.0,
        (None, false) => 0.25,
    };
    RunOptions {
        warmup: common.warmup.unwrap_or(if gpu { 2 } else { 1 }),
        warmup_s: common.warmup_s.unwrap_or(default_warmup_s(platform)),
        samples: common.samples.unwrap_or(20),
        budget_s: common.budget_s.unwrap_or(default_budget),
        runs_per_sample: common.runs_per_sample.unwrap_or(1),
    }
}

fn roofline(
    common: &CommonArgs,
    plot_to: Option<PathBuf>,
    with: &[PathBuf],
    from: Option<PathBuf>,
) -> Result<bool> {
    let measured = from.is_none();
    let (mut records, ok) = match from {
        Some(path) => (inputs::load(&path)?.records, true),
        None => {
            let platform = open_platform(common)?;
            let settings = run::Settings {
                opts: run_options(common, &platform),
                quiet: common.quiet,
                isolate: false,
                done: Vec::new(),
                tuned: None,
            };
            let mut requests = Vec::new();
            for name in ["stream", "cache", "peak"] {
                let mut req = Request::default().precisions(&common.precision);
                if let Some(s) = &common.size {
                    req = req.set("size", s.clone());
                }
                requests.push((registry::find(name)?, req));
            }
            let mut output = Output::new(common.json.clone(), common.csv.clone(), Vec::new());
            println!("{}", report::header());
            let runs = run::measure(&platform, &requests, &settings, &mut output)?;
            let ok = run::finish(runs.iter().flat_map(|a| &a.outcomes), &mut output, false)?;
            (output.records().to_vec(), ok)
        }
    };
    records.extend(inputs::records(with)?);
    let Some(roof) = Roofline::from_records(&records) else {
        bail!("no validated stream result: cannot draw a roofline");
    };
    // A measuring run has printed its roofline as it finished.
    if !measured || !with.is_empty() {
        report::print_roofline(&roof);
    }
    report::print_native_ceilings(&roof, &records);
    if let Some(path) = plot_to {
        plot::draw(&roof, &skylight_core::report::apps(&records), &path)?;
        eprintln!("roofline written to {}", path.display());
    }
    Ok(ok)
}
