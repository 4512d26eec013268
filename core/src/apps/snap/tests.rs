//! The CPU reference against TestSNAP's forces, and by physics where no
//! reference file exists: forces are minus the energy gradient, rotate with
//! the configuration, ignore the neighbour order and sum to zero.

use rand::{Rng, SeedableRng};

use super::*;

const TWOJ2: &str = include_str!("../../../../assets/testsnap/2J2_W.json");
const TWOJ4: &str = include_str!("../../../../assets/testsnap/2J4_W.json");

fn lattice(twoj: u32, seed: u64) -> Config {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    lattice::bcc(3, twoj, &mut rng).expect("lattice")
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn reference_reproduces_testsnap_forces() {
    for (name, text) in [("2J2", TWOJ2), ("2J4", TWOJ4)] {
        let d = refdata::parse(text, name).expect("parses");
        let rms = sna::rms_deviation(&d.config.forces(), &d.fj);
        // Measured: 2.3e-15 (2J2) and 1.3e-14 (2J4).
        assert!(rms < 1e-10, "{name}: RMS |F| deviation {rms:e}");
    }
}

/// Moves atom `t` by `h` along `k` in every pair it belongs to.
fn displaced(c: &Config, t: usize, k: usize, h: f64) -> Config {
    let mut d = c.clone();
    for (q, &j) in c.jlist.iter().enumerate() {
        if q / c.nnbr == t {
            d.rij[q][k] -= h;
        }
        if j as usize == t {
            d.rij[q][k] += h;
        }
    }
    d
}

#[test]
fn forces_are_minus_the_energy_gradient() {
    // Central differences with h = 1e-5 A: truncation ~h^2 F''' and
    // round-off ~1e-16 E / h stay under 1e-7 of the largest force
    // (measured ~1e-9).
    let c = lattice(6, 1);
    let f = c.forces();
    let scale = max_abs(&f);
    let h = 1e-5;
    for t in [0, 17, 53] {
        for k in 0..3 {
            let fd =
                -(displaced(&c, t, k, h).energy() - displaced(&c, t, k, -h).energy()) / (2.0 * h);
            let err = (fd - f[3 * t + k]).abs() / scale;
            assert!(
                err < 1e-7,
                "atom {t} dim {k}: {} vs {fd} ({err:e})",
                f[3 * t + k]
            );
        }
    }
}

#[test]
fn rotating_the_configuration_rotates_the_forces() {
    let c = lattice(8, 2);
    let f = c.forces();
    // A rotation from a random unit quaternion.
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    let q: [f64; 4] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let [w, x, y, z] = q.map(|v| v / n);
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let rot =
        |v: &[f64]| -> [f64; 3] { std::array::from_fn(|i| (0..3).map(|k| r[i][k] * v[k]).sum()) };
    let mut d = c.clone();
    for v in &mut d.rij {
        *v = rot(v.as_slice());
    }
    let want: Vec<f64> = f.chunks_exact(3).flat_map(rot).collect();
    let got = d.forces();
    let err = sna::rms_deviation(&got, &want) / max_abs(&f);
    assert!(err < 1e-12, "rotated forces off by {err:e}");
}

#[test]
fn neighbour_order_changes_nothing_and_forces_sum_to_zero() {
    let c = lattice(4, 4);
    let f = c.forces();
    let mut d = c.clone();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
    for i in 0..c.nlocal {
        for n in (1..c.nnbr).rev() {
            let m = rng.random_range(0..=n);
            d.rij.swap(i * c.nnbr + n, i * c.nnbr + m);
            d.jlist.swap(i * c.nnbr + n, i * c.nnbr + m);
        }
    }
    let err = sna::rms_deviation(&d.forces(), &f) / max_abs(&f);
    assert!(err < 1e-13, "permuted neighbours change forces by {err:e}");
    for k in 0..3 {
        let total: f64 = f.iter().skip(k).step_by(3).sum();
        assert!(
            total.abs() < 1e-12 * max_abs(&f) * c.nlocal as f64,
            "sum {total:e}"
        );
    }
}

#[test]
fn the_lattice_has_26_neighbours_and_the_box_must_hold_the_cutoff() {
    let c = lattice(2, 6);
    assert_eq!((c.nlocal, c.nnbr, c.jlist.len()), (54, 26, 54 * 26));
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    assert!(lattice::bcc(2, 2, &mut rng).is_err());
}

#[test]
fn layouts_map_every_slot_to_one_element() {
    let (n, ne) = (3, 5);
    for &v in Variant::ALL {
        let l = Layout::of(v);
        let mut seen = vec![false; n * ne];
        for p in 0..n {
            for e in 0..ne {
                let s = l.cix(p, e, n, ne);
                assert!(!seen[s], "{v}: slot {s} twice");
                seen[s] = true;
                assert_eq!(l.item(s, n, ne), (p, e), "{v}");
            }
        }
    }
}

/// fused's compute_dE is dU and dE together: the grid drops its compute_dU,
/// and a request of that alone is refused before any work.
#[test]
fn fused_has_no_compute_du() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        ..Default::default()
    };
    let req = Request::default()
        .set("size", "small")
        .set("twojmax", "2")
        .set("variant", "reorder,fused")
        .precisions(&[Precision::F64]);
    let kernels: Vec<String> = Snap
        .cases(&req, &caps)
        .expect("cases")
        .iter()
        .map(|c| format!("{}/{}", c.kernel, c.text("variant")))
        .collect();
    assert_eq!(kernels.len(), 9, "{kernels:?}");
    assert!(!kernels.contains(&"compute_dU/fused".to_string()));
    let alone = req.set("variant", "fused").set("kernel", "compute_dU");
    assert!(matches!(
        Snap.cases(&alone, &caps),
        Err(crate::Error::BadParameter { .. })
    ));
}

