//! Reference results built into the app: the committed device runs of
//! `benchmarks/`, so the desktop app and the web page can overlay a known
//! GPU next to the user's own without a file to find or upload.

use skylight_core::record::{ResultFile, ResultRecord};
use skylight_core::roofline::Roofline;

/// One device run: its name and the result files it consists of.
pub struct Reference {
    /// Shown on the button and as the overlay's name.
    pub name: &'static str,
    files: &'static [(&'static str, &'static str)],
}

macro_rules! run_files {
    ($dir:literal: $($file:literal),+ $(,)?) => {
        &[$(($file, include_str!(concat!("../../benchmarks/", $dir, "/", $file)))),+]
    };
}

/// Every built-in reference, newest first.
pub const REFERENCES: &[Reference] = &[
    Reference {
        name: "NVIDIA H100 (Vulkan + native CUDA), 2026-11-23",
        files: run_files!("nvidia-h100-native-2026-11-23-b":
            "stream-skylight-1.json", "stream-native.json", "peak-skylight.json",
            "gpp-skylight-1.json", "gpp-native.json", "snap-skylight-1.json", "snap-native.json",
            "lbm-skylight-1.json", "lbm-native.json", "milc-skylight-1.json", "milc-native.json"),
    },
    Reference {
        name: "NVIDIA H100 (Vulkan + native CUDA: su3, CoMD), 2026-11-23",
        files: run_files!("nvidia-h100-native-2026-11-23-a":
            "stream-skylight-1.json", "su3-skylight-1.json", "su3-native.json",
            "comd-skylight-1.json", "comd-skylight-2.json", "comd-native.json"),
    },
    Reference {
        name: "NVIDIA H200 (Vulkan), 2026-11-23",
        files: run_files!("nvidia-h200-vulkan-2026-11-23":
            "stream.json", "peak.json", "df64-pass4-peak.json", "su3.json", "gpp-pass5.json",
            "lbm.json", "milc.json", "comd.json", "comd-large-f32-force.json",
            "comd-large-f64-df64.json", "snap.json"),
    },
    Reference {
        name: "NVIDIA H200 (Vulkan), 2026-11-22",
        files: run_files!("nvidia-h200-vulkan-2026-11-22":
            "stream.json", "peak.json", "su3.json", "gpp.json", "lbm.json", "milc.json",
            "milc-dslash-fused.json", "comd.json", "comd-large-f64.json", "snap.json"),
    },
    Reference {
        name: "NVIDIA H100 (Vulkan), 2026-11-22",
        files: run_files!("nvidia-h100-vulkan-2026-11-22":
            "stream.json", "peak.json", "su3.json", "gpp.json"),
    },
];

impl Reference {
    /// The run's files merged into one, with the roofline of its Skylight
    /// stream and peak records (see [`skylight_roofline`]).
    pub fn load(&self) -> Result<ResultFile, String> {
        let mut records = Vec::new();
        for (file, text) in self.files {
            let f = ResultFile::from_json(text, file).map_err(|e| e.to_string())?;
            records.extend(f.records);
        }
        let roofline = skylight_roofline(&records);
        Ok(ResultFile::new(records, roofline))
    }
}

/// The roofline measured by `records`' Skylight runs. Native baseline
/// records never define a ceiling (core's efficiency and portability tables
/// rate everything against what portable code measured), and a file that
/// starts with one would otherwise name the roofline after the native
/// backend.
pub fn skylight_roofline(records: &[ResultRecord]) -> Option<Roofline> {
    let own: Vec<ResultRecord> = records
        .iter()
        .filter(|r| r.native.is_none())
        .cloned()
        .collect();
    Roofline::from_records(&own)
}

#[cfg(test)]
mod tests {
    use super::REFERENCES;

    #[test]
    fn every_reference_parses_and_has_a_roofline() {
        for r in REFERENCES {
            let f = r.load().expect(r.name);
            assert!(!f.records.is_empty(), "{}", r.name);
            let roof = f.roofline.expect(r.name);
            assert_eq!(roof.platform.backend, "vulkan", "{}", r.name);
        }
    }

    #[test]
    fn native_references_carry_native_records() {
        let native: Vec<_> = REFERENCES
            .iter()
            .filter(|r| r.name.contains("native"))
            .collect();
        assert_eq!(native.len(), 2);
        for r in native {
            let f = r.load().expect(r.name);
            assert!(f.records.iter().any(|x| x.native.is_some()), "{}", r.name);
            assert!(f.records.iter().any(|x| x.native.is_none()), "{}", r.name);
        }
    }
}
