//! `skylight table`: the efficiency table of result files (Skylight's and
//! native baselines' of the same device), as text, Markdown or JSON.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use skylight_core::efficiency;
use skylight_core::record::write_atomic;

/// Arguments of `skylight table`.
#[derive(Args)]
pub struct TableArgs {
    /// Result files (any mix of devices, Skylight runs and native
    /// baselines), or folders of them.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only the problems that have a native baseline.
    #[arg(long)]
    native_only: bool,
    /// Write the rows as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Prints the Markdown table (and writes JSON when asked).
pub fn run(args: &TableArgs) -> Result<bool> {
    if let Some(path) = &args.json {
        crate::check_writable(path)?;
    }
    let records = crate::inputs::records(&args.files)?;
    let rows = efficiency::rows(&records);
    print!("{}", efficiency::markdown(&rows, args.native_only));
    for gap in efficiency::roofline_gaps(&records) {
        println!("\nNote: {gap}.");
    }
    if let Some(path) = &args.json {
        write_atomic(path, &serde_json::to_string_pretty(&rows)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(true)
}
