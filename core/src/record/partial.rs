//! What a result file cut short mid-write holds: its header and every whole
//! record before the cut. A run writes its file atomically, so such a file
//! comes from elsewhere (a copy that did not finish, a power loss on a file
//! system that reorders writes, another writer), and reading what is whole
//! beats refusing the lot.

use serde::de::{DeserializeOwned, IgnoredAny};

use super::{ResultFile, ResultRecord, check_version};
use crate::error::{Error, Result};

/// Whether `text` is JSON that ends before its value does, rather than JSON
/// with a fault in it: the parser stops at the end (a number cut after its
/// `.` is a syntax error there, not an early end).
pub(super) fn ends_early(text: &str) -> bool {
    match serde_json::from_str::<IgnoredAny>(text) {
        Err(e) if e.is_eof() => true,
        Err(e) if e.is_syntax() => {
            let line_start: usize = text
                .split_inclusive('\n')
                .take(e.line().saturating_sub(1))
                .map(str::len)
                .sum();
            line_start + e.column() + 1 >= text.len()
        }
        _ => false,
    }
}

/// The file `text` (which [`ends_early`]) begins: its schema version checked
/// and the records that end before the cut. An error where the cut comes
/// before the `records` key, so that what the file is cannot be told.
pub(super) fn salvage(text: &str, origin: &str) -> Result<ResultFile> {
    let cut = || Error::BadFile {
        path: origin.to_string(),
        reason: "cut short before its records".into(),
    };
    let mut c = Cursor { text, pos: 0 };
    if !c.eat('{') {
        return Err(Error::NotResultFile(origin.to_string()));
    }
    let mut version = None;
    loop {
        let key: String = c.value().ok_or_else(cut)?;
        if !c.eat(':') {
            return Err(cut());
        }
        if key == "records" {
            break;
        }
        let value: serde_json::Value = c.value().ok_or_else(cut)?;
        if key == "schema_version" {
            version = value.as_u64();
        }
        if !c.eat(',') {
            return Err(cut());
        }
    }
    check_version(version, origin)?;
    let mut records = Vec::new();
    if c.eat('[') {
        while let Some(r) = c.value::<ResultRecord>() {
            records.push(r);
            if !c.eat(',') {
                break;
            }
        }
    }
    Ok(ResultFile::new(records, None))
}

/// A position in JSON text, read one value at a time.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// Consumes `c` after any white space; false when something else comes.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        let found = self.text[self.pos..].starts_with(c);
        if found {
            self.pos += c.len_utf8();
        }
        found
    }

    /// The next value; `None` where it is cut or malformed.
    fn value<T: DeserializeOwned>(&mut self) -> Option<T> {
        self.skip_space();
        let mut values =
            serde_json::Deserializer::from_str(&self.text[self.pos..]).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.pos += values.byte_offset();
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Case, Model};
    use crate::fixtures::record;
    use crate::precision::Precision;

    fn three_records() -> Vec<ResultRecord> {
        ["copy", "mul", "triad"]
            .iter()
            .map(|k| {
                let case = Case::new("stream", k, "wg256", Precision::F32).param("wg", 256);
                let model = Model {
                    flops: 1e6,
                    bytes: 2e6,
                };
                record(case, "GPU \"é\"", "vulkan", model, vec![1e-3, 2e-3])
            })
            .collect()
    }

    /// Cut anywhere, a file reads as the records before the cut (with a
    /// warning) or, cut before its records, as an error; never a panic.
    #[test]
    fn a_file_cut_anywhere_reads_up_to_its_last_whole_record() {
        let records = three_records();
        let text = ResultFile::new(records.clone(), None).to_json();
        let mut seen = vec![false; records.len() + 1];
        let mut last = 0;
        for n in (0..text.len()).filter(|&n| text.is_char_boundary(n)) {
            match ResultFile::from_json_partial(&text[..n], "cut.json") {
                Ok((file, warning)) => {
                    let k = file.records.len();
                    assert_eq!(file.records, records[..k], "cut at {n}");
                    assert!(k >= last, "cut at {n}: {k} records after {last}");
                    let warning = warning.expect("a cut file warns");
                    assert!(warning.contains("cut.json"), "{warning}");
                    seen[k] = true;
                    last = k;
                }
                Err(e) => assert!(last == 0 && !text[..n].contains("\"app\""), "{n}: {e}"),
            }
        }
        assert_eq!(seen, [true, true, true, true]);
        let (whole, warning) = ResultFile::from_json_partial(&text, "whole.json").expect("whole");
        assert_eq!((whole.records, warning), (records, None));
    }

    #[test]
    fn faults_other_than_a_cut_stay_errors() {
        let read = |t: &str| ResultFile::from_json_partial(t, "x.json").map(|(f, _)| f);
        assert!(read("{\"schema_version\": 1, \"records\": [}, \"roofline\": null}").is_err());
        assert!(matches!(
            read("[{\"label\": \"su3\"}]"),
            Err(Error::NotResultFile(_))
        ));
        assert!(matches!(
            read("{\"records\": ["),
            Err(Error::NotResultFile(_))
        ));
        assert!(read("{\"schema_version\": 99, \"records\": [").is_err());
        assert!(read("").is_err());
    }
}
