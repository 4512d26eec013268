//! milc over ranks: validated, with the same Dslash bits and CG steps as
//! one rank, over slabs and grids, through shared memory and MPI.

use super::*;

/// Runs milc's operator (split and fused) and its solve (with either
/// operator: MILC's split Dslash, or M in one pass) on the small lattice
/// (4^3 x 8) on `np` ranks.
fn milc(np: usize, dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec![
        "--size",
        "small",
        "--kernel",
        "dslash,dslash-fused,cg",
        "--set",
        "operator=split,fused",
    ];
    args.extend(extra);
    run(np, dir, "milc", &args)
}

#[test]
fn milc_on_one_two_and_four_ranks_matches_the_single_device_reference() {
    let dir = scratch("milc");
    on_1_2_4(
        &dir,
        4,
        |np, dir| milc(np, dir, &[]),
        |np, r, r1| {
            let what = format!("{np} ranks, {}", r["kernel"]);
            assert_eq!(r["scale"]["decomposition"]["axis"], "t", "{what}");
            // A site's Dslash is the same arithmetic however the lattice is
            // split; a solve's dot products add in a different order.
            if r["kernel"] == "cg" {
                assert!(r["metrics"]["cg_iterations"].as_f64() > Some(1.0), "{what}");
            } else {
                assert_eq!(
                    r["metrics"]["field_hash"], r1["metrics"]["field_hash"],
                    "{what}"
                );
            }
            // Every one of these kernels swaps halos (the solve also sums).
            for (phase, t) in phase_times(r) {
                assert!(t > 0.0, "{what}: {phase} {t}");
            }
            // milc's halos go through shared memory where they can. MILC's
            // split Dslash (no interior beside the planes' trip) copies them
            // down; slabs this thin have no interior to fetch them beside,
            // so they are fetched on their own (a copy up).
            let (down, up, _) = copies(r);
            if shared_halos(r, true) {
                let variant = r["variant"].as_str().expect("variant");
                let one_pass = r["kernel"] == "dslash-fused" || variant.contains("/fused/");
                let beside = np < 4 && one_pass;
                assert!(up > 0.0, "{what}: copy up {up}");
                assert_eq!(down > 0.0, !beside, "{what}: copy down {down}");
            }
        },
    );
    // Through MPI (`--halos mpi`): the same Dslash bits; nothing runs beside
    // milc's packs, so its planes are copied down.
    let one = milc(1, &dir, &[]);
    for r in milc(2, &dir, &["--halos", "mpi"]) {
        let what = format!("MPI, {}", r["kernel"]);
        assert_eq!(
            r["validation"]["passed"], true,
            "{what}: {}",
            r["validation"]
        );
        assert!(!shared_halos(&r, false), "{what}");
        let (down, up, mapped) = copies(&r);
        assert!(
            down > 0.0 && (up > 0.0) != mapped,
            "{what}: copies {down}, {up}"
        );
        let r1 = one
            .iter()
            .find(|o| o["kernel"] == r["kernel"] && o["variant"] == r["variant"]);
        if r["kernel"] != "cg" {
            let hash = &r1.expect("one rank")["metrics"]["field_hash"];
            assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
        }
    }
    // Weak scaling: 4^3 x 16 over two ranks, still validated.
    for r in milc(2, &dir, &["--scaling", "weak"]) {
        assert_eq!(r["validation"]["passed"], true, "weak: {}", r["validation"]);
        assert_eq!(r["params"]["T"], "16");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn milc_over_a_grid_of_ranks_overlaps_and_matches_one_rank() {
    let dir = scratch("milc-grid");
    // 8^3 x 8 over 2 x 2 ranks along z and t: 4 planes each way, so each
    // rank has an interior to update while its halos travel.
    let args = |extra: &'static str| {
        let mut a = vec!["--size", "8x8", "--kernel", "dslash-fused,cg"];
        a.extend(["--set", "operator=fused", "--set", "iterations=40"]);
        a.extend(["--axes", extra]);
        a
    };
    let one = run(1, &dir, "milc", &args("1"));
    for r in run(4, &dir, "milc", &args("2")) {
        let what = validated_on_a_2x2_grid_of_4x4(&r);
        // Through MPI the interior runs while the planes travel; through
        // shared memory (too thin a slab for a lead) beside their trip to
        // the host, in the same pass.
        let split = &r["scale"]["split"];
        let (hidden, interior) = (split["overlap_s"].as_f64(), split["interior_s"].as_f64());
        let overlapped = match shared_halos(&r, true) {
            true => interior > Some(0.0),
            false => hidden > Some(0.0),
        };
        assert!(overlapped, "{what}: nothing overlapped ({split})");
        let r1 = one
            .iter()
            .find(|o| o["kernel"] == r["kernel"])
            .expect("one rank");
        if r["kernel"] == "cg" {
            assert_eq!(
                r["metrics"]["cg_iterations"], r1["metrics"]["cg_iterations"],
                "{what}"
            );
        } else {
            // The z swap carries gamma_z's projections (complex phases).
            assert_eq!(
                r["metrics"]["field_hash"], r1["metrics"]["field_hash"],
                "{what}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn milc_slabs_of_16_slices_fetch_their_halos_beside_their_interior() {
    let dir = scratch("milc-thick");
    // Slabs of 16 time slices: the interior in three (a lead beside the
    // planes' trip down, a stretch while the ranks meet, the rest beside the
    // fetch of what arrived), so nothing is copied either way; the same
    // Dslash bits and CG steps as one rank. In AoS and AoSoA, whose planes
    // are packed in different orders, with every field split over buffers
    // (the halo kernels reach a site's components in several).
    let thick = ["--size", "4x32", "--kernel", "dslash-fused,cg"];
    let layouts = [
        "--set",
        "operator=fused",
        "--set",
        "layout=aos,aosoa-4",
        "--set",
        "buffer-kib=64",
    ];
    let thick = [&thick[..], &layouts[..]].concat();
    let one = run(1, &dir, "milc", &thick);
    let two = run(2, &dir, "milc", &thick);
    assert_eq!(two.len(), 4, "two kernels in two layouts");
    for r in two {
        let what = format!("16 slices, {} {}", r["kernel"], r["variant"]);
        assert_eq!(
            r["validation"]["passed"], true,
            "{what}: {}",
            r["validation"]
        );
        let same_case = |o: &&Value| o["kernel"] == r["kernel"] && o["variant"] == r["variant"];
        let r1 = one.iter().find(same_case).expect("one rank");
        let same = match r["kernel"] == "cg" {
            true => "cg_iterations",
            false => "field_hash",
        };
        assert_eq!(r["metrics"][same], r1["metrics"][same], "{what}");
        assert!(
            r["metrics"]["spinor_buffers"].as_f64() > Some(1.0),
            "{what}"
        );
        if shared_halos(&r, true) {
            let (down, up, _) = copies(&r);
            assert_eq!((down, up), (0.0, 0.0), "{what}: copies");
            let interior = r["scale"]["split"]["interior_s"].as_f64();
            assert!(interior > Some(0.0), "{what}: {}", r["scale"]["split"]);
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
