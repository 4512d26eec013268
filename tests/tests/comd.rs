//! comd on the real adapter: CoMD's step-0 lattice energy through the GPU
//! force kernels, energy conservation over 20 steps, grid-stride launch
//! shapes, the cell force over any stage, and clean errors for shapes the
//! cell mapping cannot run.

use skylight_core::app::Request;
use skylight_core::apps::comd::Comd;
use skylight_core::gpu::Gpu;
use skylight_core::runner::Outcome;
use skylight_core::{Error, Precision};
use skylight_tests::{QUICK, double};

fn run(gpu: &Gpu, req: &Request) -> Vec<Outcome> {
    skylight_tests::run(gpu, &Comd, req, QUICK)
}

/// Runs `req`: `n` cases, every one validated, each detail naming `must_mention`.
fn assert_passed(gpu: &Gpu, req: &Request, n: usize, must_mention: &str) {
    for r in skylight_tests::run_validated(gpu, &Comd, req, n) {
        let detail = &r.validation.detail;
        assert!(detail.contains(must_mention), "{detail}");
        // The roofline's L1 point: every kernel counts its accesses.
        assert!(
            r.issued_bytes.is_some_and(|b| b > 0.0),
            "{}: no issued bytes",
            r.case.label()
        );
    }
}

/// The small system's cell force on the aos layout, the case the cell
/// mapping's own tests vary.
fn cell_force() -> Request {
    Request::default()
        .set("size", "small")
        .set("kernel", "force")
        .set("variant", "cell")
        .set("layout", "aos")
}

#[test]
fn lattice_energy_matches_comd_on_the_gpu() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "force")
        .set("layout", "soa")
        .set("init", "comd")
        .precisions(&[Precision::F32, double(&gpu)]);
    assert_passed(&gpu, &req, 4, "-1.243619295058");
}

#[test]
fn twenty_steps_conserve_energy() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set("kernel", "step")
        .set("layout", "aos4")
        .set("steps", "20")
        .set("init", "comd")
        .precisions(&[Precision::F32, double(&gpu)]);
    assert_passed(&gpu, &req, 4, "over 20 steps");
}

#[test]
fn any_workgroup_count_covers_every_atom_and_cell() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set("layout", "soa")
        .set("wg", "64")
        .set("groups", "3")
        .precisions(&[Precision::F32]);
    // 3 per-atom kernels and 2 force kernels x 2 mappings.
    assert_passed(&gpu, &req, 7, "");
}

/// The cell force staging one cell a round (a stage of one cell's 56
/// slots at this size), the default's few rounds, and all 27 cells in one.
#[test]
fn every_stage_gives_the_reference_forces() {
    let gpu = skylight_tests::gpu();
    let req = cell_force()
        .set("stage", "56,0,1024")
        .precisions(&[Precision::F32, double(&gpu)]);
    assert_passed(&gpu, &req, 6, "forces");
}

#[test]
fn impossible_shapes_are_clean_errors() {
    let gpu = skylight_tests::gpu();
    let req = cell_force().set("wg", "16").precisions(&[Precision::F32]);
    let out = run(&gpu, &req);
    assert!(
        matches!(&out[0], Outcome::Failed { error: Error::BadParameter { name, .. }, .. } if name == "wg"),
        "{out:?}"
    );
    // A stage under one cell's slots cannot hold a round of whole cells.
    let small_stage = req.clone().set("wg", "128").set("stage", "8");
    let out = run(&gpu, &small_stage);
    assert!(
        matches!(&out[0], Outcome::Failed { error: Error::BadParameter { name, .. }, .. } if name == "stage"),
        "{out:?}"
    );
    let small_box = Request::default().set("size", "4");
    assert!(matches!(
        skylight_tests::try_run(&gpu, &Comd, &small_box),
        Err(Error::BadParameter { name, .. }) if name == "size"
    ));
}
