//! milc on the real adapter: the Dslash split and the fused Dslash in every
//! layout x vector length, complexes split or in pairs (on a lattice whose site count no SAL divides, so
//! AoSoA padding is exercised), every kernel in every precision and the
//! D^dagger kernels against the f64 reference, and CG solves (split and
//! fused operator, every precision and layout family, and on one rank of
//! the scale-out path) checked on the host (all inside the app's
//! validation), with the links whole and as two rows.

use skylight_core::app::Request;
use skylight_core::apps::milc::Milc;
use skylight_core::gpu::Gpu;
use skylight_core::layout as targetdp;
use skylight_core::record::ResultRecord;
use skylight_core::runner::Outcome;
use skylight_core::{Error, Precision};
use skylight_tests::{double, precisions, run_validated};

/// Runs `req` and asserts every case ran and validated; returns the records.
fn run_all(gpu: &Gpu, req: &Request, expected_cases: usize) -> Vec<ResultRecord> {
    let records = run_validated(gpu, &Milc, req, expected_cases);
    for r in &records {
        println!("{}: {}", r.case.label(), r.validation.detail);
    }
    records
}

/// Every solve among `records` was checked against `M x = b` on the host and ran.
fn assert_solved(records: &[ResultRecord]) {
    for r in records.iter().filter(|r| r.case.kernel == "cg") {
        let detail = &r.validation.detail;
        assert!(detail.contains("|M x - b|"), "{detail}");
        let iters = r.metrics.get("cg_iterations").copied().unwrap_or(0.0);
        assert!(iters >= 1.0, "{}: {iters} iterations", r.case.label());
    }
}

#[test]
fn every_layout_and_vector_length_validates() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "3x4")
        .set("kernel", "dslash,dslash-fused")
        .set("layout", targetdp::ALL_LAYOUTS)
        .set("vvl", "1,2,4,8")
        .set("complex", "split,pairs")
        .set("wg", "32")
        .precisions(&[Precision::F32]);
    run_all(&gpu, &req, 2 * 7 * 4 * 2);
}

/// The one-pass operator over dispatch orders (every site once whatever
/// the order, so an unvisited site keeps its poison and fails), blocks
/// and tiles no extent divides cut to ones that do.
#[test]
fn the_one_pass_operator_validates_in_every_order() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "dslash-fused,cg")
        .set("operator", "fused")
        .set("layout", "soa,aosoa-8")
        .set("block-y", "1,2")
        .set("block-z", "1,3")
        .set("block-t", "1,2")
        .set("tile-t", "1,8")
        .set("wg", "32")
        .precisions(&[Precision::F32]);
    let records = run_all(&gpu, &req, 2 * 2 * 16);
    // L = 4: a block of 3 z rows runs as 2.
    assert!(
        records
            .iter()
            .any(|r| r.case.variant.contains("/block2x2x2/tile8"))
    );
    assert!(!records.iter().any(|r| r.case.variant.contains("x3x")));
    assert_solved(&records);
}

/// Every kernel, and the solve with both operators (MILC's split Dslash
/// and the one-pass M), in every precision: a wrong solve fails its check
/// of `M x = b` on the host.
#[test]
fn every_kernel_validates_in_every_precision() {
    let gpu = skylight_tests::gpu();
    let ps = precisions(&gpu);
    let req = Request::default()
        .set("size", "small")
        .set("layout", "aosoa-4")
        .set("vvl", "2")
        .set("wg", "64")
        .set("operator", "split,fused")
        .set("complex", "split,pairs")
        .precisions(&ps);
    let records = run_all(&gpu, &req, 11 * 2 * ps.len());
    let fused = records.iter().filter(|r| r.case.variant.contains("/fused"));
    assert_eq!(fused.count(), 2 * ps.len());
    assert_solved(&records);
}

#[test]
fn the_adjoint_kernels_validate() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set(
            "kernel",
            "extract,extract-mul,insert-mul,insert,dslash,dslash-fused",
        )
        .set("sign", "minus")
        .set("layout", "aosoa-8")
        .set("vvl", "4")
        .precisions(&[Precision::F32, double(&gpu)]);
    for r in run_all(&gpu, &req, 6 * 2) {
        assert!(r.case.variant.ends_with("/minus"), "{}", r.case.label());
    }
}

/// Links whole and as their first two rows (the third rebuilt in the
/// kernels) give the same operators and solve, and the two-row form's
/// model moves 24 reals a site fewer in the one-pass D.
#[test]
fn both_link_forms_validate() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "extract-mul,insert-mul,dslash,dslash-fused,cg")
        .set("operator", "fused")
        .set("complex", "pairs")
        .set("reconstruct", "18,12")
        .precisions(&[Precision::F32, double(&gpu)]);
    let records = run_all(&gpu, &req, 5 * 2 * 2);
    assert_solved(&records);
    let bytes = |rows: bool| {
        records
            .iter()
            .find(|r| {
                r.case.kernel == "dslash-fused"
                    && r.case.precision == Precision::F32
                    && r.case.variant.ends_with("/r12") == rows
            })
            .map(|r| r.model.bytes)
            .expect("a dslash-fused record of each form")
    };
    assert_eq!(bytes(true) / bytes(false), 96.0 / 120.0);
}

