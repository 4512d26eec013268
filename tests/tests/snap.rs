//! snap on the real adapter: TestSNAP's reference forces (2J = 2 and 4) in
//! every precision, every variant and kernel on the synthetic BCC problem
//! against the CPU f64 reference, batching, and clean errors.

use skylight_core::app::Request;
use skylight_core::apps::snap::Snap;
use skylight_core::gpu::Gpu;
use skylight_core::runner::{Outcome, RunOptions};
use skylight_core::{Error, Precision};
use skylight_tests::precisions;

const OPTS: RunOptions = skylight_tests::ONCE;

fn run(gpu: &Gpu, req: &Request) -> Vec<Outcome> {
    skylight_tests::run(gpu, &Snap, req, OPTS)
}

/// Every case ran and passed; returns the RMS |F| deviation of each force case.
fn assert_passed(out: &[Outcome], n: usize) -> Vec<(String, f64)> {
    assert_eq!(out.len(), n);
    let mut rms = Vec::new();
    for o in out {
        match o {
            Outcome::Done(r) => {
                eprintln!("{}: {}", r.case.label(), r.validation.detail);
                assert!(
                    r.validation.passed,
                    "{}: {}",
                    r.case.label(),
                    r.validation.detail
                );
                // The roofline's L1 point: every kernel counts its accesses.
                assert!(
                    r.issued_bytes.is_some_and(|b| b > 0.0),
                    "{}: no issued bytes",
                    r.case.label()
                );
                if let Some(v) = r.metrics.get("rms_force_deviation") {
                    rms.push((r.case.label(), *v));
                }
                let shares: f64 = r
                    .metrics
                    .iter()
                    .filter(|(k, _)| k.starts_with("share_"))
                    .map(|(_, v)| v)
                    .sum();
                if r.metrics.contains_key("profiled_call_ms") {
                    assert!((shares - 1.0).abs() < 1e-9, "shares sum to {shares}");
                }
            }
            other => panic!("{}: {other:?}", other.case().label()),
        }
    }
    rms
}

#[test]
fn reference_files_in_every_precision() {
    let gpu = skylight_tests::gpu();
    let ps = precisions(&gpu);
    for file in ["2J2_W.json", "2J4_W.json"] {
        let req = Request::default()
            .set("refdata", format!("../assets/testsnap/{file}"))
            .set("kernel", "force")
            .set("variant", "baseline,reorder")
            .precisions(&ps);
        for (label, rms) in assert_passed(&run(&gpu, &req), 2 * ps.len()) {
            eprintln!("{file} {label}: RMS |F| deviation {rms:.3e} eV/A");
        }
    }
}

/// 2J = 6 at most: lavapipe stops an invocation after 65535 iterations of
/// a loop level (llvmpipe's loop limiter; reversing the baseline's element
/// loop moves the unwritten elements to the other end), and the baseline's
/// one invocation per atom passes that from 2J = 8 on. The collapsed
/// variants are checked at 2J = 14 on TestSNAP's 100-atom file below.
#[test]
fn every_variant_and_kernel_matches_the_cpu_reference() {
    let gpu = skylight_tests::gpu();
    let double = if gpu.caps.f64 {
        Precision::F64
    } else {
        Precision::Df64
    };
    for (twoj, ps) in [("2", precisions(&gpu)), ("6", vec![Precision::F32, double])] {
        let req = Request::default()
            .set("size", "small")
            .set("twojmax", twoj)
            .set("variant", "baseline,collapse,column-major,reorder,fused")
            .precisions(&ps);
        // Five kernels a variant, but fused has no compute_dU.
        assert_passed(&run(&gpu, &req), ps.len() * (5 * 4 + 4));
    }
}

/// TestSNAP's 100 atoms of 26 neighbours at 2J = 14 (4841 ghosts).
#[test]
fn twojmax_14_reference_file() {
    let gpu = skylight_tests::gpu();
    let double = if gpu.caps.f64 {
        Precision::F64
    } else {
        Precision::Df64
    };
    let req = Request::default()
        .set("refdata", "../assets/testsnap/2J14_n100_W.json")
        .set("kernel", "force")
        .set("variant", "reorder,fused")
        .precisions(&[Precision::F32, double]);
    for (label, rms) in assert_passed(&run(&gpu, &req), 4) {
        eprintln!("2J14_n100 {label}: RMS |F| deviation {rms:.3e} eV/A");
    }
}

#[test]
fn batches_cover_every_atom() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "small")
        .set("twojmax", "4")
        .set("kernel", "force")
        .set("variant", "baseline,reorder,fused")
        .set("batch", "10")
        .set("steps", "2")
        .precisions(&[Precision::Df64]);
    let out = run(&gpu, &req);
    assert_passed(&out, 3);
    if let Outcome::Done(r) = &out[0] {
        assert_eq!(r.metrics.get("batches"), Some(&6.0));
        // The seed's profile table: each kernel's share of the validated call.
        if gpu.caps.timestamps {
            let y = r.metrics.get("share_compute_Y").copied().unwrap_or(0.0);
            assert!(y > 0.0 && y < 1.0, "{:?}", r.metrics);
        }
    }
    // A kernel timed alone is not split.
    let req = Request::default()
        .set("size", "small")
        .set("twojmax", "2")
        .set("kernel", "compute_Y")
        .set("batch", "10")
        .precisions(&[Precision::F32]);
    let out = run(&gpu, &req);
    assert!(
        matches!(&out[0], Outcome::Failed { error: Error::BadParameter { name, .. }, .. } if name == "batch"),
        "{out:?}"
    );
}
