//! The page from a small set of records: its charts are drawn, one marker
//! per kernel at its best variant, every ceiling labelled apart, failures
//! listed, nothing fetched or scripted.

use super::*;
use crate::Precision;
use crate::app::{Case, Model};
use crate::fixtures;
use crate::native::Statistic;

fn rec(app: &str, kernel: &str, variant: &str, p: Precision, flops: f64, t: f64) -> ResultRecord {
    let case = Case::new(app, kernel, variant, p).param("L", "8");
    let model = Model { flops, bytes: 1e9 };
    fixtures::record(case, "GPU A", "vulkan", model, vec![t, t, t])
}

fn records() -> Vec<ResultRecord> {
    let mut v = vec![
        rec("stream", "triad", "wg256", Precision::F32, 0.0, 0.01),
        // Two compute ceilings of (almost) the same height: both must show.
        rec("peak", "fma", "wg256", Precision::F32, 1e12, 0.1),
        rec("peak", "fma", "wg256", Precision::F64, 0.99e12, 0.1),
        rec("su3", "k", "site", Precision::F32, 4e9, 0.02),
        rec("su3", "k", "link", Precision::F32, 4e9, 0.01),
        rec("su3", "k", "site", Precision::F64, 4e9, 0.04),
        rec("lbm", "step", "aos", Precision::F32, 2e9, 0.03),
    ];
    let mut bad = rec("lbm", "step", "soa", Precision::F32, 2e9, 0.03);
    bad.validation.passed = false;
    bad.validation.detail = "max rel. error 3e-2 at 17".into();
    v.push(bad);
    let mut native = rec("su3", "k", "cuda", Precision::F32, 4e9, 0.008);
    native.platform.backend = "cuda".into();
    native.native = Some(fixtures::native_source(
        "x/su3_bench",
        false,
        Statistic::Median,
    ));
    v.push(native);
    v
}

/// The `y` of each `<text class="label">` in `svg`.
fn label_ys(svg: &str) -> Vec<f64> {
    svg.split("<text ")
        .filter(|t| t.contains("class=\"label\""))
        .filter_map(|t| t.split("y=\"").nth(1)?.split('"').next()?.parse().ok())
        .collect()
}

#[test]
fn best_variant_marks_one_per_kernel_and_precision() {
    let recs = records();
    let roof = Roofline::from_records(&recs).expect("a roofline");
    let m = marks(&roof, false);
    let su3: Vec<&Mark> = m.iter().filter(|m| m.point.app == "su3").collect();
    assert_eq!(su3.len(), 2, "{m:?}");
    let f32 = su3.iter().find(|m| m.point.precision == Precision::F32);
    let f32 = f32.expect("su3 f32");
    assert_eq!((f32.point.variant.as_str(), f32.variants), ("link", 2));
    assert_eq!(marks(&roof, true).len(), roof.points.len());
}

#[test]
fn roofline_labels_every_ceiling_apart() {
    let recs = records();
    let roof = Roofline::from_records(&recs).expect("a roofline");
    let svg = roofline_svg(&roof, &marks(&roof, false), &apps(&recs));
    assert!(svg.contains("f32 FMA: 10000.0 GFLOP/s"), "{svg}");
    assert!(svg.contains("f64 FMA: 9900.0 GFLOP/s"), "{svg}");
    assert!(svg.contains("GB/s"), "{svg}");
    let mut ys = label_ys(&svg);
    ys.sort_by(f64::total_cmp);
    assert!(ys.len() >= 3, "{ys:?}");
    assert!(ys.windows(2).all(|w| w[1] - w[0] >= 12.0), "{ys:?}");
    // One marker per app, kernel and precision drawn: su3 f32, su3 f64, lbm f32
    // (stream and peak are ceilings), plus the legend's two precision shapes.
    assert_eq!(svg.matches("class=\"mark\"").count(), 3 + 2, "{svg}");
}

/// Slope labels that would not fit one row above the plot take turns over
/// as many rows as keep each row's labels apart and over the plot.
#[test]
fn slope_labels_too_many_for_a_row_take_turns_over_rows() {
    let slope = |i: usize| CeilingLine {
        kind: CeilingKind::Slope(crate::roofline::MemoryLevel::L2),
        ends: [(0.01, 1.0), (1.0 + 0.01 * i as f64, 1e5)],
        label: format!("L2: {i}.0 GB/s"),
        title: String::new(),
        edge: Edge::Top,
    };
    let plan = Plan {
        ai: (0.01, 1e3),
        gflops: (1.0, 1e5),
        ceilings: (0..6).map(slope).collect(),
        legend: Vec::new(),
    };
    let (x, _) = plan.axes((100.0, 400.0), (500.0, 100.0));
    assert_eq!(plan.top_rows(300.0, 100.0), 2);
    assert_eq!(plan.top_rows(300.0, 50.0), 1);
    let placed = plan.top_labels(&x, 2, 100.0);
    assert_eq!(placed.len(), 6);
    for row in 0..2 {
        let mut xs: Vec<f64> = placed.iter().filter(|p| p.2 == row).map(|p| p.1).collect();
        xs.sort_by(f64::total_cmp);
        assert_eq!(xs.len(), 3, "{placed:?}");
        assert!(xs.windows(2).all(|w| w[1] - w[0] >= 100.0 - 1e-9), "{xs:?}");
        assert!(xs[0] >= 150.0 - 1e-9 && xs[2] <= 350.0 + 1e-9, "{xs:?}");
    }
}