#[test]
fn cases_take_2j_and_atoms_from_a_reference_file() {
    let caps = Capabilities {
        max_workgroup_invocations: 256,
        ..Default::default()
    };
    let req = Request::default()
        .set("refdata", "../assets/testsnap/2J4_W.json")
        .set("kernel", "force")
        .precisions(&[Precision::F64]);
    let cases = Snap.cases(&req, &caps).expect("cases");
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].text("twojmax"), "4");
    assert_eq!(
        &Params::try_from(&cases[0]).expect("parses").case(),
        &cases[0]
    );
    let bad = Request::default().set("refdata", "/nonexistent.json");
    assert!(matches!(
        Snap.cases(&bad, &caps),
        Err(crate::Error::BadFile { .. })
    ));
    match Snap.cases(&Request::default().set("size", "2"), &caps) {
        Err(crate::Error::BadParameter { name, .. }) => assert_eq!(name, "size"),
        other => panic!("{other:?}"),
    }
}

/// The plan splits the force kernel into batches under the binding limit,
/// and refuses batches for a kernel timed alone, naming `batch`.
#[test]
fn plans_batch_the_force_kernel_only() {
    let config = lattice(2, 7);
    let tables = config.tables();
    let caps = Capabilities {
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        max_workgroups_per_dim: 65535,
        ..Default::default()
    };
    let force = Params {
        precision: Precision::F64,
        kernel: KernelName::Force,
        variant: Variant::Baseline,
        twojmax: 2,
        cells: 3,
        atoms: config.nlocal as u64,
        steps: 1,
        batch: 20,
        refdata: String::new(),
        wg: 64,
    };
    let plan = plan::Plan::new(&force, &caps, &config, &tables).expect("plan");
    assert_eq!(plan.batches, [(0, 20), (20, 20), (40, 14)]);
    assert_eq!(plan.stages.len(), 4);
    assert!(plan.gather.is_some());
    let alone = Params {
        kernel: KernelName::ComputeY,
        ..force
    };
    match plan::Plan::new(&alone, &caps, &config, &tables) {
        Err(crate::Error::BadParameter { name, .. }) => assert_eq!(name, "batch"),
        other => panic!("{other:?}"),
    }
}

