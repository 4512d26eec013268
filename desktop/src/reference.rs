//! Reference results built into the app: the committed device runs of
//! `benchmarks/reference/`, so the desktop app and the web page can overlay a known
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
    // milc alone on the H100, from one device call of section (r)
    // (5c8cc5a's build, 4e2e1fa's recipe and port): Skylight and the CUDA
    // port in its fastest orders, the links whole and as two rows, the
    // roofline the call's own. The folder's README.md says what each file
    // holds.
    Reference {
        name: "NVIDIA H100 (Vulkan + native CUDA port), milc links whole and as two rows, 2026-11-28",
        files: run_files!("reference/nvidia-h100-milc":
            "r-call3-peak-skylight.json", "r-call3-bandwidth-skylight.json",
            "r-call3-milc-skylight-1.json", "r-call3-milc-skylight-2.json",
            "r-call3-milc-skylight-3.json", "r-call3-milc-skylight-4.json",
            "r-call3-milc-native.json"),
    },
    // Wave 2 on the H100 timed with pass timestamps (a047b78: no query
    // reset inside the timed interval, so lone runs read 4.5-6 us shorter
    // than the encoder-timed reference below). Each app's Skylight and
    // native records come from one device call of section (n), the calls
    // differing between apps (comd: call 3; milc: call 4; stream, peak,
    // su3, lbm: call 5). The roofline is call 5's: only its stream and peak
    // files are included. milc's native file was converted from the call's
    // log with `model=dslash-fused` added to the port's dslash lines, as
    // 44d1015's port prints them. gpp and snap come from section (o), call
    // 1 (c2802fc's build, whose kernels and timing are a047b78's), as
    // section (n) made no Kokkos builds. The folder's README.md names each
    // file's archive, call and build.
    Reference {
        name: "NVIDIA H100 (Vulkan + native CUDA), wave 2 pass-timed, 2026-11-27",
        files: run_files!("reference/nvidia-h100":
            "n-call5-stream-skylight-1.json", "n-call5-stream-native.json",
            "n-call5-peak-skylight.json", "n-call5-su3-skylight-1.json",
            "n-call5-su3-native.json", "n-call5-lbm-skylight-1.json",
            "n-call5-lbm-native.json", "n-call3-comd-skylight-1.json",
            "n-call3-comd-skylight-2.json", "n-call3-comd-skylight-3.json",
            "n-call3-comd-native.json", "n-call4-milc-skylight-1.json",
            "n-call4-milc-skylight-2.json", "n-call4-milc-native-converted-here.json",
            "o-call1-gpp-skylight-1.json", "o-call1-gpp-native.json",
            "o-call1-snap-skylight-1.json", "o-call1-snap-native.json"),
    },
    // Wave 2 on the H100 (encoder timestamps): each app's Skylight and native records come from
    // one device call, but the calls differ between apps (stream, peak,
    // gpp, comd: section (f) call 2; su3: (f) call 7; snap: (f) call 8;
    // lbm: (j) call 5; milc: (l) call 13). The roofline is call 2's: only
    // its stream and peak files are included. The folder's README.md names
    // each file's archive, call and build.
    Reference {
        name: "NVIDIA H100 (Vulkan + native CUDA), wave 2, 2026-11-26/27",
        files: run_files!("reference/older/nvidia-h100-2026-11-27-encoder":
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
        files: run_files!("reference/older/nvidia-h100-2026-11-23-b":
            "stream-skylight-1.json", "stream-native.json", "peak-skylight.json",
            "gpp-skylight-1.json", "gpp-native.json", "snap-skylight-1.json", "snap-native.json",
            "lbm-skylight-1.json", "lbm-native.json", "milc-skylight-1.json", "milc-native.json"),
    },
    Reference {
        name: "NVIDIA H200 (Vulkan), 2026-11-23",
        files: run_files!("reference/nvidia-h200":
            "stream.json", "peak.json", "df64-pass4-peak.json", "su3.json", "gpp-pass5.json",
            "lbm.json", "milc.json", "comd.json", "comd-large-f32-force.json",
            "comd-large-f64-df64.json", "snap.json"),
    },
    Reference {
        name: "NVIDIA H100 (Vulkan), 2026-11-22",
        files: run_files!("reference/older/nvidia-h100-2026-11-22":
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

/// The built-in reference called exactly `name`: tests find references by
/// their whole name, since several share words ("wave 2", "native CUDA").
#[cfg(test)]
pub(crate) fn named(name: &str) -> &'static Reference {
    REFERENCES
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no reference named {name:?}"))
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
    use super::{REFERENCES, Reference, named, skylight_roofline};
    use skylight_core::Precision;
    use skylight_core::efficiency;
    use skylight_core::record::{ResultFile, ResultRecord};

    /// The encoder-timed wave-2 reference (sections f, j and l).
    const WAVE2: &str = "NVIDIA H100 (Vulkan + native CUDA), wave 2, 2026-11-26/27";
    /// The pass-timed wave-2 reference (section n).
    const PASS_TIMED: &str = "NVIDIA H100 (Vulkan + native CUDA), wave 2 pass-timed, 2026-11-27";
    /// milc with both link forms beside the port (section r).
    const LINK_FORMS: &str =
        "NVIDIA H100 (Vulkan + native CUDA port), milc links whole and as two rows, 2026-11-28";

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

    /// Asserts that `r`'s roofline is that of the files whose names start
    /// with `call`: they are the only ones with stream or peak records, and
    /// the merged ceilings are those of those files alone.
    fn assert_roofline_is_only(r: &Reference, call: &str) {
        let mut ceiling_records = Vec::new();
        for (name, records) in files(r) {
            let ceilings: Vec<_> = records
                .into_iter()
                .filter(|x| x.case.app == "stream" || x.case.app == "peak")
                .collect();
            if !ceilings.is_empty() {
                assert!(name.starts_with(call), "{name}");
                ceiling_records.extend(ceilings);
            }
        }
        let own = skylight_roofline(&ceiling_records).expect(call);
        let merged = r.load().expect(r.name).roofline.expect(r.name);
        assert_eq!(merged.platform, own.platform);
        assert_eq!(merged.bandwidth, own.bandwidth);
        assert_eq!(merged.compute, own.compute);
        assert_eq!(merged.compute.len(), 2, "f32 and f64 FMA peaks");
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

    /// Tests look references up by their whole name, so no two may share one.
    #[test]
    fn reference_names_are_unique() {
        for (i, r) in REFERENCES.iter().enumerate() {
            assert!(
                REFERENCES[i + 1..].iter().all(|o| o.name != r.name),
                "{}",
                r.name
            );
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
        assert!(native >= 4, "{native} native references");
    }

    #[test]
    fn wave2_reference_pairs_every_app() {
        let r = named(WAVE2);
        // By name, since a const's elements need not share one address.
        assert_eq!(REFERENCES[2].name, WAVE2, "next after the pass-timed one");
        let f = r.load().expect(r.name);
        for app in ["stream", "gpp", "comd", "su3", "snap", "lbm", "milc"] {
            let of_app = || f.records.iter().filter(move |x| x.case.app == app);
            assert!(of_app().any(|x| x.native.is_some()), "{app}: native");
            assert!(of_app().any(|x| x.native.is_none()), "{app}: Skylight");
        }
        assert!(f.records.iter().any(|x| x.case.app == "peak"));
        assert!(f.records.iter().all(|x| x.validation.passed), "{}", r.name);
    }

    /// The merged records' roofline is call 2's of section (f).
    #[test]
    fn wave2_roofline_is_call_2s() {
        assert_roofline_is_only(named(WAVE2), "f-call2-");
    }

    /// The pass-timed reference is the newest. Every app it has rates
    /// Skylight against its native code (an application efficiency, so
    /// runs timed alike paired), comd both as lone runs and as back-to-back
    /// ones.
    #[test]
    fn pass_timed_reference_pairs_every_app_it_has() {
        let r = named(PASS_TIMED);
        assert_eq!(REFERENCES[1].name, PASS_TIMED, "next after the link forms");
        let records = r.load().expect(r.name).records;
        assert!(records.iter().all(|x| x.validation.passed), "{}", r.name);
        // Made by a047b78's build; milc's native file by 44d1015's
        // converter, gpp and snap (section o) by c2802fc's build (the
        // product code is a047b78's, see the README).
        for x in &records {
            let hash = x.git_hash.as_str();
            if x.case.app == "gpp" || x.case.app == "snap" {
                assert_eq!(hash, "c2802fcf6658");
            } else {
                assert!(hash == "a047b78ddaaf" || hash == "44d1015fe0fd", "{hash}");
            }
        }
        assert!(records.iter().any(|x| x.case.app == "peak"));
        let rows = efficiency::rows(&records);
        let paired = |app: &str, back_to_back: bool| {
            rows.iter().any(|row| {
                row.app == app && row.back_to_back == back_to_back && row.application.is_some()
            })
        };
        for app in ["stream", "su3", "lbm", "milc", "comd", "gpp", "snap"] {
            assert!(paired(app, false) || paired(app, true), "{app}");
        }
        assert!(paired("comd", false), "comd: lone runs");
        assert!(paired("comd", true), "comd: back-to-back runs");
    }

    /// The newest reference holds milc in both link forms on both sides,
    /// each port record modelled by Skylight's record of its own form (the
    /// one-pass D moves 96 reals a site with two rows, 120 whole), with the
    /// call's own roofline.
    #[test]
    fn link_forms_reference_models_each_form_as_its_own() {
        let r = named(LINK_FORMS);
        assert_eq!(REFERENCES[0].name, LINK_FORMS, "newest first");
        let records = r.load().expect(r.name).records;
        assert!(records.iter().all(|x| x.validation.passed), "{}", r.name);
        assert!(records.iter().all(|x| x.git_hash == "5c8cc5a7f891"));
        let sites = 32.0f64.powi(3) * 64.0;
        for (form, reals) in [("18", 120.0), ("12", 96.0)] {
            for native in [false, true] {
                let d = records
                    .iter()
                    .find(|x| {
                        x.case.kernel == "dslash-fused"
                            && x.case.precision == Precision::F32
                            && x.native.is_some() == native
                            && x.case.params.get("reconstruct").map(String::as_str) == Some(form)
                    })
                    .unwrap_or_else(|| panic!("{form}, native {native}"));
                assert_eq!(
                    d.model.bytes,
                    reals * 4.0 * sites,
                    "{form}, native {native}"
                );
            }
        }
        assert_roofline_is_only(r, "r-call3-");
    }

    /// Only call 5's stream and peak files are in: the roofline is its.
    #[test]
    fn pass_timed_roofline_is_call_5s() {
        assert_roofline_is_only(named(PASS_TIMED), "n-call5-");
    }

    /// The port's `dslash` rows take the one-pass kernel's model
    /// (`model=dslash-fused` in the converted log), so their architectural
    /// efficiency is below the roofline; with the split's model it read
    /// about 444%.
    #[test]
    fn pass_timed_milc_dslash_port_is_below_the_roofline() {
        let r = named(PASS_TIMED);
        let records = r.load().expect(r.name).records;
        let native: Vec<_> = efficiency::rows(&records)
            .into_iter()
            .filter(|row| row.app == "milc" && row.kernel == "dslash")
            .filter_map(|row| row.native)
            .collect();
        assert!(!native.is_empty(), "the port's dslash rows");
        for n in native {
            let arch = n.architectural.expect("rated against the roofline");
            assert!(arch > 0.0 && arch < 1.0, "{}: {arch}", n.variant);
        }
    }
}