/// The solve with either operator through the layout families and vector
/// lengths (the one-pass M and the fused updates index every field through
/// the layout; the norms reduce over VVL sites an invocation).
#[test]
fn cg_with_either_operator_converges_in_every_layout_family() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "3x4")
        .set("kernel", "cg")
        .set("operator", "split,fused")
        .set("layout", "aos,soa,aosoa-8")
        .set("complex", "split,pairs")
        .set("vvl", "1,4")
        .set("wg", "32")
        .precisions(&[Precision::F32, double(&gpu)]);
    assert_solved(&run_all(&gpu, &req, 2 * 2 * 3 * 2 * 2));
}

/// Fields larger than a buffer may hold are split over buffers by groups
/// of components (here below the adapter's limit through `buffer-kib`: on
/// the 512 sites of `small` a spinor is 48 KiB in f32 and 96 KiB in df64,
/// the links 144 and 288 KiB),
/// invisibly to the kernels: every kernel, and the solve with either
/// operator, validates in f32 and df64 with complexes split and in pairs.
#[test]
fn fields_over_a_buffer_are_split_and_validate() {
    let gpu = skylight_tests::gpu();
    // Complexes split in f32, in pairs (switched a pair at a time) in df64.
    // Each form of a split link or half-spinor field: f32 at 24 KiB has
    // whole links in 6 buffers of 12 reals (a switch a real), links as two
    // rows and half spinors in 4 of one direction each (a switch a link or
    // half spinor); df64 at 80 KiB has whole links in 4 of one direction,
    // two rows and half spinors in 3 of 16 reals (a switch a pair).
    for (p, complex, kib, links) in [
        (Precision::F32, "split", "24", [6.0, 4.0]),
        (Precision::Df64, "pairs", "80", [4.0, 3.0]),
    ] {
        let req = Request::default()
            .set("size", "small")
            .set("buffer-kib", kib)
            .set("layout", "aosoa-4")
            .set("operator", "split,fused")
            .set("complex", complex)
            .precisions(&[p]);
        let records = run_all(&gpu, &req, 11);
        for r in &records {
            let (s, l) = (r.metrics["spinor_buffers"], r.metrics["link_buffers"]);
            let rows = r.case.variant.contains("/r12");
            assert!(
                s == 2.0 && l == links[usize::from(rows)],
                "{}: {s} and {l} buffers",
                r.case.label()
            );
        }
        assert_solved(&records);
    }
}

#[test]
fn too_few_iterations_fail_and_a_lattice_over_the_limit_is_a_clean_error() {
    let gpu = skylight_tests::gpu();
    let short = Request::default()
        .set("size", "small")
        .set("kernel", "cg")
        .set("iterations", "3")
        .precisions(&[Precision::F32]);
    let out = skylight_tests::try_run(&gpu, &Milc, &short).expect("run");
    assert!(
        matches!(&out[0], Outcome::Done(r) if !r.validation.passed && r.validation.detail.contains("not converged")),
        "{out:?}"
    );
    // 64^3 x 224 sites: a solve's fields pass lavapipe's binding (one
    // pair of reals a buffer) and any CI machine's memory; refused before
    // any work, naming the largest L that fits.
    let req = Request::default()
        .set("size", "64x224")
        .set("kernel", "cg")
        .set("complex", "pairs")
        .precisions(&[Precision::Df64]);
    match skylight_tests::try_run(&gpu, &Milc, &req) {
        Err(Error::BadParameter { name, reason }) => {
            assert_eq!(name, "size");
            assert!(reason.contains("the largest that fits is L = "), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

/// The scale-out path on one rank (no MPI: the rank is its own neighbour)
/// on a lattice no SAL divides, through every layout family: halos swapped through the spinor's layout before each Dslash
/// (NaN-poisoned until then), dot products over the owned sites only, and
/// the gathered result checked against the single-device f64 reference.
#[test]
fn one_rank_scale_out_swaps_halos_through_every_layout() {
    use skylight_core::apps::milc::dist;
    use skylight_core::scale::{Distributed, ScaleMode, SelfComm};
    let gpu = skylight_tests::gpu();
    // The solve (halo swaps before each application of M, norms summed
    // over the ranks) in every layout family in f32 with MILC's split
    // Dslash, and with the one-pass M in soa with complex pairs (the halo
    // kernels index reals through the pairs layout); the fused Dslash in
    // f64 or df64.
    let plan = |kernel: &str, layout: &str, p: Precision, operator: &str| {
        let req = Request::default()
            .set("size", "3x4")
            .set("kernel", kernel)
            .set("layout", layout)
            .set("vvl", "2")
            .set("operator", operator)
            .set(
                "complex",
                if operator == "fused" {
                    "pairs"
                } else {
                    "split"
                },
            )
            .precisions(&[p]);
        skylight_core::runner::plan(&Milc, &req, &gpu.caps, true)
            .expect("plan")
            .cases
    };
    let mut cases = plan("cg", "aos,soa,aosoa-8", Precision::F32, "split");
    cases.extend(plan("cg", "soa", Precision::F32, "fused"));
    cases.extend(plan("dslash-fused", "aosoa-8", double(&gpu), "split"));
    assert_eq!(cases.len(), 5);
    for case in &cases {
        let d = dist::Split
            .decomposition(case, ScaleMode::default(), 1)
            .expect("split");
        let r = pollster::block_on(dist::Split.run(
            &gpu,
            &SelfComm,
            case,
            &d,
            ScaleMode::default(),
            skylight_tests::ONCE,
        ))
        .expect("run")
        .expect("rank 0's record");
        let label = case.label();
        assert!(r.validation.passed, "{label}: {}", r.validation.detail);
        let split = r.scale.expect("scale-out part").split;
        assert!(split.pack_s > 0.0, "{label}: no halo swapped");
    }
}