/// reorder and fused make U and its sums in one u_walks dispatch where its
/// workgroup arrays fit; with too little workgroup memory they fall back to
/// U of every pair, then the sums, and the other variants always do.
#[test]
fn compute_u_walks_where_its_rows_fit() {
    let config = lattice(8, 3);
    let tables = config.tables();
    let mut caps = Capabilities {
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        max_workgroups_per_dim: 65535,
        max_workgroup_invocations: 256,
        max_workgroup_storage: 48 << 10,
        ..Default::default()
    };
    let params = |variant| Params {
        precision: Precision::F64,
        kernel: KernelName::ComputeU,
        variant,
        twojmax: 8,
        cells: 3,
        atoms: config.nlocal as u64,
        steps: 1,
        batch: 0,
        refdata: String::new(),
        wg: 64,
    };
    let entries = |p: &Params, caps: &Capabilities| -> Vec<&'static str> {
        let plan = plan::Plan::new(p, caps, &config, &tables).expect("plan");
        plan.stages.iter().map(|s| s.1).collect()
    };
    for v in [Variant::Reorder, Variant::Fused] {
        assert_eq!(entries(&params(v), &caps), ["u_walks"]);
    }
    assert_eq!(
        entries(&params(Variant::ColumnMajor), &caps),
        ["u_pairs", "u_sums_staged"]
    );
    // 1 atom x 26 pairs a workgroup, 2 (2J + 1) reals of rows (a padding
    // column) and a switching function an invocation: 4,096 bytes at 2J =
    // 8 in f64.
    caps.max_workgroup_storage = 4095;
    assert_eq!(
        entries(&params(Variant::Fused), &caps),
        ["u_pairs", "u_sums_staged"]
    );
}

#[test]
fn cpu_platform_reproduces_the_reference_file() {
    let params = Params {
        precision: Precision::F64,
        kernel: KernelName::Force,
        variant: Variant::Reorder,
        twojmax: 2,
        cells: 0,
        atoms: 2,
        steps: 1,
        batch: 0,
        refdata: "../assets/testsnap/2J2_W.json".into(),
        wg: 64,
    };
    let mut k = SnapCpu::new(&params).expect("cpu");
    k.run();
    let v = k.validate();
    assert!(v.passed, "{}", v.detail);
}

/// Hand counts of the per-item loads and stores at 2J = 2 (rows (1, 0) of
/// 2 elements, (2, 0) and (2, 1) of 3; NY = 9, NU = 14, 2 chains), f32:
///
/// - u_pair: 5 geometry reals, U(0) stored (2); a row of j + 1 elements
///   loads 2 j complex and 2 j rootpq and stores j + 1 complex (8 j + 2):
///   10 + 18 + 18; 53 reals, a layer start a row (3 words).
/// - du_pair: 8 geometry reals, dU(0) (2), 12 j + 2 a row (14 + 26 + 26)
///   and U, dU loaded and dU stored for every element (54): 130 reals.
/// - U's walk (flat: both terms at every element, 2 rootpq), chain 0: U(0)
///   stored, rows (1, 0) and (2, 0), each element 2 rootpq and stored (4
///   reals): 5 + 2 + 8 + 12 = 27 reals, 2 words; chain 1: row (1, 0) for
///   the staircase (4 rootpq), then (2, 1): 5 + 4 + 12 = 21 reals, 1 word.
/// - dE's walk, chain 0: 8 geometry, element 0's U, Y and weight (5); row
///   (1, 0): ma 1 the previous row's U and a rootpq (3), ma 0 a rootpq,
///   and each element U, Y and weight (5): 14; row (2, 0): 8 + 9 + 6 = 23;
///   50 reals, 2 words a row. Chain 1: 8, row (1, 0) without its own
///   elements (4, a word), row (2, 1) (23, 2 words): 35 reals. With the
///   shares stored (2 each), de_chains is 89 reals and 7 words; in f64,
///   which remakes U instead of loading it, 10 + 6 fewer.
/// - y_pair of element 0 (j = 0): terms (0,0,0), (1,1,0), (2,2,0) with 1,
///   2, 3 mb and ma terms; each product u1, u2 and its coefficient (5),
///   each inner sum its factor (1), each term beta: 7 + 23 + 49 and the
///   element stored (2): 81 reals; (j, mb, ma), the term range and 3 words
///   a term: 12 words.
/// - u_walks at 26 neighbours (a workgroup an atom's chain): per atom 26
///   walks of each chain with their switching functions (28 + 22) and the
///   total U stored with each element's word: 1328 reals, 87 words.
#[test]
fn issued_counts_per_item_at_2j_2() {
    use super::model::{Counter, Pairing};
    use crate::apps::common::Traffic;
    let t = Tables::new(2, &[0.1; 5]);
    let k = Counter::new(&t, 26, Precision::F32);
    assert_eq!(k.u_pair(), Traffic::new(53, 3));
    assert_eq!(k.du_pair(), Traffic::new(130, 3));
    assert_eq!(k.walk(0, false, true), Traffic::new(27, 2));
    assert_eq!(k.walk(1, false, true), Traffic::new(21, 1));
    // Past the batch: the same walk, nothing stored.
    assert_eq!(k.walk(0, false, false), Traffic::new(27 - 12, 2));
    assert_eq!(k.walk(0, true, true), Traffic::new(50, 4));
    assert_eq!(k.walk(1, true, true), Traffic::new(35, 3));
    assert_eq!(k.de_chains(), Traffic::new(89, 7));
    let f64_counts = Counter::new(&t, 26, Precision::F64);
    assert_eq!(f64_counts.de_chains(), Traffic::new(89 - 16, 7));
    assert_eq!(k.y_pair(0, Pairing::Alone), Traffic::new(81, 12));
    assert_eq!(k.u_walks(2 * 54, 54), Traffic::new(1328, 87).times(54));
    // df64's walk takes a row's end elements' one term only: 2 j rootpq a row.
    let df64 = Counter::new(&t, 26, Precision::Df64);
    assert_eq!(df64.walk(0, false, true), Traffic::new(23, 2));
}

