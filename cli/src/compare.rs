//! `skylight compare`: the same problems on several platforms side by
//! side, each platform's best variant and its time over the first
//! platform's (one GPU through Vulkan and GL: what the API costs).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use skylight_core::compare::compare;
use skylight_core::record::write_atomic;

/// Arguments of `skylight compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// Result files, or folders of them.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Platforms, a comma list of substrings of their labels in the order
    /// of the columns, the first the one others are measured against
    /// (e.g. `(vulkan),(gl)`); default: every platform, in label order.
    #[arg(long, value_delimiter = ',')]
    platforms: Vec<String>,
    /// Write the comparison as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Prints the Markdown table (and writes JSON when asked); fewer than two
/// platforms is an error.
pub fn run(args: &CompareArgs) -> Result<bool> {
    if let Some(path) = &args.json {
        crate::check_writable(path)?;
    }
    let records = crate::inputs::records(&args.files)?;
    let c = compare(&records, &args.platforms);
    if c.platforms.len() < 2 {
        bail!(
            "compare needs validated Skylight records of two platforms or more; these files hold {}",
            match c.platforms.as_slice() {
                [] => "none".to_string(),
                some => some.join(", "),
            }
        );
    }
    print!("{}", c.markdown());
    if let Some(path) = &args.json {
        write_atomic(path, &serde_json::to_string_pretty(&c)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(true)
}
