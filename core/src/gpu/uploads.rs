//! Device copies of read-only inputs, shared by the cases of one problem.
//! The variants of a sweep that read the same inputs in the same layout
//! (other workgroup sizes, mappings, reductions) bind the buffers the first
//! of them uploaded, instead of uploading gigabytes again per case.
//!
//! An entry belongs to a group (the problem: app, size, precision) and is
//! tied to the host data it was uploaded from (an entry of the request's
//! [`crate::memo::Memo`]): data drawn again, even under the same key, is
//! uploaded again. Device memory is bounded by one problem: asking for a
//! group drops the entries of every other group first.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::error::Result;

/// The host data an upload was made from (kept alive by the entry, so it
/// cannot be dropped and another allocation take its place unnoticed).
type Source = Arc<dyn Any + Send + Sync>;

struct Entry {
    group: String,
    item: String,
    source: Source,
    buffers: Vec<wgpu::Buffer>,
}

/// The uploads of the current problem.
#[derive(Default)]
pub struct Uploads(Mutex<Vec<Entry>>);

impl Uploads {
    /// The buffers `make` uploads from `source` for `item` of `group`,
    /// uploaded once: every later request with the same group, item and
    /// source gets the same buffers. Entries of other groups are dropped
    /// before `make` runs. Whoever binds them must not write them.
    pub fn get_or_upload<T: Any + Send + Sync>(
        &self,
        group: &str,
        item: &str,
        source: &Arc<T>,
        make: impl FnOnce(&T) -> Result<Vec<wgpu::Buffer>>,
    ) -> Result<Vec<wgpu::Buffer>> {
        let same = |e: &Entry| {
            e.group == group
                && e.item == item
                && std::ptr::addr_eq(Arc::as_ptr(&e.source), Arc::as_ptr(source))
        };
        {
            let mut entries = self.lock();
            if let Some(e) = entries.iter().find(|e| same(e)) {
                return Ok(e.buffers.clone());
            }
            entries.retain(|e| e.group == group && e.item != item);
        }
        let buffers = make(source)?;
        self.lock().push(Entry {
            group: group.to_string(),
            item: item.to_string(),
            source: source.clone(),
            buffers: buffers.clone(),
        });
        Ok(buffers)
    }

    /// Drops every entry; whether there were any.
    pub fn clear(&self) -> bool {
        let mut entries = self.lock();
        let held = !entries.is_empty();
        entries.clear();
        held
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // An entry is pushed whole or not at all: a panic elsewhere leaves
        // the list usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
