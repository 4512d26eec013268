//! The tuning cache: one human-readable JSON file of entries, each an
//! adapter (name, vendor and device ids, driver and its version, backend)
//! and a [`Unit`], with every configuration tried (its time and
//! validation) and the best. A tune rewrites it after every trial, so a
//! stopped tune keeps what it measured and resumes from it.

use serde::{Deserialize, Serialize};

use super::confirm::{Confirmation, Verdict};
use super::{Config, Unit};
use crate::error::{Error, Result};
use crate::gpu::PlatformInfo;

/// Version of the cache's format; bumped on any incompatible change.
pub const VERSION: u32 = 1;

/// The adapter an entry was measured on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceKey {
    /// Adapter name.
    pub adapter: String,
    /// PCI vendor id (0 where the backend has none).
    pub vendor: u32,
    /// PCI device id (0 where the backend has none).
    pub device: u32,
    /// Backend: `vulkan`, `metal`, `dx12`, `webgpu`, ...
    pub backend: String,
    /// Driver name.
    pub driver: String,
    /// Driver version.
    pub driver_info: String,
}

impl DeviceKey {
    /// The key of the adapter `info` describes.
    pub fn of(info: &PlatformInfo) -> DeviceKey {
        DeviceKey {
            adapter: info.name.clone(),
            vendor: info.vendor,
            device: info.device,
            backend: info.backend.clone(),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
        }
    }

    /// The same adapter through the same API, whatever its driver.
    pub fn same_device(&self, other: &DeviceKey) -> bool {
        (&self.adapter, self.vendor, self.device, &self.backend)
            == (&other.adapter, other.vendor, other.device, &other.backend)
    }

    /// The same adapter, driver and driver version.
    pub fn same(&self, other: &DeviceKey) -> bool {
        self == other
    }

    /// `driver driver_info`, as a warning names it.
    pub fn driver_label(&self) -> String {
        format!("{} {}", self.driver, self.driver_info)
            .trim()
            .to_string()
    }
}

/// One configuration measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// The configuration.
    pub config: Config,
    /// The variant label of the case it made (empty when it made none).
    pub variant: String,
    /// Median time of a run, seconds (absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_s: Option<f64>,
    /// Whether it ran and validated.
    pub passed: bool,
    /// The validation's detail, or why it did not run.
    pub detail: String,
    /// Seconds it took, all told (building, validating, warming up, timing).
    #[serde(default)]
    pub wall_s: f64,
}

/// What the cache holds for one unit on one adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Where it was measured.
    pub device: DeviceKey,
    /// What was tuned.
    #[serde(flatten)]
    pub unit: Unit,
    /// The configuration of the app's defaults (the search's start).
    pub defaults: Config,
    /// How many configurations the unit's space holds.
    pub space: usize,
    /// Whether the search ended by itself (every point measured, or its
    /// local searches converged) rather than on its budget.
    pub complete: bool,
    /// Every configuration measured, in order.
    pub trials: Vec<Trial>,
    /// The fastest that validated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<Trial>,
    /// The best re-measured against the defaults ([`super::confirm`]);
    /// absent in caches written before the guard, and where the best is
    /// the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<Confirmation>,
}

/// What a run takes from an entry ([`Entry::choice`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Choice<'a> {
    /// Nothing validated: the defaults.
    Nothing,
    /// The best: the defaults themselves, or re-measured faster than them.
    Best(&'a Trial),
    /// The best, never re-measured against the defaults (a cache written
    /// before the guard, or a tune stopped before it): used, said so.
    Unconfirmed(&'a Trial),
    /// The best was re-measured and not faster beyond the noise: the
    /// defaults.
    Rejected(&'a Confirmation),
}

impl Entry {
    /// The trial of `config`, if measured.
    pub fn trial(&self, config: &Config) -> Option<&Trial> {
        self.trials.iter().find(|t| t.config == *config)
    }

    /// Records `trial`, keeping [`Entry::best`] the fastest that validated.
    pub fn add(&mut self, trial: Trial) {
        let faster = match (&self.best, trial.median_s) {
            (_, None) => false,
            _ if !trial.passed => false,
            (None, Some(_)) => true,
            (Some(b), Some(t)) => b.median_s.is_none_or(|bt| t < bt),
        };
        if faster {
            self.best = Some(trial.clone());
        }
        self.trials.push(trial);
    }

    /// Whether the best is a configuration other than the defaults whose
    /// re-measure is missing or was of another configuration (stale).
    pub fn needs_confirm(&self) -> bool {
        matches!(self.choice(), Choice::Unconfirmed(_))
    }

    /// [`Entry::choice`] in words, for the CLI's and the apps' progress:
    /// what runs will use and the re-measure's verdict.
    pub fn outcome(&self) -> String {
        let summary = || self.confirm.as_ref().map_or(String::new(), |c| c.summary());
        match self.choice() {
            Choice::Nothing => "no configuration validated".to_string(),
            Choice::Best(b) if b.config == self.defaults => format!("{} (the defaults)", b.variant),
            Choice::Best(b) => format!("{}: {}", b.variant, summary()),
            Choice::Unconfirmed(b) => format!("{}: not re-measured yet", b.variant),
            Choice::Rejected(_) => format!(
                "defaults: {} {}",
                self.best.as_ref().map_or("", |b| b.variant.as_str()),
                summary()
            ),
        }
    }

    /// What a run should use: the best where it is the defaults or was
    /// confirmed faster, the defaults where the re-measure rejected it,
    /// the best marked unconfirmed where it was never re-measured.
    pub fn choice(&self) -> Choice<'_> {
        let Some(best) = &self.best else {
            return Choice::Nothing;
        };
        if best.config == self.defaults {
            return Choice::Best(best);
        }
        match &self.confirm {
            Some(c) if c.config == best.config => match c.verdict {
                Verdict::Faster => Choice::Best(best),
                _ => Choice::Rejected(c),
            },
            _ => Choice::Unconfirmed(best),
        }
    }

    /// The time of the app's defaults over the best's (how much faster
    /// the best runs), where both were measured.
    pub fn gain(&self) -> Option<f64> {
        let default = self.trial(&self.defaults)?.median_s?;
        let best = self.best.as_ref()?.median_s?;
        (best > 0.0).then(|| default / best)
    }
}

/// A tuning cache file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TuningCache {
    /// [`VERSION`] of the writer; the key says what the file is.
    pub skylight_tuning: u32,
    /// Every entry, in the order first measured.
    pub entries: Vec<Entry>,
}

