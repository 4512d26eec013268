//! Unit tests of the lbm app: the CPU reference, checks, the model and cases.

use super::*;

fn params(kernel: KernelName, l: u64, steps: u64, init: Init) -> Params {
    Params {
        precision: Precision::F64,
        kernel,
        layout: LayoutName::Soa,
        vvl: 1,
        pull: Pull::Load,
        wg: 64,
        l,
        sites: l.pow(3),
        steps,
        init,
    }
}

#[test]
fn cpu_reference_conserves_and_decays() {
    for &kernel in KernelName::ALL {
        let mut k = LbmCpu::new(&params(kernel, 4, 3, Init::Random));
        k.run();
        let v = k.validate();
        assert!(v.passed, "{kernel}: {}", v.detail);
    }
    let mut k = LbmCpu::new(&params(KernelName::Fused, 16, 60, Init::Shear));
    k.run();
    let v = k.validate();
    assert!(v.passed && v.detail.contains("shear decay"), "{}", v.detail);
}

#[test]
fn a_wrong_or_unwritten_value_fails() {
    let s = Setup::new(
        &params(KernelName::Fused, 4, 1, Init::Random),
        Precision::F64,
    );
    let want = s.expected();
    let mut got = want.to_vec();
    assert!(s.check(&got, &want, Precision::F64).passed);
    got[7] = f64::NAN;
    assert!(!s.check(&got, &want, Precision::F64).passed);
    got[7] = want[7] * (1.0 + 1e-9);
    assert!(!s.check(&got, &want, Precision::F64).passed);
}

#[test]
fn model_counts_each_pass_over_the_field() {
    let m = model(KernelName::Step, 1000, 2, Precision::F32);
    assert_eq!(m.bytes, 2.0 * 2.0 * 2.0 * 19.0 * 4.0 * 1000.0);
    assert_eq!(m.flops, 225.0 * 2000.0);
    assert_eq!(
        model(KernelName::Propagate, 10, 1, Precision::F64).flops,
        0.0
    );
}

#[test]
fn sizes_and_layouts_are_checked() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        ..Default::default()
    };
    let ok = Request::default()
        .set("size", "small")
        .set("layout", "aos,aosoa-4");
    let cases = Lbm.cases(&ok, &caps).expect("cases");
    assert_eq!(cases.len(), 3 * 4 * 2);
    for c in &cases {
        assert_eq!(&Params::try_from(c).expect("parses").case(), c);
    }
    assert!(
        Lbm.cases(&Request::default().set("size", "700"), &caps)
            .is_err()
    );
    assert!(
        Lbm.cases(&Request::default().set("layout", "aosoa-3"), &caps)
            .is_err()
    );
}

/// Kernels sharing a start share its first collision and propagation, and
/// their references are still exactly those of stepping the start alone.
#[test]
fn shared_stages_give_each_kernel_its_own_reference() {
    let random = params(KernelName::Collide, 4, 1, Init::Random);
    let start = Arc::new(Start::on(
        [4, 4, 4],
        &random,
        Precision::F32,
        &mut fresh_rng(),
    ));
    for steps in [1, 2] {
        for &kernel in KernelName::ALL {
            let setup = Setup::from_start(&params(kernel, 4, steps, Init::Random), start.clone());
            let mut f = start.f0.clone();
            for _ in 0..steps {
                f = step(kernel, &start.lattice, &f);
            }
            assert_eq!(*setup.expected(), f, "{kernel} x {steps}");
        }
    }
}

/// The rows form runs where a workgroup holds whole x rows of every box;
/// elsewhere the error names `pull`, and a row's worth of ten velocities
/// must fit the workgroup memory.
#[test]
fn the_rows_form_needs_workgroups_of_whole_rows() {
    use crate::gpu::Capabilities;
    let caps = Capabilities {
        max_workgroup_storage: 16384,
        ..Default::default()
    };
    let rows = |wg: u32, vvl: u32, l: u64, precision: Precision| {
        let p = Params {
            wg,
            vvl,
            precision,
            pull: Pull::Rows,
            ..params(KernelName::Propagate, l, 1, Init::Random)
        };
        pull::check_rows(&p, l as u32, &[Part::all(p.sites as u32)], &caps)
    };
    assert!(rows(128, 1, 128, Precision::F32).is_ok());
    assert!(rows(128, 1, 128, Precision::F64).is_ok());
    for (wg, vvl, l) in [(96, 1, 128), (128, 2, 128), (30, 1, 6)] {
        match rows(wg, vvl, l, Precision::F32) {
            Err(Error::BadParameter { name, .. }) => assert_eq!(name, "pull"),
            other => panic!("{wg} {vvl} {l}: {other:?}"),
        }
    }
    // Ten velocities move along x: 10 x 256 f32 reals are 10 KiB, in
    // f64 and df64 20 KiB, over this adapter's 16 KiB.
    assert_eq!(codegen::rows_workgroup_reals(256), 2560);
    assert!(rows(256, 1, 128, Precision::F32).is_ok());
    for p in [Precision::F64, Precision::Df64] {
        assert!(matches!(
            rows(256, 1, 128, p),
            Err(Error::OverLimit { needed: 20480, .. })
        ));
    }
}

/// `auto` takes the rows form where a workgroup is one x row, and the
/// load form elsewhere; asked beside the form it resolves to, it runs once.
#[test]
fn auto_takes_rows_where_a_workgroup_is_one_row() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        max_workgroup_storage: 16384,
        ..Default::default()
    };
    let pulls = |req: Request| -> Vec<(String, u32, Pull)> {
        Lbm.cases(&req.set("kernel", "propagate"), &caps)
            .expect("cases")
            .iter()
            .map(|c| {
                let p = Params::try_from(c).expect("parses");
                (c.variant.clone(), p.wg, p.pull)
            })
            .collect()
    };
    let l16 = || {
        Request::default()
            .set("size", "16")
            .precisions(&[Precision::F32])
    };
    let got = pulls(l16().set("wg", "16,32"));
    assert_eq!(got[0], ("soa/vvl1/wg16/rows".to_string(), 16, Pull::Rows));
    assert_eq!(got[1].2, Pull::Load);
    assert_eq!(
        pulls(l16().set("wg", "16").set("vvl", "2"))[0].2,
        Pull::Load
    );
    assert_eq!(
        pulls(l16().set("wg", "16").set("pull", "auto,rows")).len(),
        1
    );
    assert_eq!(
        pulls(l16().set("wg", "16").set("pull", "auto,load")).len(),
        2
    );
    // Collision moves nothing: no form, and `load` in its records.
    let collide = Lbm
        .cases(&l16().set("kernel", "collide").set("wg", "16"), &caps)
        .expect("cases");
    assert_eq!(
        Params::try_from(&collide[0]).expect("parses").pull,
        Pull::Load
    );
}
