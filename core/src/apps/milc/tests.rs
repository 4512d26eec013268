//! Unit tests of the milc app: the CPU reference, checks, the model and cases.

use super::reference::{MilcCpu, Setup};
use super::*;

fn params(kernel: KernelName) -> Params {
    Params {
        precision: Precision::F64,
        kernel,
        layout: LayoutName::Soa,
        complex: Parts::Split,
        vvl: 1,
        wg: 64,
        block: [1, 1, 1],
        tile: 1,
        operator: Operator::Split,
        reconstruct: Reconstruct::Full,
        sign: Sign::Minus,
        l: 3,
        t: 4,
        sites: 108,
        kappa: 0.12,
        tol: 1e-12,
        iterations: 200,
        buffer_kib: 0,
    }
}

#[test]
fn cpu_reference_validates_every_kernel() {
    for &kernel in KernelName::ALL {
        let mut k = MilcCpu::new(&params(kernel));
        k.run();
        let v = k.validate();
        assert!(v.passed, "{kernel}: {}", v.detail);
        assert!(k.model().bytes > 0.0, "{kernel}");
    }
}

#[test]
fn a_wrong_or_unwritten_value_fails() {
    let s = Setup::new(&params(KernelName::Insert), Precision::F64);
    let mut got = s.expected();
    assert!(s.check_fields(&got, Precision::F64).passed);
    got[0][5] = f64::NAN;
    assert!(!s.check_fields(&got, Precision::F64).passed);
    got[0][5] = s.expected()[0][5] + 1e-9;
    assert!(!s.check_fields(&got, Precision::F64).passed);
    let cg = Setup::new(&params(KernelName::Cg), Precision::F64);
    let zero = vec![0.0; cg.inputs[0].len()];
    assert!(!cg.check_solve(&zero, 5.0, 1e-13, true).passed);
}

#[test]
fn model_of_dslash_is_the_sum_of_its_split() {
    let full = Reconstruct::Full;
    let m = case_model(KernelName::Dslash, false, full, 10, 1, Precision::F32);
    // 648 reals and 1344 FLOPs per site (MILC counts 1320); the fused kernel's
    // minimum traffic is 120 reals.
    assert_eq!(m.bytes, 648.0 * 4.0 * 10.0);
    assert_eq!(m.flops, 1344.0 * 10.0);
    let f = case_model(KernelName::DslashFused, false, full, 10, 1, Precision::F32);
    assert_eq!((f.bytes, f.flops), (120.0 * 4.0 * 10.0, m.flops));
    // Links as two rows: 24 reals fewer a site (48 fewer in the split,
    // which reads them twice), 42 FLOPs more a link read (8 a site).
    let rows = Reconstruct::Rows;
    let r = case_model(KernelName::DslashFused, false, rows, 10, 1, Precision::F32);
    assert_eq!(
        (r.bytes, r.flops),
        (96.0 * 4.0 * 10.0, (1344.0 + 8.0 * 42.0) * 10.0)
    );
    let rs = case_model(KernelName::Dslash, false, rows, 10, 1, Precision::F32);
    assert_eq!((rs.bytes, rs.flops), (600.0 * 4.0 * 10.0, r.flops));
    let cg = |fused: bool, iterations: u64| {
        case_model(KernelName::Cg, fused, full, 10, iterations, Precision::F32).bytes
    };
    // 7 applications of M, each split (a Dslash and a multiply-add) or one
    // 120-real pass; per iteration r' (72 reals) and x, p (120); at the
    // start a copy (72) and a zero fill (24).
    let rest = (3.0 * (72.0 + 120.0) + 72.0 + 24.0) * 40.0;
    assert_eq!(cg(false, 3), 7.0 * (m.bytes + 72.0 * 40.0) + rest);
    assert_eq!(cg(true, 3), 7.0 * f.bytes + rest);
    // Reals a site per iteration: 2 x 120 + 72 + 120 fused (the CUDA
    // port's 480 less its two re-reads of p, for <p, A p> and for x's
    // update apart from p's), and 2 x
    // (648 + 72) + 72 + 120 split; before the fused updates they were 696
    // and 1752.
    assert_eq!(cg(true, 4) - cg(true, 3), 432.0 * 40.0);
    assert_eq!(cg(false, 4) - cg(false, 3), 1632.0 * 40.0);
    // As two rows, 24 reals fewer for each kernel a step that reads links:
    // two one-pass M, or four link products of the split.
    let cg_rows = |fused: bool, iterations: u64| {
        case_model(KernelName::Cg, fused, rows, 10, iterations, Precision::F32).bytes
    };
    assert_eq!(cg_rows(true, 4) - cg_rows(true, 3), (432.0 - 48.0) * 40.0);
    assert_eq!(
        cg_rows(false, 4) - cg_rows(false, 3),
        (1632.0 - 96.0) * 40.0
    );
}