/// compute_Y's products alone are the tables' (nb x na a term): u1, u2
/// and the coefficient each where it pads (f32, f64), plus per inner sum
/// its factor and per term beta, the element stored.
#[test]
fn issued_y_products_follow_the_tables() {
    use super::model::{Counter, Pairing};
    for twoj in [2, 5, 8] {
        let t = Tables::new(twoj, &vec![0.1; sna::ncoeff(twoj)]);
        let k = Counter::new(&t, 26, Precision::F64);
        for e in 0..t.ny() {
            let terms = &t.terms[t.ystart[e] as usize..t.ystart[e + 1] as usize];
            let reals: u64 = terms
                .iter()
                .map(|x| u64::from(x.nb) * (5 * u64::from(x.na) + 1) + 1)
                .sum();
            let got = k.y_pair(e, Pairing::Alone);
            assert_eq!(got.reals, 2 + reals, "2J {twoj} element {e}");
            assert_eq!(got.words, 3 + 3 * terms.len() as u64);
        }
    }
}

/// Every kernel of every variant, in every precision, on the small lattice
/// at 2J = 2 and 8 requests at least the bytes the model moves (each
/// element of U, dU and Y is read again by the recursions, sums and
/// products), and a force call its kernels' and the gather's.
#[test]
fn issued_bytes_cover_the_model_for_every_variant() {
    let caps = Capabilities {
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        max_workgroups_per_dim: 65535,
        max_workgroup_invocations: 256,
        max_workgroup_storage: 48 << 10,
        ..Default::default()
    };
    for twoj in [2, 8] {
        let config = lattice(twoj, 11);
        let t = config.tables();
        for p in Precision::ALL {
            for &variant in Variant::ALL {
                let mut stages = 0.0;
                for &kernel in KernelName::ALL {
                    if variant == Variant::Fused && kernel == KernelName::ComputeDu {
                        continue;
                    }
                    let params = Params {
                        precision: p,
                        kernel,
                        variant,
                        twojmax: twoj,
                        cells: 3,
                        atoms: config.nlocal as u64,
                        steps: 1,
                        batch: 0,
                        refdata: String::new(),
                        wg: 64,
                    };
                    let plan = plan::Plan::new(&params, &caps, &config, &t).expect("plan");
                    let issued = model::issued_bytes(&plan, &t, &config, p, 1).expect("known");
                    let fused = variant == Variant::Fused;
                    let dram = model(kernel, &t, &config, 1, p, fused).bytes;
                    let what = format!("2J {twoj} {p} {variant} {kernel}");
                    assert!(issued >= dram, "{what}: {issued} < {dram}");
                    if kernel == KernelName::Force {
                        assert!(issued > stages, "{what}: {issued} against {stages}");
                    } else {
                        stages += issued;
                    }
                }
            }
        }
    }
}
