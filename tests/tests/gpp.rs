//! `gpp` beyond the every-app smoke test: bit-identical sums run to run in
//! every variant, arrays over the binding limit run in chunks (bit-identical
//! to one binding), teams past a chunk's last band, clean errors where not
//! even one row fits, and the atomic reduction (f32 only, where the
//! adapter adds f32 atomically).

use skylight_core::app::{Request, Timestamps};
use skylight_core::error::Error;
use skylight_core::registry;

/// Runs every variant twice on the same inputs: the six output reals must
/// match bit for bit (the reduction order is fixed). 8 x 16 x 1000 in
/// workgroups of 64 gives every invocation 15 or 16 plane waves at share 1
/// (one team a workgroup) and 250 at share 16 (teams of 4), so both the
/// pass-1 loop's unrolled steps (3 and 8 plane waves) and its tail run.
#[test]
fn sums_are_bit_identical_run_to_run() {
    let gpu = skylight_tests::gpu();
    let app = registry::find("gpp").expect("gpp");
    let req = Request::default()
        .set("size", "8,16,1000")
        .set("wg", "64")
        .set("unroll", "3,8")
        .set("share", "1,16")
        .set("inputs", "random");
    let cases = app.cases(&req, &gpu.caps).expect("cases");
    assert!(!cases.is_empty());
    for case in &cases {
        if case.precision == skylight_core::Precision::F64 && !gpu.caps.f64 {
            continue;
        }
        let k = app.prepare(&gpu, case).expect("prepare");
        let mut runs = Vec::new();
        for _ in 0..2 {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            k.encode(&mut enc, Timestamps::None);
            gpu.queue.submit([enc.finish()]);
            let out = pollster::block_on(gpu.read_buffers(&k.outputs())).expect("read");
            runs.push(out);
        }
        assert_eq!(runs[0], runs[1], "{}: sums differ run to run", case.label());
        let v = k.validate(&skylight_tests::parts(&runs[1]));
        assert!(v.passed, "{}: {}", case.label(), v.detail);
    }
}

/// Runs `case` once, checks it, and returns its six output reals as bytes
/// and the number of binding chunks it ran in.
fn sums(gpu: &skylight_core::gpu::Gpu, case: &skylight_core::app::Case) -> (Vec<u8>, f64) {
    let app = registry::find("gpp").expect("gpp");
    let k = app.prepare(gpu, case).expect("prepare");
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    k.encode(&mut enc, Timestamps::None);
    gpu.queue.submit([enc.finish()]);
    let out = pollster::block_on(gpu.read_buffers(&k.outputs())).expect("read");
    let parts = skylight_tests::parts(&out);
    let v = k.validate(&parts);
    assert!(v.passed, "{}: {}", case.label(), v.detail);
    // The roofline's L1 point: chunking moves no access.
    assert!(
        k.issued_bytes().is_some_and(|b| b > 0.0),
        "{}",
        case.label()
    );
    let chunks = k.metrics(&parts)["binding_chunks"];
    (out.into_iter().next().expect("achtemp"), chunks)
}

/// Runs every case of `req` (at least one) through [`sums`]' host check.
fn every_case_passes(gpu: &skylight_core::gpu::Gpu, req: &Request) {
    let app = registry::find("gpp").expect("gpp");
    let cases = app.cases(req, &gpu.caps).expect("cases");
    assert!(!cases.is_empty());
    for case in &cases {
        sums(gpu, case);
    }
}

/// Arrays over the binding limit run a chunk of rows per dispatch. Forced
/// here on the small size (16 x 32 x 256; 5 rows a binding: 4 x 7 chunk
/// pairs; a workgroup takes 16 bands, so every chunk's is ragged): on
/// random inputs the sums pass the host check, and on the published
/// (constant) inputs they equal the one-binding run's bit for bit, since
/// every sum keeps its order. Two plane waves a loop step, as in the
/// ragged-teams test.
#[test]
fn chunked_sums_equal_one_binding_sums_bit_for_bit() {
    let gpu = skylight_tests::gpu();
    let app = registry::find("gpp").expect("gpp");
    for p in skylight_tests::precisions(&gpu) {
        let row = 2 * 256 * p.real_bytes();
        let req = |chunk: u64, inputs: &str| {
            Request::default()
                .set("size", "small")
                .set("inputs", inputs)
                .set("chunk", chunk.to_string())
                .set("share", "16")
                .set("unroll", "2")
                .precisions(&[p])
        };
        for case in app
            .cases(&req(5 * row, "random"), &gpu.caps)
            .expect("cases")
        {
            assert_eq!(sums(&gpu, &case).1, 28.0, "{}", case.label());
        }
        let whole = app.cases(&req(0, "reference"), &gpu.caps).expect("cases");
        let chunked = app
            .cases(&req(5 * row, "reference"), &gpu.caps)
            .expect("cases");
        assert_eq!(whole.len(), chunked.len());
        for (a, b) in whole.iter().zip(&chunked) {
            let (one, n) = sums(&gpu, a);
            assert_eq!(n, 1.0, "{}", a.label());
            assert_eq!(one, sums(&gpu, b).0, "{}: chunked sums differ", b.label());
        }
    }
}

