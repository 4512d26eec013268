//! Host data shared by the cases of one request: an app's inputs and CPU
//! reference depend on its problem and precision, not on the layout,
//! mapping or workgroup size being compared, so every variant of a sweep
//! reuses them instead of drawing and checking them again. The inputs are
//! still fresh random ones for every request.

use std::any::Any;
use std::sync::{Arc, Mutex};

/// How many entries are kept: cases come grouped by problem and precision,
/// so a run of variants reuses the same few (an app's inputs and the
/// reference of each kernel); more would hold gigabytes for nothing.
const KEEP: usize = 4;

/// A small cache of shared host data keyed by what it depends on.
#[derive(Default)]
pub struct Memo {
    entries: Mutex<Vec<(String, Arc<dyn Any + Send + Sync>)>>,
}

impl Memo {
    /// The value stored under `key`, made by `make` when absent (or held
    /// as another type). The most recently used entries are kept.
    pub fn get_or_make<T: Any + Send + Sync>(&self, key: &str, make: impl FnOnce() -> T) -> Arc<T> {
        if let Some(hit) = self.take(key).and_then(|v| v.downcast::<T>().ok()) {
            self.put(key, hit.clone());
            return hit;
        }
        // Made outside the lock: making can take seconds, and a failed
        // `make` (a panic) must not poison the cache.
        let value = Arc::new(make());
        self.put(key, value.clone());
        value
    }

    /// Drops every entry (at the end of a request, to free the memory).
    pub fn clear(&self) {
        if let Ok(mut e) = self.entries.lock() {
            e.clear();
        }
    }

    fn take(&self, key: &str) -> Option<Arc<dyn Any + Send + Sync>> {
        let mut e = self.entries.lock().ok()?;
        let i = e.iter().position(|(k, _)| k == key)?;
        Some(e.remove(i).1)
    }

    fn put(&self, key: &str, value: Arc<dyn Any + Send + Sync>) {
        if let Ok(mut e) = self.entries.lock() {
            e.retain(|(k, _)| k != key);
            e.push((key.to_string(), value));
            let over = e.len().saturating_sub(KEEP);
            e.drain(..over);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_made_once_per_key_and_old_keys_are_dropped() {
        let memo = Memo::default();
        let mut made = 0;
        let mut get = |k: &str| {
            *memo.get_or_make(k, || {
                made += 1;
                k.len()
            })
        };
        assert_eq!(get("a"), 1);
        assert_eq!(get("a"), 1);
        assert_eq!(get("bb"), 2);
        assert_eq!(get("a"), 1);
        for k in ["c", "dd", "eee", "ffff"] {
            get(k);
        }
        // "a" and "bb" were the least recently used: made again.
        assert_eq!(get("bb"), 2);
        assert_eq!(made, 7);
    }

    #[test]
    fn a_key_held_as_another_type_is_made_again() {
        let memo = Memo::default();
        assert_eq!(*memo.get_or_make("k", || 1u32), 1);
        assert_eq!(*memo.get_or_make("k", || "x"), "x");
        memo.clear();
        assert_eq!(*memo.get_or_make("k", || 2u32), 2);
    }
}