#[test]
fn sizes_kappa_and_layouts_are_checked() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        max_storage_binding: 1 << 27,
        max_buffer: 1 << 28,
        max_storage_buffers: 8,
        ..Default::default()
    };
    let ok = Request::default()
        .set("size", "small")
        .set("kernel", "dslash,cg")
        .set("layout", "aos,aosoa-4");
    let cases = Milc.cases(&ok, &caps).expect("cases");
    assert_eq!(cases.len(), 3 * 2 * 2);
    let both = ok.clone().set("operator", "split,fused");
    // Only the solve is swept over the operator, only dslash over the sign.
    assert_eq!(Milc.cases(&both, &caps).expect("cases").len(), 3 * 3 * 2);
    let signs = both.set("sign", "plus,minus");
    let cases = Milc.cases(&signs, &caps).expect("cases");
    assert_eq!(cases.len(), 3 * 4 * 2);
    assert!(cases.iter().any(|c| c.variant == "aos/vvl1/wg128/minus"));
    let pairs = Milc
        .cases(&signs.clone().set("complex", "split,pairs"), &caps)
        .expect("cases");
    assert_eq!(pairs.len(), 2 * cases.len());
    assert!(
        pairs
            .iter()
            .any(|c| c.variant == "aosoa-4/vvl1/wg128/pairs/block2x2x2/tile4/fused")
    );
    assert_eq!(cases[0].text("sites"), "512");
    for c in &cases {
        assert_eq!(&Params::try_from(c).expect("parses").case(), c);
    }
    // Only the kernels that read links are swept over their form, and
    // auto beside the form it resolves to runs once.
    let forms = Request::default()
        .set("size", "small")
        .set("kernel", "extract,dslash-fused")
        .set("reconstruct", "auto,18,12")
        .precisions(&[Precision::F32, Precision::Df64]);
    let cases = Milc.cases(&forms, &caps).expect("cases");
    let variants: Vec<(String, String)> = cases
        .iter()
        .map(|c| (format!("{} {}", c.kernel, c.precision), c.variant.clone()))
        .collect();
    let want = |k: &str, v: &str| variants.contains(&(k.to_string(), v.to_string()));
    assert_eq!(cases.len(), 2 * (1 + 2), "{variants:?}");
    assert!(want(
        "dslash-fused f32",
        "soa/vvl1/wg128/block2x2x2/tile4/r12"
    ));
    assert!(want("dslash-fused df64", "soa/vvl1/wg128/block2x2x2/tile4"));
    assert!(want("extract f32", "soa/vvl1/wg128"));
    let auto = Milc.cases(&forms.clone().set("reconstruct", "auto"), &caps);
    let resolved: Vec<String> = auto
        .expect("cases")
        .iter()
        .map(|c| c.text("reconstruct").to_string())
        .collect();
    assert_eq!(resolved, ["18", "12", "18", "18"]);
    assert_eq!(parse_lattice("6x12").ok(), Some((6, 12)));
    assert_eq!(parse_lattice("5").ok(), Some((5, 10)));
    for (k, v) in [
        ("size", "1x8"),
        ("size", "9223372036854775807"),
        ("size", "100000"),
        ("size", "big"),
        ("kappa", "0.2"),
        ("kappa", "x"),
        ("tol", "2"),
        ("wg", "96"),
        ("layout", "aosoa-3"),
        ("complex", "interleaved"),
        ("reconstruct", "8"),
    ] {
        match Milc.cases(&Request::default().set(k, v), &caps) {
            Err(crate::Error::BadParameter { name, .. }) => assert_eq!(name, k, "{k}={v}"),
            other => panic!("{k}={v}: {other:?}"),
        }
    }
}

