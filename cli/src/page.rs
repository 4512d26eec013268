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
use skylight_core::tune::cache::TuningCache;
use skylight_core::tune::portable;

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
    /// With --markdown: tuning caches (repeatable) for a closing section,
    /// per app: PP of one portable configuration and of the defaults
    /// against each platform's tuned best (`skylight pp CACHES`).
    #[arg(long, value_name = "CACHE")]
    tuning: Vec<PathBuf>,
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
    let Page {
        mut markdown,
        figures,
    } = page(&sets, &intro, &args.figures.display().to_string());
    if !args.tuning.is_empty() {
        markdown.push_str(&tuning_section(&args.tuning)?);
    }
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

/// The page's closing section: PP of one portable configuration against
/// each platform's tuned best, per app, from the tuning caches `paths`.
fn tuning_section(paths: &[PathBuf]) -> Result<String> {
    let caches: Vec<TuningCache> = paths
        .iter()
        .map(|p| TuningCache::load(p).map_err(anyhow::Error::from))
        .collect::<Result<_>>()?;
    let t = portable::table(&caches);
    let files: Vec<String> = paths
        .iter()
        .map(|p| format!("[`{}`]({})", p.display(), p.display()))
        .collect();
    let platforms: Vec<String> = t
        .platforms
        .iter()
        .enumerate()
        .map(|(i, p)| format!("P{} = {p}", i + 1))
        .collect();
    Ok(format!(
        "\n## Tuning: one portable configuration against each platform's tuned best\n\n\
         From the tuning caches {} ({}; `skylight pp CACHES` gives every row). \
         Efficiency: a configuration's time over the platform's tuned best for the unit, \
         so each platform's tuned best is 100% and so is the PP of tuned configurations; \
         *portable*: the one configuration measured on every platform with the highest PP; \
         medians over the app's kernels and precisions tuned on two platforms or more, \
         each platform on its own problem (times: the search's, as the caches hold them).\n\n{}",
        files.join(", "),
        platforms.join("; "),
        portable::markdown(&t)
    ))
}
