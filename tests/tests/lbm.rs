//! lbm on the real adapter: every layout x vector length, every kernel in
//! every precision, conservation over many steps, and the shear wave's
//! viscous decay (all checked inside the app's validation).

use skylight_core::app::Request;
use skylight_core::apps::lbm::Lbm;
use skylight_core::gpu::Gpu;
use skylight_core::layout as targetdp;
use skylight_core::runner::Outcome;
use skylight_core::{Error, Precision};
use skylight_tests::{double, precisions, run_validated};

/// Runs `req` and asserts every case ran and validated; returns the details.
fn run_all(gpu: &Gpu, req: &Request, expected_cases: usize) -> Vec<String> {
    run_validated(gpu, &Lbm, req, expected_cases)
        .into_iter()
        .map(|r| r.validation.detail)
        .collect()
}

#[test]
fn every_layout_and_vector_length_validates() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "4")
        .set("kernel", "fused,propagate")
        .set("layout", targetdp::ALL_LAYOUTS)
        .set("vvl", "1,2,4,8")
        .set("wg", "32")
        .precisions(&[Precision::F32]);
    run_all(&gpu, &req, 2 * 7 * 4);
}

/// The rows form (whole x rows a workgroup, the x-shifted values through
/// workgroup memory) in every propagating kernel, layout family and
/// precision over many steps; and the shapes it cannot run, named before
/// any work.
#[test]
fn the_rows_form_validates_and_names_the_shapes_it_cannot_run() {
    let gpu = skylight_tests::gpu();
    let ps = precisions(&gpu);
    let req = Request::default()
        .set("size", "8")
        .set("kernel", "propagate,fused,step")
        .set("layout", "aos,soa,aosoa-8")
        .set("wg", "64")
        .set("steps", "5")
        .set("pull", "rows")
        .precisions(&ps);
    for detail in run_all(&gpu, &req, 3 * 3 * ps.len()) {
        assert!(detail.contains("mass change"), "{detail}");
    }
    // Rows of 8 sites need a workgroup of whole rows; one site an
    // invocation; and 6^3 sites do not fill workgroups of 30 (5 rows).
    let bad = [("8", "12", "1"), ("8", "64", "2"), ("6", "30", "1")];
    for (size, wg, vvl) in bad {
        let req = Request::default()
            .set("size", size)
            .set("kernel", "propagate")
            .set("wg", wg)
            .set("vvl", vvl)
            .set("pull", "rows")
            .precisions(&[Precision::F32]);
        let out = skylight_tests::try_run(&gpu, &Lbm, &req).expect("run");
        assert!(
            matches!(&out[0], Outcome::Failed { error: Error::BadParameter { name, .. }, .. } if name == "pull"),
            "{size} {wg} {vvl}: {out:?}"
        );
    }
}

#[test]
fn every_kernel_conserves_over_many_steps_in_every_precision() {
    let gpu = skylight_tests::gpu();
    let ps = precisions(&gpu);
    let req = Request::default()
        .set("size", "8")
        .set("layout", "aosoa-4")
        .set("vvl", "2")
        .set("steps", "20")
        .precisions(&ps);
    for detail in run_all(&gpu, &req, 4 * ps.len()) {
        assert!(detail.contains("mass change"), "{detail}");
    }
}

#[test]
fn shear_wave_decays_at_the_viscous_rate() {
    let gpu = skylight_tests::gpu();
    let double = double(&gpu);
    let req = Request::default()
        .set("size", "16")
        .set("kernel", "fused,step")
        .set("init", "shear")
        .set("steps", "100")
        .precisions(&[Precision::F32, double]);
    for detail in run_all(&gpu, &req, 4) {
        assert!(detail.contains("shear decay rate"), "{detail}");
    }
    // Too few steps to measure the decay is a failure, not a pass.
    let short = Request::default()
        .set("size", "8")
        .set("kernel", "fused")
        .set("init", "shear")
        .set("steps", "2")
        .precisions(&[Precision::F32]);
    let out = skylight_tests::try_run(&gpu, &Lbm, &short).expect("run");
    assert!(matches!(&out[0], Outcome::Done(r) if !r.validation.passed));
}

