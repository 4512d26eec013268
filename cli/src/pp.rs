//! `skylight pp`: Pennycook's performance portability of each app over the
//! platforms of result files, as a table, JSON, CSV and a cascade plot.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use skylight_core::portability::{self, Basis, Config, PpTable};
use skylight_core::record::write_atomic;
use skylight_core::tune::cache::TuningCache;
use skylight_core::tune::portable;

use crate::cascade;

/// The efficiency PP is built on.
#[derive(Clone, Copy, ValueEnum)]
enum BasisArg {
    /// Against each platform's measured roofline.
    Architectural,
    /// Against the best known time on each platform (its native baseline
    /// when loaded, else Skylight's best variant there).
    Application,
}

/// A configuration PP is computed for.
#[derive(Clone, Copy, ValueEnum)]
enum ConfigArg {
    /// One configuration on every platform: the variant with the highest
    /// PP over them.
    Portable,
    /// Each platform's own best configuration (its tuned one).
    Tuned,
}

/// Arguments of `skylight pp`.
#[derive(Args)]
pub struct PpArgs {
    /// Result files: several devices, the CPU platform, the browser's
    /// download, native baselines; folders: every result file in them,
    /// at any depth. Or tuning caches (`skylight tune`'s, the browser's
    /// export): PP of one portable configuration and of the defaults
    /// against each platform's tuned best, per kernel and per app.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Efficiency to use.
    #[arg(long, value_enum, default_value = "architectural")]
    basis: BasisArg,
    /// Platforms in the set (comma list of substrings of their labels, e.g.
    /// `H100,llvmpipe`); default: every platform in the files.
    #[arg(long, value_delimiter = ',')]
    platforms: Vec<String>,
    /// Also a row per variant (layout, mapping, launch shape), not only
    /// each platform's best.
    #[arg(long)]
    variants: bool,
    /// Instead, one row per kernel and configuration: `portable` (the best
    /// single configuration across the platforms) and/or `tuned` (each
    /// platform's best); a comma list gives both.
    #[arg(long, value_enum, value_delimiter = ',')]
    config: Vec<ConfigArg>,
    /// Write the table as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Draw the cascade plot of each app here (.svg or .png).
    #[arg(long)]
    plot: Option<PathBuf>,
}

/// Prints the table and writes what was asked.
pub fn run(args: &PpArgs) -> Result<bool> {
    for path in [&args.json, &args.csv, &args.plot].into_iter().flatten() {
        crate::check_writable(path)?;
    }
    if let Some(caches) = tuning_caches(&args.files)? {
        return from_caches(&caches);
    }
    let records = crate::inputs::records(&args.files)?;
    let basis = match args.basis {
        BasisArg::Architectural => Basis::Architectural,
        BasisArg::Application => Basis::Application,
    };
    let configs: Vec<Config> = args
        .config
        .iter()
        .map(|c| match c {
            ConfigArg::Portable => Config::Portable,
            ConfigArg::Tuned => Config::Tuned,
        })
        .collect();
    let variants = args.variants || !configs.is_empty();
    let mut table = portability::table(&records, basis, &args.platforms, variants);
    if !configs.is_empty() {
        table = portability::by_config(&table, &configs);
    }
    if table.platforms.is_empty() {
        anyhow::bail!("no validated Skylight record on the platforms asked for");
    }
    print!("{}", text(&table));
    if let Some(path) = &args.json {
        write_atomic(path, &serde_json::to_string_pretty(&table)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.csv {
        write_atomic(path, &csv(&table)).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.plot {
        cascade::draw(&table, path)?;
        eprintln!("cascade plot written to {}", path.display());
    }
    Ok(true)
}

/// The files as tuning caches, where they all are (`None` where none is;
/// an error where some are and some are not).
fn tuning_caches(files: &[PathBuf]) -> Result<Option<Vec<TuningCache>>> {
    let mut caches = Vec::new();
    for f in files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) if t.contains("\"skylight_tuning\"") => t,
            _ => continue,
        };
        caches.push(TuningCache::from_json(&text, &f.display().to_string())?);
    }
    match caches.len() {
        0 => Ok(None),
        n if n == files.len() => Ok(Some(caches)),
        _ => bail!("give either tuning caches or result files, not both"),
    }
}