/// A workgroup's teams past a chunk's last band (9 bands in teams of 4,
/// whole or in chunks of 4 rows) add nothing and store nothing, while the
/// teams with a band still write theirs: every partial is poisoned first,
/// so one left unwritten would fail the check. Teams of any width, down to
/// 2 invocations (less than a subgroup), give the host's sums. Two plane
/// waves a loop step (the default's six are covered by the every-app test)
/// keep lavapipe's df64 compile at half its time.
#[test]
fn ragged_teams_and_every_team_width_validate() {
    let gpu = skylight_tests::gpu();
    for p in skylight_tests::precisions(&gpu) {
        let row = 2 * 256 * p.real_bytes();
        for (chunk, shares) in [(0, "4,32"), (4 * row, "4,2")] {
            let req = Request::default()
                .set("size", "9,5,256")
                .set("wg", "64")
                .set("unroll", "2")
                .set("share", shares)
                .set("chunk", chunk.to_string())
                .set("inputs", "random")
                .precisions(&[p]);
            every_case_passes(&gpu, &req);
        }
    }
}

/// Teams of 2 over 8192 plane waves give each invocation 4096 terms, over
/// every precision's blocking length: the blocked sums (whole blocks, then
/// the rest of the chain) validate on both input sets.
#[test]
fn long_chains_sum_in_blocks() {
    let gpu = skylight_tests::gpu();
    let req = Request::default()
        .set("size", "2,3,8192")
        .set("wg", "64")
        .set("share", "32")
        .set("reduction", "tree")
        .set("order", "nx")
        .precisions(&skylight_tests::precisions(&gpu));
    every_case_passes(&gpu, &req);
}

/// A binding smaller than one row (M complex) cannot run: a clean error
/// naming the limit, never a crash.
#[test]
fn a_row_over_the_binding_limit_is_a_clean_error() {
    let gpu = skylight_tests::gpu();
    let app = registry::find("gpp").expect("gpp");
    let m = gpu.caps.max_storage_binding / 16 + 1;
    let req = Request::default()
        .set("size", format!("1,1,{m}"))
        .precisions(&[skylight_core::Precision::Df64]);
    match app.cases(&req, &gpu.caps) {
        Err(Error::OverLimit { limit, .. }) => assert!(limit.starts_with("max_"), "{limit}"),
        Err(Error::BadParameter { .. }) if 2 * m > u64::from(u32::MAX) => {}
        other => panic!("expected an over-limit error, got {other:?}"),
    }
    let tiny = Request::default()
        .set("size", "small")
        .set("chunk", "16")
        .precisions(&[skylight_core::Precision::F32]);
    let out = skylight_tests::run(&gpu, app, &tiny, skylight_tests::QUICK);
    assert!(
        out.iter().all(|o| matches!(
            o,
            skylight_core::runner::Outcome::Failed {
                error: Error::OverLimit { limit: "chunk", .. },
                ..
            }
        )),
        "{out:?}"
    );
}

/// `reduction=atomic`: validated in f32 where the adapter has
/// SHADER_FLOAT32_ATOMIC (lavapipe has it) and reported unsupported (not
/// failed) otherwise; f64 and df64 are unsupported everywhere, naming why.
/// 64 x 80 pairs are more than the atomic slots, so slots are shared (at
/// share 1 and 16). Zeros (what unwritten sums would give) must fail the check.
#[test]
fn atomic_sums_pass_in_f32_and_are_unsupported_in_64_bit() {
    use skylight_core::runner::{Outcome, run_case};
    let gpu = skylight_tests::gpu();
    let app = registry::find("gpp").expect("gpp");
    const { assert!(64 * 80 > skylight_core::apps::gpp::ATOMIC_SLOTS) };
    let req = Request::default()
        .set("size", "64,80,128")
        .set("wg", "64")
        .set("reduction", "atomic")
        .set("share", "1,16")
        .set("order", "xn,nx")
        .set("inputs", "random,reference")
        .precisions(&skylight_tests::precisions(&gpu));
    let cases = app.cases(&req, &gpu.caps).expect("cases");
    let mut validated = 0;
    for case in &cases {
        let outcome = pollster::block_on(run_case(&gpu, app, case, skylight_tests::ONCE));
        match (case.precision, gpu.caps.float32_atomics, &outcome) {
            (skylight_core::Precision::F32, true, Outcome::Done(r)) => {
                assert!(
                    r.validation.passed,
                    "{}: {}",
                    case.label(),
                    r.validation.detail
                );
                validated += 1;
                let k = app.prepare(&gpu, case).expect("prepare");
                let zeroed = [0u8; 6 * 4];
                assert!(
                    !k.validate(&[&zeroed]).passed,
                    "{}: zeros passed",
                    case.label()
                );
            }
            (skylight_core::Precision::F32, false, Outcome::Unsupported { reason, .. }) => {
                assert!(reason.contains("SHADER_FLOAT32_ATOMIC"), "{reason}");
            }
            (_, _, Outcome::Unsupported { reason, .. })
                if case.precision != skylight_core::Precision::F32 =>
            {
                assert!(reason.contains("64-bit float atomics"), "{reason}");
            }
            _ => panic!("{}: unexpected outcome {outcome:?}", case.label()),
        }
    }
    assert_eq!(validated, if gpu.caps.float32_atomics { 8 } else { 0 });
}