/// The plan builds the kernels for the case's lattice and launches one
/// invocation per VVL sites; fields over the binding limit split over
/// buffers, and what no split fits is an error naming the limit.
#[test]
fn plans_dispatch_every_site_and_split_what_a_binding_cannot_hold() {
    let caps = Capabilities {
        max_storage_binding: 1 << 20,
        max_buffer: 1 << 30,
        max_storage_buffers: 128,
        max_workgroups_per_dim: 65535,
        ..Default::default()
    };
    let p = Params {
        layout: LayoutName::Aosoa4,
        complex: Parts::Pairs,
        vvl: 2,
        ..params(KernelName::Dslash)
    };
    let plan = gpu::Plan::new(&p, &caps).expect("plan");
    assert_eq!(plan.dispatch, (1, 1)); // 108 sites, 54 invocations, wg 64
    let b = &plan.build;
    assert_eq!((b.l, b.t, b.layout.sal, b.layout.width), (3, 4, 4, 2));
    assert_eq!(b.count(codegen::Field::Links), 1);
    // 16^4 sites in f64: a spinor is 12 MiB, a pair of its reals 1 MiB.
    let sized = |l: u64, t: u64| Params {
        l,
        t,
        sites: l.pow(3) * t,
        ..p
    };
    let big = gpu::Plan::new(&sized(16, 16), &caps).expect("split");
    assert_eq!(big.build.count(codegen::Field::Spinor), 12);
    assert_eq!(big.build.count(codegen::Field::Links), 36);
    // More buffers than a kernel may bind.
    let few = Capabilities {
        max_storage_buffers: 8,
        ..caps.clone()
    };
    let limit = |r: crate::Result<gpu::Plan>| match r {
        Err(crate::Error::OverLimit { limit, .. }) => limit,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        limit(gpu::Plan::new(&sized(16, 16), &few)),
        "max_storage_buffers_per_shader_stage"
    );
    // One pair of reals over the binding.
    assert_eq!(
        limit(gpu::Plan::new(&sized(20, 20), &caps)),
        "max_storage_buffer_binding_size"
    );
    // Over the device's memory: a CG of 8^4 sites holds 7 spinors and the links.
    let small_memory = Capabilities {
        device_memory: Some(20 << 20),
        ..caps.clone()
    };
    let cg = Params {
        kernel: KernelName::Cg,
        operator: Operator::Fused,
        ..sized(12, 12)
    };
    assert_eq!(limit(gpu::Plan::new(&cg, &small_memory)), "device memory");
    let e = fit::fits(&cg, &small_memory).expect_err("too large");
    assert!(
        e.to_string()
            .contains("at T = 12, the largest that fits is L = 9"),
        "{e}"
    );
    let nine = Params {
        l: 9,
        sites: 9 * 9 * 9 * 12,
        ..cg
    };
    assert!(fit::fits(&nine, &small_memory).is_ok());
    // buffer-kib splits below the adapter's limit.
    let capped = Params {
        buffer_kib: 1024,
        ..sized(8, 8)
    };
    let roomy = Capabilities {
        max_storage_binding: 1 << 30,
        ..caps
    };
    let whole = gpu::Plan::new(&sized(8, 8), &roomy).expect("whole");
    assert_eq!(whole.build.count(codegen::Field::Links), 1);
    let split = gpu::Plan::new(&capped, &roomy).expect("split");
    assert_eq!(split.build.count(codegen::Field::Links), 3);
}

#[test]
fn issued_bytes_count_every_neighbour_the_one_pass_operators_read() {
    let full = Reconstruct::Full;
    // 8 neighbours' spinors, 8 links, one spinor out: 360 reals a site,
    // three times the 120 each datum once.
    assert_eq!(super::model::issued_per_site("dslash_fused", full), 360);
    let issued = case_issued(KernelName::DslashFused, false, full, 10, 1, Precision::F32);
    assert_eq!(issued, 360.0 * 4.0 * 10.0);
    // M also reads the site's own spinor; kernels that read each datum
    // once request what they move.
    assert_eq!(super::model::issued_per_site("m_fused", full), 384);
    let axpy = case_issued(KernelName::Axpy, false, full, 10, 1, Precision::F64);
    assert_eq!(
        axpy,
        case_model(KernelName::Axpy, false, full, 10, 1, Precision::F64).bytes
    );
}

#[test]
fn a_module_covers_one_kind_of_sites() {
    // A hop module's sites are its dispatch's part, an own module's a
    // rank's own sites: `spec` gives each one `part_site`, never both.
    for m in codegen::MODULES {
        assert!(!(m.hop && m.own), "{}", m.name);
    }
    let own: Vec<&str> = codegen::MODULES
        .iter()
        .filter(|m| m.own)
        .map(|m| m.name)
        .collect();
    assert_eq!(own, ["axpy", "update", "dot"]);
}
