//! `skylight native`: reads a native baseline's output (BabelStream,
//! su3_bench, a port's `skylight-native` lines, ...) into result records that
//! take their FLOP/byte model and device from Skylight's records of the same
//! call, so the roofline and the efficiency tables place both.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use skylight_core::native::{self, NativeSource};
use skylight_core::record::{ResultFile, write_atomic};

/// Arguments of `skylight native`.
#[derive(Args)]
pub struct NativeArgs {
    /// The native code whose output the logs hold (`babelstream`,
    /// `su3_bench`, `port`, ...; an unknown name lists them).
    #[arg(long)]
    code: String,
    /// Skylight result files of the same call on the same device: each
    /// native record takes its model and device from the matching one
    /// (folders: every result file in them).
    #[arg(long, required = true)]
    like: Vec<PathBuf>,
    /// Commit of the native code that was built.
    #[arg(long, default_value = "unknown")]
    commit: String,
    /// Compiler and flags it was built with.
    #[arg(long, default_value = "unknown")]
    build: String,
    /// The code's repository, or the recipe that holds a port (default: the code's own).
    #[arg(long)]
    repository: Option<String>,
    /// Write the records here (JSON result file).
    #[arg(long)]
    json: Option<PathBuf>,
    /// The native code's output files.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
}

/// Reads, converts, prints and writes; `Ok(false)` when a native check failed.
pub fn run(args: &NativeArgs) -> Result<bool> {
    let code = native::find(&args.code)?;
    if let Some(path) = &args.json {
        crate::check_writable(path)?;
    }
    let like = crate::inputs::records(&args.like)?;
    let source = NativeSource {
        model: code.model.to_string(),
        code: args
            .repository
            .clone()
            .unwrap_or_else(|| code.code.to_string()),
        commit: args.commit.clone(),
        port: code.port,
        build: args.build.clone(),
        statistic: code.statistic,
    };
    let mut records = Vec::new();
    for log in &args.logs {
        let text =
            std::fs::read_to_string(log).with_context(|| format!("reading {}", log.display()))?;
        let runs = (code.parse)(&text, &log.display().to_string())?;
        let (done, skipped) = native::to_records(&runs, &source, &like);
        for e in &skipped {
            eprintln!("skipped: {e}");
        }
        if done.is_empty() {
            bail!("{}: no run matched a Skylight record", log.display());
        }
        records.extend(done);
    }
    println!(
        "{:<24} {:<22} {:<5} {:>12} {:>10} {:>9}  check",
        "app/kernel",
        "native config",
        "prec",
        source.statistic.name(),
        "GFLOP/s",
        "GB/s"
    );
    for r in &records {
        println!(
            "{:<24} {:<22} {:<5} {:>9.3} ms {:>10.1} {:>9.1}  {}",
            format!("{}/{}", r.case.app, r.case.kernel),
            r.case.variant,
            r.case.precision,
            source.statistic.of(&r.stats) * 1e3,
            r.gflops,
            r.gbps,
            if r.validation.passed { "ok" } else { "FAILED" }
        );
    }
    if let Some(path) = &args.json {
        write_atomic(path, &ResultFile::new(records.clone(), None).to_json())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(records.iter().all(|r| r.validation.passed))
}