impl TuningCache {
    /// An empty cache.
    pub fn new() -> TuningCache {
        TuningCache {
            skylight_tuning: VERSION,
            entries: Vec::new(),
        }
    }

    /// Parses a cache; `origin` (its path) names it in errors. Anything
    /// but a cache of this version is an error, never half read.
    pub fn from_json(text: &str, origin: &str) -> Result<TuningCache> {
        let bad = |reason: String| Error::BadFile {
            path: origin.to_string(),
            reason,
        };
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        match v.get("skylight_tuning").and_then(|n| n.as_u64()) {
            Some(n) if n == u64::from(VERSION) => {}
            Some(n) => return Err(bad(format!("version {n}, this build reads {VERSION}"))),
            None => return Err(bad("not a tuning cache (no `skylight_tuning`)".into())),
        }
        serde_json::from_value(v).map_err(|e| bad(e.to_string()))
    }

    /// Pretty JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The entry of `unit` measured on exactly `device`.
    pub fn entry(&self, device: &DeviceKey, unit: &Unit) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.device.same(device) && e.unit == *unit)
    }

    /// The entry of `unit` measured on exactly `device`, to change.
    pub fn entry_mut(&mut self, device: &DeviceKey, unit: &Unit) -> Option<&mut Entry> {
        self.entries
            .iter_mut()
            .find(|e| e.device.same(device) && e.unit == *unit)
    }

    /// The entry of `unit` on `device`, made (with `make`) if absent.
    pub fn entry_or_insert(
        &mut self,
        device: &DeviceKey,
        unit: &Unit,
        make: impl FnOnce() -> Entry,
    ) -> &mut Entry {
        if self.entry(device, unit).is_none() {
            self.entries.push(make());
        }
        let i = self
            .entries
            .iter()
            .position(|e| e.device.same(device) && e.unit == *unit)
            .unwrap_or(self.entries.len() - 1);
        &mut self.entries[i]
    }

    /// Reads the cache at `path`: an empty one where there is no file, an
    /// error (naming the path) where the file is not a cache.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load(path: &std::path::Path) -> Result<TuningCache> {
        match std::fs::read_to_string(path) {
            Ok(text) => TuningCache::from_json(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TuningCache::new()),
            Err(e) => Err(Error::BadFile {
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    /// Writes the cache to `path` atomically (its folder made if missing).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn save(&self, path: &std::path::Path) -> Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        crate::record::write_atomic(path, &self.to_json())
    }
}

/// The tuning cache's default place: `skylight/tuning.json` in the user's
/// cache folder (`$XDG_CACHE_HOME`, else `~/.cache`; `~/Library/Caches`
/// on macOS, `%LOCALAPPDATA%` on Windows); `None` where none is known.
#[cfg(not(target_arch = "wasm32"))]
pub fn default_path() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let home = || var("HOME").map(PathBuf::from);
    let base = var("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| {
        if cfg!(windows) {
            var("LOCALAPPDATA").map(PathBuf::from)
        } else if cfg!(target_os = "macos") {
            home().map(|h| h.join("Library/Caches"))
        } else {
            home().map(|h| h.join(".cache"))
        }
    })?;
    Some(base.join("skylight").join("tuning.json"))
}
