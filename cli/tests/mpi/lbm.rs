//! lbm over ranks: the same bits as one rank on slabs and grids, over MPI
//! and through the node's shared memory.

use super::*;

/// Runs lbm's four kernels (3 steps, 8^3) on `np` ranks.
fn lbm(np: usize, dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["--size", "8", "--kernel", "collide,propagate,fused,step"];
    args.extend(["--set", "steps=3"]);
    args.extend(extra);
    run(np, dir, "lbm", &args)
}

#[test]
fn one_two_and_four_ranks_agree_bit_for_bit() {
    let dir = scratch("agree");
    on_1_2_4(
        &dir,
        4,
        |np, dir| lbm(np, dir, &[]),
        |np, r, r1| {
            let what = format!("{np} ranks, {}", r["kernel"]);
            assert_eq!(
                r["metrics"]["field_hash"], r1["metrics"]["field_hash"],
                "{what}"
            );
            // Collision alone reads no neighbour, so only it swaps no halos.
            let swaps = r["kernel"] != "collide";
            for (phase, t) in phase_times(r) {
                assert_eq!(
                    t > 0.0,
                    phase == "compute_s" || swaps,
                    "{what}: {phase} {t}"
                );
            }
            // 8 / np planes a rank: 4 ranks leave no interior to overlap.
            let overlapped = swaps && np < 4;
            assert_eq!(r["scale"]["overlap"], true, "{what}");
            let hidden = r["scale"]["split"]["overlap_s"].as_f64().expect("overlap");
            assert_eq!(hidden > 0.0, overlapped, "{what}: overlap {hidden}");
            let (down, up, mapped) = copies(r);
            let lead = overlapped && mapped;
            assert_eq!(down > 0.0, swaps && !lead, "{what}: copy down {down}");
            assert_eq!(up > 0.0, swaps && !mapped, "{what}: copy up {up}");
        },
    );
    // The one-rank record of a kernel (fields that must not depend on the split).
    let one = lbm(1, &dir, &[]);
    let one_rank = |r: &Value| -> Value {
        let same = one.iter().find(|o| o["kernel"] == r["kernel"]);
        same.expect("the kernel on one rank").clone()
    };
    // A 2 x 2 grid over y and z: the same fields, corners included (they
    // arrive through the y swap, then the z swap).
    for r in lbm(4, &dir, &["--axes", "2"]) {
        let what = validated_on_a_2x2_grid_of_4x4(&r);
        let hash = &one_rank(&r)["metrics"]["field_hash"];
        assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
    }
    // The rows form (`auto` takes it at wg = L = 8) on the same grid, whose
    // boundary boxes are single rows: the same fields.
    for r in lbm(4, &dir, &["--axes", "2", "--wg", "8"]) {
        let what = validated_on_a_2x2_grid_of_4x4(&r);
        let rows = r["variant"].as_str().expect("variant").ends_with("/rows");
        assert_eq!(rows, r["kernel"] != "collide", "{what}");
        let hash = &one_rank(&r)["metrics"]["field_hash"];
        assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
    }
    // Without overlap the same fields, every plane updated after the swap.
    for r in lbm(2, &dir, &["--no-overlap"]) {
        let what = format!("no overlap, {}", r["kernel"]);
        assert_eq!(r["scale"]["overlap"], false, "{what}");
        assert_eq!(r["scale"]["split"]["overlap_s"], 0.0, "{what}");
        let hash = &one_rank(&r)["metrics"]["field_hash"];
        assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
    }
    // Weak scaling: an 8 x 8 x 16 lattice over two ranks, still validated.
    for r in lbm(2, &dir, &["--scaling", "weak"]) {
        assert_eq!(r["validation"]["passed"], true, "weak: {}", r["validation"]);
        assert_eq!(r["params"]["lattice"], "8x8x16");
    }
    // The check of a field too large to gather (one step, on a sample each
    // rank reads from its own slab): the same sample, the same bits, on 2
    // slabs and a 2 x 2 grid.
    let sampled = |np: usize, axes: &str| {
        let mut args = vec!["--size", "8", "--kernel", "propagate,fused,step"];
        args.extend(["--set", "check=sample", "--axes", axes]);
        run(np, &dir, "lbm", &args)
    };
    let (slabs, grid) = (sampled(2, "1"), sampled(4, "2"));
    for (a, b) in slabs.iter().zip(&grid) {
        for r in [a, b] {
            let detail = r["validation"]["detail"].as_str().expect("detail");
            assert_eq!(r["validation"]["passed"], true, "{detail}");
            assert!(detail.contains("a sample of"), "{detail}");
        }
        assert_eq!(
            a["metrics"]["field_hash"], b["metrics"]["field_hash"],
            "{}",
            a["kernel"]
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn lbm_halos_through_shared_memory_match_one_rank() {
    let dir = scratch("lbm-shared");
    let one = lbm(1, &dir, &[]);
    let one_rank = |r: &Value| -> Value {
        let same = one.iter().find(|o| o["kernel"] == r["kernel"]);
        same.expect("the kernel on one rank").clone()
    };
    // Through the node's shared memory, on two slabs (each a lead slice
    // beside the planes' trip) and a 2 x 2 grid (corners through two
    // mailboxes in turn): the same fields; the planes that arrived are
    // fetched into device memory on their own (a copy up: lbm runs nothing
    // beside the fetch), and copied down only where no interior runs
    // beside them.
    for (np, axes) in [(2, "1"), (4, "2")] {
        for r in lbm(np, &dir, &["--halos", "shared", "--axes", axes]) {
            let what = format!("shared memory, {np} ranks, {}", r["kernel"]);
            assert_eq!(
                r["validation"]["passed"], true,
                "{what}: {}",
                r["validation"]
            );
            let hash = &one_rank(&r)["metrics"]["field_hash"];
            assert_eq!(&r["metrics"]["field_hash"], hash, "{what}");
            let (down, up, _) = copies(&r);
            // Collision swaps nothing, and so copies nothing either way.
            let swaps = r["kernel"] != "collide";
            if shared_halos(&r, true) {
                assert_eq!(up > 0.0, swaps, "{what}: copy up {up}");
                assert_eq!(down > 0.0, swaps && np == 4, "{what}: copy down {down}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
