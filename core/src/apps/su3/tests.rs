//! Unit tests of the su3 app: references, layouts, cases and parameters.

use super::gpu::encode;
use super::*;

fn case(layout: Layout, l: u64) -> Case {
    Params {
        precision: Precision::F64,
        mapping: Mapping::Site,
        layout,
        wg: 128,
        l,
        sites: l.pow(4),
        buffer_kib: 0,
    }
    .case()
}

/// su3_bench's initialisation gives C = (1, 0) everywhere and checksum 36.
#[test]
fn reference_init_checksum_is_36() {
    let mut k = prepare_cpu_with(&case(Layout::Aos, 2), Init::Reference).expect("cpu");
    k.run();
    let v = k.validate();
    assert!(v.passed, "{}", v.detail);
    assert!(v.detail.contains("checksum"), "{}", v.detail);
    let inputs = Inputs::new(16, Precision::F32, Init::Reference);
    let c = inputs.expected();
    assert!((checksum(c) - 36.0).abs() < 36.0 * 1e-6);
}

/// An unwritten element fails validation.
#[test]
fn poisoned_element_fails() {
    let inputs = Inputs::new(16, Precision::F64, Init::Random);
    let mut got = inputs.expected().to_vec();
    assert!(check(&inputs, |i| got[i], Precision::F64, Init::Random).passed);
    got[100] = f64::NAN;
    assert!(!check(&inputs, |i| got[i], Precision::F64, Init::Random).passed);
}

/// Every element lands where the layout's index says (MILC's padding
/// is zero), and the byte counts follow su3_bench (320 / 640 bytes per
/// MILC site).
#[test]
fn layouts_round_trip_and_count_bytes() {
    let sites = 81;
    let logical: Vec<f64> = (0..sites * SITE_REALS).map(|i| 1.0 + i as f64).collect();
    let p = Precision::F64;
    for &name in Layout::ALL {
        let layout = Strides::new(name, sites as u64);
        let bytes = encode(&layout, &logical, p);
        let back: Vec<f64> = (0..logical.len())
            .map(|i| p.read(&bytes, layout.index(i / SITE_REALS, i % SITE_REALS)))
            .collect();
        assert_eq!(back, logical, "{name}");
        let zeros = p.decode(&bytes).iter().filter(|v| **v == 0.0).count();
        assert_eq!(zeros as u64, layout.reals - logical.len() as u64, "{name}");
    }
    let milc = Strides::new(Layout::AosMilc, 1);
    assert_eq!(milc.site_bytes(Precision::F32), 320);
    assert_eq!(milc.site_bytes(Precision::Df64), 640);
    let soa = Strides::new(Layout::Soa, 1 << 20);
    assert_eq!(soa.site_bytes(Precision::F64), 576);
    let m = model(1 << 20, &milc, Precision::F32);
    assert_eq!(m.flops, 864.0 * (1 << 20) as f64);
}

/// A row's three outputs load its A row once and B's three columns each
/// (15 complex with the stores); an element loads both for itself (7).
#[test]
fn issued_bytes_count_every_load_and_store_of_the_mapping() {
    let sites = 1000;
    let row = issued_bytes(Mapping::Row, sites, Precision::F32);
    assert_eq!(row, (sites * 12 * 15 * 2 * 4) as f64);
    for m in [Mapping::Site, Mapping::Link, Mapping::RowVector] {
        assert_eq!(issued_bytes(m, sites, Precision::F32), row, "{m}");
    }
    let element = issued_bytes(Mapping::Element, sites, Precision::F64);
    assert_eq!(element, (sites * 36 * 7 * 2 * 8) as f64);
    assert_eq!(issued_bytes(Mapping::Pair, sites, Precision::F64), element);
    // Every mapping issues more than the DRAM model moves (A, C and B once).
    let dram = model(sites, &Strides::new(Layout::Soa, sites), Precision::F32).bytes;
    assert!(row > 2.0 * dram, "{row} against {dram}");
}

#[test]
fn cases_cover_the_sweep_and_reject_bad_sizes() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        ..Default::default()
    };
    let req = Request::default()
        .set("size", "4")
        .set("wg", "32,64")
        .precisions(&[Precision::F32]);
    let cases = Su3.cases(&req, &caps).expect("cases");
    // Every mapping on every layout, but row-vector on soa alone.
    let pairs = (Mapping::ALL.len() - 1) * Layout::ALL.len() + 1;
    assert_eq!(cases.len(), pairs * 2);
    assert!(
        cases
            .iter()
            .filter(|c| c.text("mapping") == "row-vector")
            .all(|c| c.text("layout") == "soa")
    );
    assert_eq!(cases[0].variant, "site/aos-milc/wg32");
    assert_eq!(cases[0].text("sites"), "256");
    assert_eq!(cases[0].text("mapping"), "site");
    for c in &cases {
        let p = Params::try_from(c).expect("parses");
        assert_eq!(&p.case(), c);
    }
    for size in ["huge", "100000"] {
        match Su3.cases(&Request::default().set("size", size), &caps) {
            Err(Error::BadParameter { name, .. }) => assert_eq!(name, "size"),
            other => panic!("{size}: {other:?}"),
        }
    }
    // row-vector alone where it cannot run: an odd L, or no soa.
    for (size, layout) in [("3", "soa"), ("4", "aos,aos-milc")] {
        let req = Request::default()
            .set("size", size)
            .set("layout", layout)
            .set("mapping", "row-vector");
        match Su3.cases(&req, &caps) {
            Err(Error::BadParameter { name, .. }) => assert_eq!(name, "mapping"),
            other => panic!("{size} {layout}: {other:?}"),
        }
    }
}

/// `variant` names the mapping, as in the other apps; `mapping` (its
/// first name, and its name in records) still works.
#[test]
fn variant_and_its_alias_mapping_select_the_mapping() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        ..Default::default()
    };
    for name in ["variant", "mapping"] {
        let req = Request::default()
            .set("size", "4")
            .set(name, "element")
            .precisions(&[Precision::F32]);
        let cases = Su3.cases(&req, &caps).expect("cases");
        assert!(
            cases.iter().all(|c| c.text("mapping") == "element"),
            "{name}"
        );
        assert_eq!(cases.len(), 3);
    }
    let both = Request::default()
        .set("variant", "site")
        .set("mapping", "link");
    assert!(matches!(
        Su3.cases(&both, &caps),
        Err(Error::BadParameter { .. })
    ));
    match Su3.cases(&Request::default().set("variant", "diagonal"), &caps) {
        Err(Error::BadParameter { name, .. }) => assert_eq!(name, "variant"),
        other => panic!("{other:?}"),
    }
}
