//! The files a run writes (`--json`, `--csv`): replaced whole, through a
//! temporary file and a rename, after every case that finishes, so a run
//! that is stopped, crashes or loses its device keeps every case it
//! finished, and a reader never sees half a file.

use std::path::PathBuf;

use anyhow::{Context, Result};
use skylight_core::record::{ResultFile, ResultRecord, write_atomic};
use skylight_core::roofline::Roofline;

use crate::{report, stop};

/// The records of a run so far, and where they go.
pub struct Output {
    json: Option<PathBuf>,
    csv: Option<PathBuf>,
    file: ResultFile,
}

impl Output {
    /// A run that writes `json` and `csv` (either may be absent), starting
    /// from the records of a resumed run.
    pub fn new(json: Option<PathBuf>, csv: Option<PathBuf>, resumed: Vec<ResultRecord>) -> Output {
        Output {
            json,
            csv,
            file: ResultFile::new(resumed, None),
        }
    }

    /// Every record so far, resumed ones first.
    pub fn records(&self) -> &[ResultRecord] {
        &self.file.records
    }

    /// The result file written to, if any.
    pub fn json(&self) -> Option<&PathBuf> {
        self.json.as_ref()
    }

    /// Adds a finished case's record (with its grind time, where the app
    /// counts atom-steps) and rewrites the files.
    pub fn add(&mut self, record: ResultRecord) -> Result<()> {
        self.file.records.push(report::with_grind_time(record));
        self.write()
    }

    /// Writes the files as the records stand, with the roofline they
    /// measure.
    pub fn write(&mut self) -> Result<()> {
        self.file.roofline = Roofline::from_records(&self.file.records);
        let _writing = stop::WRITING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(path) = &self.json {
            write_atomic(path, &self.file.to_json())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        if let Some(path) = &self.csv {
            write_atomic(path, &self.file.to_csv())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(())
    }
}
