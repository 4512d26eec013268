//! The result files a command reads: files, and folders searched at any
//! depth for `*.json`. Another tool's JSON (`skylight stats` output, a
//! native code's log) is skipped with a note, and a file cut short
//! mid-write gives the records before the cut, with a warning.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use skylight_core::Error;
use skylight_core::record::{ResultFile, ResultRecord};

/// The records of every result file in `paths` (files, or folders).
pub fn records(paths: &[PathBuf]) -> Result<Vec<ResultRecord>> {
    read(paths, false).map(|(records, _)| records)
}

/// The records of every result file in `paths` that reads, with one note
/// per file skipped (another tool's JSON, or a result file that does not
/// parse), each also printed on stderr; a file cut short gives its whole
/// records and a note. For a report, which shows what it can.
pub fn records_lenient(paths: &[PathBuf]) -> Result<(Vec<ResultRecord>, Vec<String>)> {
    read(paths, true)
}

fn read(paths: &[PathBuf], skip_broken: bool) -> Result<(Vec<ResultRecord>, Vec<String>)> {
    let mut records = Vec::new();
    let mut notes = Vec::new();
    for path in paths {
        for file in files(path)? {
            let note = match ResultFile::load_partial(&file) {
                Ok((f, warning)) => {
                    records.extend(f.records);
                    if let Some(w) = &warning {
                        eprintln!("warning: {w}");
                    }
                    notes.extend(warning);
                    continue;
                }
                Err(Error::NotResultFile(_)) => Some(format!(
                    "skipping {}: not a Skylight result file",
                    file.display()
                )),
                Err(e) if skip_broken => Some(format!("skipping {}: {e}", file.display())),
                Err(e) => return Err(e.into()),
            };
            if let Some(n) = note {
                eprintln!("note: {n}");
                notes.push(n);
            }
        }
    }
    Ok((records, notes))
}

/// One result file, whole or cut short (with a warning on stderr).
pub fn load(path: &Path) -> Result<ResultFile> {
    let (file, warning) = ResultFile::load_partial(path)?;
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }
    Ok(file)
}

/// `path` itself, or the `*.json` files under the folder `path` in name
/// order (folders that are links are not followed, so no loop).
fn files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut entries = std::fs::read_dir(path)
        .with_context(|| format!("reading the folder {}", path.display()))?
        .collect::<std::io::Result<Vec<_>>>()
        .with_context(|| format!("reading the folder {}", path.display()))?;
    entries.sort_by_key(|e| e.file_name());
    let mut found = Vec::new();
    for entry in entries {
        let p = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(files(&p)?);
        } else if p.extension().is_some_and(|x| x == "json") {
            found.push(p);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folders are read at any depth, in name order, `*.json` only; JSON
    /// that is not a result file is skipped, a broken result file is an
    /// error.
    #[test]
    fn folders_are_searched_and_foreign_json_skipped() {
        let dir = std::env::temp_dir().join(format!("skylight-inputs-{}", std::process::id()));
        let deep = dir.join("b").join("c");
        std::fs::create_dir_all(&deep).expect("scratch folder");
        let empty = ResultFile::new(Vec::new(), None).to_json();
        for (path, text) in [
            (dir.join("z.json"), empty.as_str()),
            (deep.join("a.json"), empty.as_str()),
            (
                dir.join("b").join("stats-su3.json"),
                "[{\"label\": \"su3\"}]",
            ),
            (dir.join("notes.txt"), "not json"),
        ] {
            std::fs::write(path, text).expect("write");
        }
        let found = files(&dir).expect("files");
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&dir).expect("under"))
            .collect();
        let want = ["b/c/a.json", "b/stats-su3.json", "z.json"].map(Path::new);
        assert_eq!(names, want);
        assert!(
            records(std::slice::from_ref(&dir))
                .expect("records")
                .is_empty()
        );
        std::fs::write(
            deep.join("a.json"),
            "{\"schema_version\": 1, \"records\": [3]}",
        )
        .expect("write");
        let err = records(std::slice::from_ref(&dir)).expect_err("a broken result file");
        assert!(format!("{err:#}").contains("a.json"), "{err:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