/// The plan both renderers draw from: every ceiling inside the ranges,
/// the legend keyed by the apps and precisions drawn.
#[test]
fn plan_holds_every_ceiling_and_keys_what_is_drawn() {
    let recs = records();
    let roof = Roofline::from_records(&recs).expect("a roofline");
    let plan = plan(&roof, &marks(&roof, false), &apps(&recs));
    let kinds: Vec<CeilingKind> = plan.ceilings.iter().map(|c| c.kind).collect();
    for k in [
        CeilingKind::Slope(crate::roofline::MemoryLevel::Dram),
        CeilingKind::Roof(Precision::F32),
        CeilingKind::Roof(Precision::F64),
    ] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    for c in &plan.ceilings {
        for (ai, gflops) in c.ends {
            assert!(ai >= plan.ai.0 * 0.999 && ai <= plan.ai.1 * 1.001, "{c:?}");
            assert!(gflops >= plan.gflops.0 * 0.999 && gflops <= plan.gflops.1 * 1.001);
        }
    }
    let keys: Vec<String> = plan.legend.iter().map(Key::text).collect();
    assert_eq!(keys, ["lbm", "su3", "f32", "f64"]);
}

#[test]
fn page_has_every_section_and_no_script() {
    let recs = records();
    let opts = Options {
        title: "Test <report>".into(),
        notes: vec!["skipped x.json: not a result file".into()],
        ..Options::default()
    };
    let page = html(&recs, &opts);
    for want in [
        "<h1>Test &lt;report&gt;</h1>",
        "id=\"devices\"",
        "class=\"roofline\"",
        "id=\"efficiency\"",
        "x/su3_bench",
        "class=\"cascade\"",
        "id=\"validation\"",
        "max rel. error 3e-2 at 17",
        "skipped x.json",
    ] {
        assert!(page.contains(want), "no {want}");
    }
    for banned in ["<script", "http://", "https://"] {
        let outside_ns = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(!outside_ns.contains(banned), "{banned}");
    }
    assert!(!page.contains("id=\"scaling\""), "no scale-out records");
}

/// The results page's PP table holds the kernels every platform ran; a
/// kernel one platform lacks (PP 0 by definition) is listed under it with
/// its efficiencies, not as a row.
#[test]
fn pp_table_rows_are_kernels_every_platform_ran() {
    let on = |gpu: &str, lbm: bool| -> Vec<ResultRecord> {
        records()
            .into_iter()
            .filter(|r| lbm || r.case.app != "lbm")
            .map(|mut r| {
                r.platform.name = gpu.into();
                r
            })
            .collect()
    };
    let (a, b, c) = (on("GPU A", true), on("GPU B", true), on("GPU C", false));
    let set = |title: &str, records| markdown::Set {
        title: title.into(),
        path: title.to_lowercase(),
        records,
    };
    let sets = [set("A", &a), set("B", &b), set("C", &c)];
    let md = markdown::page(&sets, "# Results", "fig").markdown;
    let f32_part = md.split("### f32").nth(1).expect("an f32 PP table");
    assert!(f32_part.contains("| stream/triad |"), "{f32_part}");
    assert!(!f32_part.contains("| lbm/step |"), "{f32_part}");
    assert!(
        f32_part.contains("PP 0, not run on every platform") && f32_part.contains("lbm/step ("),
        "{f32_part}"
    );
}

/// The devices section lists what each device offered: its features and
/// limits where its records hold them, and names a GPU platform whose
/// records predate them; the native code and the CPU platform need none.
#[test]
fn devices_list_the_features_and_limits_recorded() {
    let offers = crate::gpu::DeviceOffers {
        features: vec!["SHADER_F64".into(), "TIMESTAMP_QUERY".into()],
        max_buffer_size: 2 << 30,
        max_storage_buffer_binding_size: 128 << 20,
        max_compute_workgroup_size_x: 1024,
        device_memory: Some(80 << 30),
        ..Default::default()
    };
    let mut recs: Vec<ResultRecord> = records()
        .into_iter()
        .map(|mut r| {
            if r.native.is_none() {
                r.platform.offers = Some(offers.clone());
            }
            r
        })
        .collect();
    let mut cpu = rec("su3", "k", "reference", Precision::F64, 4e9, 1.0);
    cpu.platform = crate::runner::cpu_platform();
    let mut old = rec("stream", "triad", "wg256", Precision::F32, 0.0, 0.02);
    old.platform.name = "GPU B".into();
    recs.extend([cpu, old]);
    let page = html(&recs, &Options::default());
    let features = page
        .split("id=\"features\"")
        .nth(1)
        .and_then(|s| s.split("<h2").next())
        .expect("a features section");
    for want in [
        "GPU A (vulkan)",
        "SHADER_F64, TIMESTAMP_QUERY",
        "max_buffer_size",
        "2 GiB",
        "128 MiB",
        "max_compute_workgroup_size_x",
        "80 GiB",
        "no SUBGROUP",
        "No features and limits recorded for GPU B (vulkan)",
    ] {
        assert!(features.contains(want), "no {want}: {features}");
    }
    for not in ["(cuda)", "CPU reference"] {
        assert!(!features.contains(not), "{not}: {features}");
    }
    // Records without them (every file so far) make no section.
    assert!(!html(&records(), &Options::default()).contains("id=\"features\""));
}
