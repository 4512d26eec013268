//! `skylight report`: one self-contained HTML page of any result files,
//! or (`--markdown`) the results page of reference sets with its figures
//! (core's [`skylight_core::report`] builds both; this reads the files and
//! writes the pages, or with `--check` says whether the written ones are
//! up to date).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{ArgGroup, Args};
use skylight_core::record::{ResultRecord, write_atomic};
use skylight_core::report::markdown::{Page, Set, page};
use skylight_core::report::{self, Options};

/// Arguments of `skylight report`.
#[derive(Args)]
#[command(group(ArgGroup::new("out").required(true).args(["output", "markdown"])))]
pub struct ReportArgs {
    /// Result files, or folders searched at any depth for them (other
    /// JSON, and files that do not read, are skipped with a note). With
    /// --markdown: one folder per reference set, each with a README.md
    /// whose first line is the set's heading.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the HTML page here.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Write the Markdown results page here instead (links are relative
    /// to the current folder, so run it where the page lives).
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// With --markdown: the folder its SVG figures go to.
    #[arg(long, default_value = "benchmarks/reference/figures")]
    figures: PathBuf,
    /// With --markdown: Markdown that opens the page (title, method).
    #[arg(long)]
    intro: Option<PathBuf>,
    /// With --markdown: write nothing; exit 1 naming each file that
    /// differs from what would be written.
    #[arg(long)]
    check: bool,
    /// The page's heading.
    #[arg(long, default_value = "Skylight results")]
    title: String,
    /// Draw every validated variant on the rooflines, not only each app,
    /// kernel and precision's best.
    #[arg(long)]
    all_variants: bool,
}

/// Reads the files and writes the page.
pub fn run(args: &ReportArgs) -> Result<bool> {
    let Some(output) = &args.output else {
        return markdown(args);
    };
    crate::check_writable(output)?;
    let (records, mut notes) = crate::inputs::records_lenient(&args.files)?;
    if records.is_empty() {
        bail!("no result records in these files");
    }
    let sources: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    notes.insert(0, format!("Read from: {}.", sources.join(", ")));
    let opts = Options {
        title: args.title.clone(),
        all_variants: args.all_variants,
        notes,
    };
    let page = report::html(&records, &opts);
    write_atomic(output, &page).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "report of {} records written to {}",
        records.len(),
        output.display()
    );
    Ok(true)
}

/// The set in `folder`: its heading (its README's first line, without
/// the `#`) and its records.
fn read_set(folder: &Path) -> Result<(String, Vec<ResultRecord>)> {
    let readme = folder.join("README.md");
    let text = std::fs::read_to_string(&readme)
        .with_context(|| format!("a reference set needs a README.md: {}", readme.display()))?;
    let title = text
        .lines()
        .next()
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .filter(|t| !t.is_empty())
        .with_context(|| format!("{} opens with no heading", readme.display()))?;
    let (records, _) = crate::inputs::records_lenient(&[folder.to_path_buf()])?;
    if records.is_empty() {
        bail!("no result records in {}", folder.display());
    }
    Ok((title, records))
}

/// `--markdown`: the results page of the sets and its figures, written,
/// or with `--check` compared with what is on disk.
fn markdown(args: &ReportArgs) -> Result<bool> {
    let Some(out) = &args.markdown else {
        bail!("give -o FILE.html or --markdown FILE.md");
    };
    let intro = match &args.intro {
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?
        }
        None => "# Benchmarks\n".into(),
    };
    let read: Vec<(String, Vec<ResultRecord>)> = args
        .files
        .iter()
        .map(|f| read_set(f))
        .collect::<Result<_>>()?;
    let sets: Vec<Set> = read
        .iter()
        .zip(&args.files)
        .map(|((title, records), folder)| Set {
            title: title.clone(),
            path: folder
                .display()
                .to_string()
                .trim_end_matches('/')
                .to_string(),
            records,
        })
        .collect();
    let Page { markdown, figures } = page(&sets, &intro, &args.figures.display().to_string());
    let mut files = vec![(out.clone(), markdown)];
    files.extend(figures.into_iter().map(|(p, svg)| (PathBuf::from(p), svg)));
    if args.check {
        return check(&files, &args.figures);
    }
    std::fs::create_dir_all(&args.figures)
        .with_context(|| format!("creating {}", args.figures.display()))?;
    for (path, text) in &files {
        write_atomic(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    eprintln!("{} and {} figures written", out.display(), files.len() - 1);
    Ok(true)
}

/// Whether every file holds what it would be written with, and the
/// figures folder holds no other SVG; names each one that does not.
fn check(files: &[(PathBuf, String)], figures: &Path) -> Result<bool> {
    let mut stale = Vec::new();
    for (path, text) in files {
        if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    if let Ok(entries) = std::fs::read_dir(figures) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "svg") && !files.iter().any(|(f, _)| *f == p) {
                stale.push(format!("{} (no longer drawn)", p.display()));
            }
        }
    }
    for s in &stale {
        eprintln!("out of date: {s}");
    }
    Ok(stale.is_empty())
}