/// PP of tuning caches: per app, kernel and precision tuned on two
/// platforms or more, one portable configuration and the defaults against
/// each platform's tuned best ([`portable`]).
fn from_caches(caches: &[TuningCache]) -> Result<bool> {
    let t = portable::table(caches);
    if t.rows.is_empty() {
        bail!("no app, kernel and precision was tuned on two platforms or more");
    }
    println!(
        "application efficiency against each platform's tuned best (so tuned: 100% everywhere); PP over the platforms that tuned each row:"
    );
    for (i, p) in t.platforms.iter().enumerate() {
        println!("  P{} = {p}", i + 1);
    }
    for r in &t.rows {
        let on: Vec<String> = r.platforms.iter().map(|p| format!("P{}", p + 1)).collect();
        let pct = |v: &[f64]| -> String {
            v.iter()
                .map(|e| format!("{:.0}%", 100.0 * e))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "{:<24} {:<5} {:<9} defaults {:>4.0}% ({}), portable {:>4.0}% ({}: {})",
            format!("{}/{}", r.app, r.kernel),
            r.precision.to_string(),
            on.join(","),
            100.0 * r.pp_defaults,
            pct(&r.defaults_eff),
            100.0 * r.pp_portable,
            r.portable,
            pct(&r.portable_eff)
        );
    }
    println!();
    print!("{}", portable::markdown(&t));
    Ok(true)
}

fn text(t: &PpTable) -> String {
    let basis = match t.basis {
        Basis::Architectural => "architectural",
        Basis::Application => "application",
    };
    let mut s = format!(
        "{basis} efficiency per platform; PP over all {}:\n",
        t.platforms.len()
    );
    for (i, p) in t.platforms.iter().enumerate() {
        s.push_str(&format!("  P{} = {p}\n", i + 1));
    }
    s.push_str(&format!(
        "{:<28} {:<5} {:<26}",
        "app/kernel", "prec", "variant"
    ));
    for i in 0..t.platforms.len() {
        s.push_str(&format!(" {:>7}", format!("P{}", i + 1)));
    }
    s.push_str("      PP\n");
    for r in &t.rows {
        s.push_str(&format!(
            "{:<28} {:<5} {:<26}",
            format!("{}/{}", r.app, r.kernel),
            r.precision.to_string(),
            r.variant
        ));
        for (e, &capped) in r.efficiency.iter().zip(&r.capped) {
            s.push_str(&match e {
                Some(e) if capped => format!(" {:>6.1}%†", 100.0 * e),
                Some(e) => format!(" {:>6.1}%", 100.0 * e),
                None => format!(" {:>7}", "-"),
            });
        }
        s.push_str(&format!(" {:>6.1}%", 100.0 * r.pp));
        let why: Vec<String> = r
            .missing
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.as_ref().map(|m| format!("P{}: {m}", i + 1)))
            .collect();
        if !why.is_empty() {
            s.push_str(&format!("  ({})", why.join("; ")));
        }
        s.push('\n');
    }
    if t.rows.iter().any(|r| r.capped.contains(&true)) {
        s.push_str(&format!("† {}\n", skylight_core::portability::CAPPED));
    }
    s
}

fn csv(t: &PpTable) -> String {
    let mut s = String::from("app,kernel,precision,variant");
    for p in &t.platforms {
        s.push_str(&format!(",\"{}\"", p.replace('"', "'")));
    }
    s.push_str(",pp\n");
    for r in &t.rows {
        s.push_str(&format!(
            "{},{},{},\"{}\"",
            r.app, r.kernel, r.precision, r.variant
        ));
        for e in &r.efficiency {
            s.push_str(&e.map(|e| format!(",{e:.6}")).unwrap_or_else(|| ",".into()));
        }
        s.push_str(&format!(",{:.6}\n", r.pp));
    }
    s
}
