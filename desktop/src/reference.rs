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
    // Wave 2 on the H100: each app's Skylight and native records come from
    // one device call, but the calls differ between apps (stream, peak,
    // gpp, comd: section (f) call 2; su3: (f) call 7; snap: (f) call 8;
    // lbm: (j) call 5; milc: (l) call 13). The roofline is call 2's: only
    // its stream and peak files are included. The folder's README.md names
    // each file's archive, call and build.
    Reference {
        name: "NVIDIA H100 (Vulkan + native CUDA), wave 2, 2026-11-26/27",
        files: run_files!("nvidia-h100-wave2-2026-11-27-reference":
            "f-call2-stream-skylight-1.json", "f-call2-stream-native.json",
            "f-call2-peak-skylight.json", "f-call2-gpp-skylight-1.json",
            "f-call2-gpp-native.json", "f-call2-comd-skylight-1.json",
            "f-call2-comd-skylight-2.json", "f-call2-comd-native.json",
            "f-call7-su3-skylight-1.json", "f-call7-su3-native.json",
            "f-call8-snap-skylight-1.json", "f-call8-snap-native.json",
            "j-call5-lbm-skylight-1.json", "j-call5-lbm-native.json",
            "l-call13-milc-skylight-1.json", "l-call13-milc-native-imported-here.json"),
    },
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
    use super::{REFERENCES, Reference, skylight_roofline};
    use skylight_core::record::{ResultFile, ResultRecord};

    /// `r`'s records, file by file.
    fn files(r: &Reference) -> Vec<(&'static str, Vec<ResultRecord>)> {
        r.files
            .iter()
            .map(|(name, text)| {
                let f = ResultFile::from_json(text, name).expect(name);
                (*name, f.records)
            })
            .collect()
    }

    fn wave2() -> &'static Reference {
        REFERENCES
            .iter()
            .find(|r| r.name.contains("wave 2"))
            .expect("the wave-2 reference")
    }

    #[test]
    fn every_reference_parses_and_has_a_roofline() {
        for r in REFERENCES {
            let f = r.load().expect(r.name);
            assert!(!f.records.is_empty(), "{}", r.name);
            let roof = f.roofline.expect(r.name);
            assert_eq!(roof.platform.backend, "vulkan", "{}", r.name);
        }
    }

    /// A reference says "native" in its name exactly when it carries native
    /// records, and then Skylight's records too.
    #[test]
    fn native_references_carry_native_records() {
        let mut native = 0;
        for r in REFERENCES {
            let f = r.load().expect(r.name);
            let has_native = f.records.iter().any(|x| x.native.is_some());
            assert_eq!(r.name.contains("native"), has_native, "{}", r.name);
            if has_native {
                native += 1;
                assert!(f.records.iter().any(|x| x.native.is_none()), "{}", r.name);
            }
        }
        assert!(native >= 3, "{native} native references");
    }

    #[test]
    fn wave2_reference_pairs_every_app() {
        let r = wave2();
        assert!(std::ptr::eq(r, &REFERENCES[0]), "newest first");
        let f = r.load().expect(r.name);
        for app in ["stream", "gpp", "comd", "su3", "snap", "lbm", "milc"] {
            let of_app = || f.records.iter().filter(move |x| x.case.app == app);
            assert!(of_app().any(|x| x.native.is_some()), "{app}: native");
            assert!(of_app().any(|x| x.native.is_none()), "{app}: Skylight");
        }
        assert!(f.records.iter().any(|x| x.case.app == "peak"));
        assert!(f.records.iter().all(|x| x.validation.passed), "{}", r.name);
    }

    /// The merged records' roofline is call 2's: its stream and peak files
    /// are the only ones with stream or peak records, and the ceilings are
    /// those of those two files alone.
    #[test]
    fn wave2_roofline_is_call_2s() {
        let r = wave2();
        let mut ceiling_records = Vec::new();
        for (name, records) in files(r) {
            let ceilings: Vec<_> = records
                .into_iter()
                .filter(|x| x.case.app == "stream" || x.case.app == "peak")
                .collect();
            if !ceilings.is_empty() {
                assert!(name.starts_with("f-call2-"), "{name}");
                ceiling_records.extend(ceilings);
            }
        }
        let call2 = skylight_roofline(&ceiling_records).expect("call 2's roofline");
        let merged = r.load().expect(r.name).roofline.expect(r.name);
        assert_eq!(merged.platform, call2.platform);
        assert_eq!(merged.bandwidth, call2.bandwidth);
        assert_eq!(merged.compute, call2.compute);
        assert_eq!(merged.compute.len(), 2, "f32 and f64 FMA peaks");
    }
}
