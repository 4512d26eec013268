//! Unit tests of the lbm app: the CPU reference, checks, the model and cases.

use super::*;

fn params(kernel: KernelName, l: u64, steps: u64, init: Init) -> Params {
    Params {
        precision: Precision::F64,
        kernel,
        layout: LayoutName::Soa,
        vvl: 1,
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
