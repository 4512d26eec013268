//! Unit tests of the comd app: cases, parameters, plans and the CPU reference.

use super::plan::Plan;
use super::*;
use crate::error::Error;

/// A small force case: 6 unit cells (864 atoms), atom mapping, aos.
pub(super) fn small(precision: Precision) -> Params {
    Params {
        precision,
        kernel: KernelName::Force,
        layout: Layout::Aos,
        mapping: Some(Mapping::Atom),
        wg: 128,
        groups: 0,
        stage: 0,
        cells: 6,
        atoms: 864,
        steps: 1,
        init: Init::Displaced,
    }
}

fn caps() -> Capabilities {
    Capabilities {
        max_workgroup_invocations: 256,
        max_storage_binding: 1 << 27,
        max_buffer: 1 << 28,
        max_workgroup_storage: 16384,
        max_workgroups_per_dim: 65535,
        ..Default::default()
    }
}

#[test]
fn cases_expand_mappings_only_for_the_force_kernels() {
    let caps = caps();
    let req = Request::default()
        .set("size", "small")
        .precisions(&[Precision::F32]);
    let cases = Comd.cases(&req, &caps).expect("cases");
    assert_eq!(cases.len(), 3 * 3 + 2 * 3 * 2);
    assert!(
        Comd.cases(&Request::default().set("size", "4"), &caps)
            .is_err()
    );
    // A stage is a count of atoms: text is a clear error before any work.
    match Comd.cases(&Request::default().set("stage", "many"), &caps) {
        Err(Error::BadParameter { name, .. }) => assert_eq!(name, "stage"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn arrays_past_a_binding_are_refused_before_the_system_is_built() {
    // 200 unit cells: 32 million atoms, 384 MB a vector in f32 aos, past
    // a buffer of 256 MiB. Refused at once (building the system would
    // take seconds), naming the largest size that fits.
    let req = Request::default()
        .set("size", "200")
        .set("kernel", "advance_velocity")
        .set("layout", "aos")
        .precisions(&[Precision::F32]);
    let Err(Error::BadParameter { name, reason }) = Comd.cases(&req, &caps()) else {
        panic!("200 unit cells fit a binding of 128 MiB");
    };
    assert_eq!(name, "size");
    assert!(reason.contains("max_buffer_size"), "{reason}");
    let largest: u64 = reason
        .rsplit("the largest that fits is ")
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a largest size");
    let at = |n: u64| Comd.cases(&req.clone().set("size", n.to_string()), &caps());
    assert!(at(largest).is_ok() && at(largest + 1).is_err(), "{largest}");
    // The host's memory too: 80 unit cells hold about 480 MB there (the
    // start and the reference, 2 million atoms of 80 bytes each, and
    // 150 MB of buffers' bytes).
    let small_host = Capabilities {
        host_memory: Some(256 << 20),
        ..caps()
    };
    match Comd.cases(&req.clone().set("size", "80"), &small_host) {
        Err(Error::BadParameter { reason, .. }) => {
            assert!(reason.contains("host memory"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn cpu_reference_checks_pass() {
    for &kernel in KernelName::ALL {
        let params = Params {
            kernel,
            mapping: kernel.computes_forces().then_some(Mapping::Atom),
            steps: 5,
            init: Init::Comd,
            ..small(Precision::F64)
        };
        let mut k = cpu::ComdCpu::new(&params).expect("cpu");
        k.run();
        let v = k.validate();
        assert!(v.passed, "{kernel}: {}", v.detail);
    }
}

#[test]
fn cases_round_trip_through_params() {
    let req = Request::default()
        .set("size", "small")
        .set("groups", "0,3")
        .set("stage", "0,512")
        .precisions(&[Precision::F32, Precision::Df64]);
    let cases = Comd.cases(&req, &caps()).expect("cases");
    assert!(cases.iter().any(|c| c.variant == "cell/soa/wg128/g3"));
    assert!(cases.iter().any(|c| c.variant == "cell/soa/wg128/g3/s512"));
    // A stage is the cell mapping's: the atom mapping's cases do not multiply.
    assert!(
        !cases
            .iter()
            .any(|c| c.variant.starts_with("atom/") && c.variant.ends_with("/s512"))
    );
    assert!(
        cases
            .iter()
            .any(|c| c.variant == "aos4/wg128" && c.text("variant") == "-")
    );
    for c in &cases {
        let p = Params::try_from(c).expect("parses");
        assert_eq!(&p.case(), c);
    }
}

/// The plan dispatches every atom, slot and cell, and names the limit or
/// parameter a shape cannot meet.
#[test]
fn plans_cover_the_system_and_check_the_limits() {
    let step = Params {
        kernel: KernelName::Step,
        ..small(Precision::F32)
    };
    let plan = Plan::new(&step, &caps(), [3, 3, 3], 32).expect("plan");
    assert_eq!(plan.nslots, 27 * 32);
    let entries: Vec<&str> = plan.passes.iter().map(|(e, _)| *e).collect();
    assert_eq!(entries, ["clear_cells", "advance_bin", "force_atom"]);
    assert_eq!(plan.passes[1].1, (7, 1)); // 864 atoms in groups of 128
    let fixed = Params { groups: 3, ..step };
    let plan = Plan::new(&fixed, &caps(), [3, 3, 3], 32).expect("plan");
    assert!(
        plan.passes
            .iter()
            .all(|(_, shape)| *shape == (3, 1) || *shape == (1, 1))
    );
    let cell = Params {
        mapping: Some(Mapping::Cell),
        wg: 16,
        ..step
    };
    match Plan::new(&cell, &caps(), [3, 3, 3], 32) {
        Err(Error::BadParameter { name, .. }) => assert_eq!(name, "wg"),
        other => panic!("{other:?}"),
    }
    // A stage of 864 atoms in f64 takes 20 KiB: over the 16 KiB limit.
    let whole = Params {
        mapping: Some(Mapping::Cell),
        stage: 864,
        ..small(Precision::F64)
    };
    assert!(matches!(
        Plan::new(&whole, &caps(), [3, 3, 3], 32),
        Err(Error::OverLimit { .. })
    ));
    assert!(Plan::new(&Params { stage: 96, ..whole }, &caps(), [3, 3, 3], 32).is_ok());
    // A round stages whole cells, so the stage holds at least one.
    match Plan::new(&Params { stage: 31, ..whole }, &caps(), [3, 3, 3], 32) {
        Err(Error::BadParameter { name, .. }) => assert_eq!(name, "stage"),
        other => panic!("{other:?}"),
    }
    // df64's candidate filter stages 16 bytes more per atom: 448 atoms fit
    // 16 KiB in f64 (13,808 bytes, with the far place) but not in df64
    // (20,992).
    let filtered = |precision: Precision| {
        let params = Params {
            stage: 448,
            precision,
            wg: 256,
            ..whole
        };
        Plan::new(&params, &caps(), [3, 3, 3], 32)
    };
    assert!(filtered(Precision::F64).is_ok());
    assert!(matches!(
        filtered(Precision::Df64),
        Err(Error::OverLimit { needed: 20992, .. })
    ));
    // The default by precision, and never under a cell's slots.
    let default_stage = |precision: Precision, cap: u32| {
        let params = Params {
            stage: 0,
            precision,
            wg: 256,
            ..whole
        };
        Plan::new(&params, &caps(), [3, 3, 3], cap)
            .expect("plan")
            .stage
    };
    assert_eq!(default_stage(Precision::F64, 32), 192);
    assert_eq!(default_stage(Precision::Df64, 32), 128);
    assert_eq!(default_stage(Precision::F32, 32), 256);
    assert_eq!(default_stage(Precision::F64, 200), 200);
    let tiny = Capabilities {
        max_storage_binding: 1000,
        ..caps()
    };
    assert!(matches!(
        Plan::new(&step, &tiny, [3, 3, 3], 32),
        Err(Error::OverLimit { .. })
    ));
}

/// The f32 candidate filter (shaders/comd/hits_coarse.wgsl) as the shader
/// computes it: copies relative to the cell's corner rounded to f32, their
/// squares, atom i's threshold against the f32 cutoff widened by `margin`
/// and the three-fma test, each product fused or not, as a driver may.
fn coarse_hit(ri: [f64; 3], rj: [f64; 3], corner: [f64; 3], fused: bool, margin: f32) -> bool {
    let fma = |a: f32, b: f32, c: f32| if fused { a.mul_add(b, c) } else { a * b + c };
    let norm2 = |p: [f32; 3]| fma(p[0], p[0], fma(p[1], p[1], p[2] * p[2]));
    let q: [f32; 3] = std::array::from_fn(|k| (ri[k] - corner[k]) as f32);
    let p: [f32; 3] = std::array::from_fn(|k| (rj[k] - corner[k]) as f32);
    let c = (md::CUTOFF * md::CUTOFF) as f32 * (1.0 + margin);
    let t = fma(
        -2.0 * q[0],
        p[0],
        fma(-2.0 * q[1], p[1], fma(-2.0 * q[2], p[2], norm2(p))),
    );
    t < c - norm2(q)
}

#[test]
fn the_coarse_filter_keeps_every_pair_inside_the_cutoff() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(22);
    let rc = md::CUTOFF;
    let (mut pairs, mut missed_unwidened) = (0, 0);
    for _ in 0..200_000 {
        // Boxes of 3 to 100 cells a side, so cells from 1 to 4/3 cutoffs
        // wide, and pairs within 1e-7 of the cutoff, in any direction.
        let len = rng.random_range(3.0..101.0) * rc;
        let n = (len / rc).floor();
        let edge = len / n;
        let k: [f64; 3] = std::array::from_fn(|_| rng.random_range(0..n as u32) as f64);
        // The shader's corner: f32(k) * f32(L) / f32(n), near enough.
        let corner = k.map(|k| f64::from(k as f32 * len as f32 / n as f32));
        let ri: [f64; 3] = std::array::from_fn(|d| (k[d] + rng.random::<f64>()) * edge);
        let dir: [f64; 3] = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
        let norm = dir.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm < 1e-3 {
            continue;
        }
        let r = rc * (1.0 - rng.random::<f64>() * 1e-7);
        let rj: [f64; 3] = std::array::from_fn(|d| ri[d] + r * dir[d] / norm);
        if (0..3).map(|d| (rj[d] - ri[d]).powi(2)).sum::<f64>() >= rc * rc {
            continue;
        }
        pairs += 1;
        for fused in [false, true] {
            assert!(
                coarse_hit(
                    ri,
                    rj,
                    corner,
                    fused,
                    1.0 / (1u32 << COARSE_MARGIN_BITS) as f32
                ),
                "missed {ri:?} {rj:?} in a box of {len}"
            );
        }
        missed_unwidened += usize::from(!coarse_hit(ri, rj, corner, true, 0.0));
    }
    assert!(pairs > 150_000, "{pairs}");
    // Without the margin the f32 test does miss pairs this close: the
    // margin, not luck, keeps them.
    assert!(missed_unwidened > 0);
}

/// Three atoms in a box of 3 x 3 x 3 link cells (18 A a side, cells of 6
/// A), two in cell 0 and one in cell 1, all within the cutoff of each
/// other. With 3 cells a side every cell is around every other, so each
/// atom has the other two as candidates, and both inside: 6 and 6. The
/// cells get 8 slots (the fullest holds 2).
fn three_atoms() -> System {
    let pos = vec![1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 6.5, 1.0, 1.0];
    System::new([18.0; 3], pos, vec![0.0; 9]).expect("3 cells a side")
}

/// Hand counts on [`three_atoms`] in f32 (4-byte reals and words).
///
/// force_atom: 216 slots load their cell's count; each of the 3 atoms
/// loads its position (3 reals), 27 counts, its 2 candidates' positions (6)
/// and its 2 hits' again (6), its id, and stores force and energy (4):
/// 216 + 3 x 28 = 300 words, 3 x 19 = 57 reals, 1428 bytes.
///
/// force_cell at wg 8: every cell loads 27 counts (729 words); cell 0's 2
/// atoms are loaded by 4 invocations each and cell 1's one by 8 (16
/// positions, 48 reals); every cell stages all 3 atoms (27 x 9 = 243
/// reals); each atom its id (3 words) and force and energy (12 reals):
/// 732 words, 303 reals, 4140 bytes.
#[test]
fn issued_bytes_follow_the_cells_and_candidates() {
    let mut s = three_atoms();
    let pairs = s.compute_forces();
    assert_eq!(pairs, (6, 6));
    let cap = capacity(&s);
    assert_eq!(cap, 8);
    let cells = model::Cells {
        system: &s,
        cap,
        pairs,
    };
    let atom = Params {
        wg: 8,
        atoms: 3,
        ..small(Precision::F32)
    };
    assert_eq!(issued_bytes(&atom, &cells), 1428.0);
    let cell = Params {
        mapping: Some(Mapping::Cell),
        ..atom
    };
    assert_eq!(issued_bytes(&cell, &cells), 4140.0);
    // The step adds per atom advance_bin's 18 reals and 3 words and the
    // kick's 6 reals, and a cleared count a cell: 27 + 9 words, 72 reals.
    let step = Params {
        kernel: KernelName::Step,
        steps: 2,
        ..atom
    };
    assert_eq!(
        issued_bytes(&step, &cells),
        2.0 * (1428.0 + 36.0 * 4.0 + 72.0 * 4.0)
    );
    // df64: the reals take 8 bytes, the words still 4.
    let df64 = Params {
        precision: Precision::Df64,
        ..atom
    };
    assert_eq!(issued_bytes(&df64, &cells), 1428.0 + 57.0 * 4.0);
}

/// On the small preset every kernel requests at least what the model
/// moves: the per-atom kernels and the redistribution exactly that (each
/// datum is touched once), the force several times it (every neighbour's
/// position once per candidate, or per staging cell; the step at least twice).
#[test]
fn issued_bytes_cover_the_model_on_the_small_preset() {
    for p in Precision::ALL {
        let base = small(p);
        let (s, pairs) = initial(&base, p).expect("start");
        let cells = model::Cells {
            system: &s,
            cap: capacity(&s),
            pairs,
        };
        for &kernel in KernelName::ALL {
            for mapping in [Mapping::Atom, Mapping::Cell] {
                let params = Params {
                    kernel,
                    mapping: kernel.computes_forces().then_some(mapping),
                    ..base
                };
                let issued = issued_bytes(&params, &cells);
                let (n, nc) = (s.atoms() as u64, s.ncells() as u64);
                let dram = model(
                    kernel,
                    n,
                    nc,
                    pairs,
                    1,
                    p,
                    form::pair_flops(params.mapping, p),
                );
                if kernel.computes_forces() {
                    assert!(
                        issued > 2.0 * dram.bytes,
                        "{kernel} {mapping} {p}: {issued}"
                    );
                } else {
                    assert_eq!(issued, dram.bytes, "{kernel} {p}");
                }
            }
        }
    }
}