/// A field larger than one storage binding (lavapipe's is 128 MiB: L = 128
/// is 152 MiB in f32, 304 MiB in df64) is split over buffers by groups of
/// velocities and validates whole; the sampled check runs the same
/// kernels; a box no split fits is refused before any work, naming the
/// largest that does.
#[test]
fn a_field_over_the_binding_is_split_and_validates() {
    let gpu = skylight_tests::gpu();
    // The smallest box whose f32 field (19 reals a site) is over a binding.
    let l = ((gpu.caps.max_storage_binding / 76) as f64).cbrt() as u64 + 1;
    let req = Request::default()
        .set("size", l.to_string())
        .set("kernel", "fused")
        .precisions(&[Precision::F32, Precision::Df64]);
    for r in run_validated(&gpu, &Lbm, &req, 2) {
        let buffers = r.metrics["field_buffers"];
        assert!(buffers >= 2.0, "{}: {buffers} buffers", r.case.label());
    }
    let sampled = Request::default()
        .set("size", "16")
        .set("kernel", "step,fused")
        .set("check", "sample")
        .precisions(&[Precision::F32]);
    for r in run_validated(&gpu, &Lbm, &sampled, 2) {
        assert!(
            r.validation.detail.contains("a sample of"),
            "{}",
            r.validation.detail
        );
    }
    // Past one step: cubes, each site over its cone (L = 40 holds cubes
    // and cones that do not cover it).
    let cones = sampled
        .set("size", "40")
        .set("steps", "3")
        .set("kernel", "fused");
    for r in run_validated(&gpu, &Lbm, &cones, 1) {
        let detail = &r.validation.detail;
        assert!(
            detail.contains("cubes") && detail.contains("3-step cone"),
            "{detail}"
        );
    }
    let huge = Request::default()
        .set("size", "1600")
        .set("kernel", "fused")
        .precisions(&[Precision::F32]);
    match skylight_tests::try_run(&gpu, &Lbm, &huge) {
        Err(Error::BadParameter { name, reason }) => {
            assert_eq!(name, "size");
            assert!(
                reason.contains("the largest box that fits is L = "),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// The scale-out path on one rank (no MPI: the rank is its own neighbour),
/// through every layout family and every precision, and the rows form over
/// its interior and boundary planes: the halo kernels pack and unpack
/// through the field's layout, and the NaN-poisoned halos fail validation
/// unless every swap lands.
#[test]
fn one_rank_scale_out_swaps_halos_through_every_layout() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "4")
        .set("layout", "aos,soa,aosoa-8")
        .set("vvl", "2")
        .set("steps", "3")
        .precisions(&precisions(&gpu));
    // Planes of 16 sites: whole workgroups of whole rows at wg 16.
    let rows = req
        .clone()
        .set("vvl", "1")
        .set("wg", "16")
        .set("layout", "soa")
        .set("pull", "rows");
    let plan = |req: &Request| {
        skylight_core::runner::plan(&Lbm, req, &gpu.caps, true)
            .expect("plan")
            .cases
    };
    // The check of a field too large to gather: each rank's share of a
    // sample, after one step.
    let sampled = req.clone().set("steps", "1").set("check", "sample");
    // After more steps the sample is cubes, each site checked over its
    // cone: each rank reads the cubes' sites it owns.
    let cones = (req.clone().set("steps", "2").set("check", "sample"))
        .set("layout", "soa")
        .precisions(&[Precision::F32]);
    let cases = [plan(&req), plan(&rows), plan(&sampled), plan(&cones)].concat();
    // With overlap, the interior planes (2 of the 4) are updated during the
    // swap and the boundary planes after it.
    for (case, overlap) in cases.iter().flat_map(|c| [(c, false), (c, true)]) {
        let r = skylight_tests::one_rank_lbm(&gpu, case, overlap);
        let scale = r.scale.expect("scale-out part");
        assert_eq!((scale.ranks, scale.overlap), (1, overlap));
        // Collision alone swaps nothing, so it has nothing to overlap; the
        // hidden compute is measured by GPU timestamps, where the adapter
        // has them.
        let swaps = case.kernel != "collide";
        let t = scale.split;
        let measured = overlap && swaps && gpu.caps.timestamps;
        assert_eq!(t.overlap_s > 0.0, measured, "{}: {t:?}", case.label());
        assert_eq!(t.interior_s > 0.0, measured, "{}: {t:?}", case.label());
        // Every swap's unpack, and its copies where the adapter times
        // inside encoders, are timed apart.
        let timed = swaps && gpu.caps.timestamps;
        assert_eq!(t.unpack_s > 0.0, timed, "{}: {t:?}", case.label());
        // Where the device maps storage buffers (lavapipe's does), the
        // unpack reads what arrived where the host wrote it, with no copy
        // up, and the planes beside a lead slice of the interior (overlap)
        // reach the host with a kernel in its pass, with no copy down.
        let copies = timed && gpu.caps.timestamps_in_encoders;
        let zero_copy = (gpu.device.features()).contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
        assert_eq!(
            t.copy_down_s > 0.0,
            copies && !(zero_copy && overlap),
            "{}: {t:?}",
            case.label()
        );
        assert_eq!(
            t.copy_up_s > 0.0,
            copies && !zero_copy,
            "{}: {t:?}",
            case.label()
        );
        assert!(
            t.unpack_s <= t.pack_s && t.interior_s <= t.compute_s,
            "{t:?}"
        );
    }
}
