//! Unit tests of the lbm app: the CPU reference, checks, the model and cases.

use super::*;

pub(super) fn params(kernel: KernelName, l: u64, steps: u64, init: Init) -> Params {
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
        check: Check::Whole,
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

/// Distributions are issued as the model moves them; each collision adds
/// the 8 coefficient loads, propagation none.
#[test]
fn issued_bytes_add_the_coefficients_to_each_collision() {
    let (sites, steps, p) = (1000, 2, Precision::F32);
    let propagate = model(KernelName::Propagate, sites, steps, p).bytes;
    assert_eq!(
        issued_bytes(KernelName::Propagate, sites, steps, p),
        propagate
    );
    let fused = model(KernelName::Fused, sites, steps, p).bytes;
    let coef = 8.0 * 4.0 * 2000.0;
    assert_eq!(
        issued_bytes(KernelName::Fused, sites, steps, p),
        fused + coef
    );
    let step = model(KernelName::Step, sites, steps, p).bytes;
    assert_eq!(issued_bytes(KernelName::Step, sites, steps, p), step + coef);
}

/// Limits as lavapipe reports them (a 128 MiB binding, 8 storage buffers
/// a kernel), with 1 GiB of device memory.
fn lavapipe_like() -> Capabilities {
    Capabilities {
        max_workgroup_invocations: 256,
        max_workgroup_storage: 16384,
        max_storage_binding: 128 << 20,
        max_buffer: 1 << 30,
        max_storage_buffers: 8,
        device_memory: Some(1 << 30),
        ..Default::default()
    }
}

#[test]
fn sizes_and_layouts_are_checked() {
    let caps = lavapipe_like();
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

/// A field over a binding is split by groups of velocities, as few as fit;
/// one that no split fits is refused before any work, naming the largest
/// box that fits and why.
#[test]
fn large_fields_split_over_bindings_up_to_the_device_memory() {
    let caps = lavapipe_like();
    let groups = |l: u64, precision: Precision| {
        let p = Params {
            precision,
            ..params(KernelName::Fused, l, 1, Init::Random)
        };
        fields(&p, p.sites, &caps).map(|g| (g.count(), g.per))
    };
    // 8 MiB a velocity at L = 128 in f32: 16 fit a binding, 19 need two.
    assert_eq!(groups(128, Precision::F32).expect("f32"), (2, 10));
    assert_eq!(groups(128, Precision::Df64).expect("df64"), (3, 7));
    assert_eq!(groups(64, Precision::F64).expect("one"), (1, 19));
    // Bindings: 2 x 4 + 1 = 9 over 8 at L = 160 in f64 (15.6 MiB a velocity).
    assert!(matches!(
        groups(160, Precision::F64),
        Err(Error::OverLimit {
            limit: "max_storage_buffers_per_shader_stage",
            ..
        })
    ));
    let refused = |caps: &Capabilities, size: &str, precision: Precision| {
        let req = Request::default()
            .set("size", size)
            .precisions(&[precision]);
        Lbm.cases(&req, caps)
            .map(|_| ())
            .expect_err("refused")
            .to_string()
    };
    let e = refused(&caps, "256", Precision::F32);
    assert!(
        e.contains("L = 256 in f32")
            && e.contains("max_storage_buffers_per_shader_stage")
            && e.contains("the largest box that fits is L = 168"),
        "{e}"
    );
    let roomy = Capabilities {
        max_storage_buffers: 64,
        ..caps.clone()
    };
    let e = refused(&roomy, "256", Precision::F32);
    assert!(e.contains("device memory") && e.contains("L = 185"), "{e}");
    let e = refused(&roomy, "512", Precision::Df64);
    assert!(
        e.contains("max_storage_buffer_binding_size") && e.contains("L = 147"),
        "{e}"
    );
    let req = Request::default()
        .set("size", "185")
        .precisions(&[Precision::F32]);
    assert!(Lbm.cases(&req, &roomy).is_ok());
    // Past a whole reference, the check is a sample, whose cones bound
    // the steps a run.
    let big = Capabilities {
        device_memory: Some(8 << 30),
        ..roomy
    };
    let req = Request::default().set("size", "242");
    assert!(Lbm.cases(&req, &big).is_ok());
    assert!(Lbm.cases(&req.clone().set("steps", "10"), &big).is_ok());
    let most = super::check::max_sampled_steps();
    let e = Lbm
        .cases(&req.set("steps", (most + 1).to_string()), &big)
        .map(|_| ())
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("sample") && e.contains(&format!("at most {most} steps")),
        "{e}"
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
    let caps = lavapipe_like();
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
