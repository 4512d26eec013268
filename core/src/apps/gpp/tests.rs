//! Unit tests of the gpp app: sizes, the host references, the model, cases and plans.

use super::plan::Plan;
use super::reference::{Inputs, compare, validate};
use super::*;

#[test]
fn wx_is_3_4_5() {
    assert_eq!(wx(), [3.0, 4.0, 5.0]);
}

#[test]
fn sizes_parse() {
    assert_eq!(Dims::parse("default").ok(), Some(DEFAULT_DIMS));
    assert_eq!(
        Dims::parse("2, 3,4").ok(),
        Some(Dims {
            bands: 2,
            ngpown: 3,
            ncouls: 4
        })
    );
    assert!(Dims::parse("2,3").is_err());
    assert!(Dims::parse("0,3,4").is_err());
    assert!(Dims::parse("huge").is_err());
}

/// The factored host reference reproduces the published achtemp(0) at the
/// published size and inputs (both published summation orders).
#[test]
fn host_reference_matches_published_value() {
    let i = Inputs::new(DEFAULT_DIMS, InputSet::Reference, Precision::F64);
    let got = i.expected();
    let (re, im) = PUBLISHED_ACHTEMP0;
    let v = validate(
        &got,
        &got,
        DEFAULT_DIMS,
        InputSet::Reference,
        Precision::F64,
    );
    assert!(v.passed, "{}", v.detail);
    let serial = [-264241220.914570, 1321205332.084101];
    let e = (got[0] - serial[0]).hypot(got[1] - serial[1]) / re.hypot(im);
    assert!(e < PUBLISHED_TOL, "serial: {e:e}");
}

/// The reference's own loop order agrees with the factored sum on random inputs.
#[test]
fn direct_loops_match_factored_sum() {
    let d = Dims {
        bands: 24,
        ngpown: 20,
        ncouls: 300,
    };
    let i = Inputs::new(d, InputSet::Random, Precision::F64);
    let v = compare(&i.direct(), &i.expected(), 1e-13, "direct");
    assert!(v.passed, "{}", v.detail);
}

#[test]
fn model_counts() {
    let m = model(SMALL_DIMS, Precision::F64);
    assert_eq!(m.flops, (16.0 * 32.0) * (45.0 * 256.0 + 34.0));
    assert_eq!(
        m.bytes,
        ((2.0 * 16.0 * 32.0 + 2.0 * 32.0 * 256.0) * 2.0 + 32.0 + 9.0) * 8.0
    );
}

/// Hand count at X = 2, N = 3, M = 8, wg 4, share 2 (teams of 2 lanes),
/// f32: a pair loads 8 plane waves x 4 reals (32) and 2 lanes x 10 reals
/// (20) and stores one partial (6): 58 reals; 6 pairs 348; pass 2 loads
/// the 6 partials (36) and stores achtemp (6): 390 reals, 1560 bytes.
/// Order, unroll and the reduction's form move no access.
#[test]
fn issued_bytes_count_every_lane_and_plane_wave() {
    let small = Params {
        precision: Precision::F32,
        dims: Dims::parse("2,3,8").expect("size"),
        reduction: Reduction::Tree,
        order: Order::Xn,
        inputs: InputSet::Random,
        wg: 4,
        unroll: 1,
        share: 2,
        chunk: 0,
    };
    assert_eq!(issued_bytes(&small), 1560.0);
    for other in [
        Params {
            reduction: Reduction::Subgroup,
            order: Order::Nx,
            unroll: 3,
            ..small
        },
        Params {
            reduction: Reduction::Atomic,
            ..small
        },
    ] {
        assert_eq!(issued_bytes(&other), 1560.0, "{}", other.case().variant);
    }
    // df64 and f64: the same reals, 8 bytes each.
    let df64 = Params {
        precision: Precision::Df64,
        ..small
    };
    assert_eq!(issued_bytes(&df64), 3120.0);
    // The atomic reduction's pass 2 reads 4096 slots, not one per pair.
    let many = Params {
        dims: Dims::parse("64,65,8").expect("size"),
        ..small
    };
    let atomic = Params {
        reduction: Reduction::Atomic,
        ..many
    };
    let fewer = 6.0 * (64.0 * 65.0 - f64::from(ATOMIC_SLOTS)) * 4.0;
    assert_eq!(issued_bytes(&many) - issued_bytes(&atomic), fewer);
}

/// At the presets each band re-reads the I_eps and wtilde rows the model
/// moves once: small (16 teams of 16 lanes) requests 612,358 reals against
/// the model's 34,857, 17.6 times as many.
#[test]
fn issued_bytes_exceed_the_model_at_the_presets() {
    let small = Params {
        precision: Precision::F32,
        dims: SMALL_DIMS,
        reduction: Reduction::Tree,
        order: Order::Xn,
        inputs: InputSet::Random,
        wg: 256,
        unroll: 6,
        share: 16,
        chunk: 0,
    };
    for (dims, least) in [(SMALL_DIMS, 17.0), (DEFAULT_DIMS, 100.0)] {
        for precision in Precision::ALL {
            let c = Params {
                precision,
                dims,
                ..small
            };
            let ratio = issued_bytes(&c) / model(dims, precision).bytes;
            assert!(ratio > least, "{dims:?} {precision}: {ratio}");
        }
    }
    assert_eq!(issued_bytes(&small), 612_358.0 * 4.0);
    // Never below the model, however few bands, plane waves or lanes.
    for (bands, ngpown, ncouls, share) in [(1, 1, 4096, 256), (2, 1, 64, 16), (1, 3, 8, 256)] {
        let c = Params {
            dims: Dims {
                bands,
                ngpown,
                ncouls,
            },
            share,
            ..small
        };
        let (issued, model) = (issued_bytes(&c), model(c.dims, c.precision).bytes);
        assert!(issued >= model, "{:?}: {issued} < {model}", c.dims);
    }
}

#[test]
fn cases_round_trip_through_params() {
    let caps = Capabilities {
        max_workgroup_invocations: 1024,
        max_workgroups_per_dim: 65535,
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        subgroups: true,
        subgroup_size: (32, 32),
        ..Default::default()
    };
    let req = Request::default()
        .set("size", "small")
        .set("unroll", "1,5")
        .precisions(&[Precision::F32]);
    let cases = Gpp.cases(&req, &caps).expect("cases");
    assert_eq!(cases.len(), 2 * 2 * 2 * 2);
    assert_eq!(cases[0].variant, "tree/xn/random/wg256/u1/s16");
    assert_eq!(cases[0].text("size"), "16,32,256");
    for c in &cases {
        assert_eq!(&Params::try_from(c).expect("parses").case(), c);
    }
    match Gpp.cases(&req.clone().set("wg", "16"), &caps) {
        Err(crate::Error::BadParameter { name, .. }) => assert_eq!(name, "wg"),
        other => panic!("{other:?}"),
    }
    for share in ["3", "512"] {
        match Gpp.cases(&req.clone().set("share", share), &caps) {
            Err(crate::Error::BadParameter { name, .. }) => assert_eq!(name, "share"),
            other => panic!("share {share}: {other:?}"),
        }
    }
}

/// Chains are blocked above 1024 terms (2048 in f64): at the default size
/// a team of 16 sums 2048 terms, a whole workgroup of 256 sums 128.
#[test]
fn long_chains_are_blocked_per_precision() {
    let base = Params {
        precision: Precision::F64,
        dims: DEFAULT_DIMS,
        reduction: Reduction::Tree,
        order: Order::Nx,
        inputs: InputSet::Reference,
        wg: 256,
        unroll: 6,
        share: 16,
        chunk: 0,
    };
    assert_eq!(base.chain(), 2048);
    assert!(!base.blocked());
    for p in [Precision::F32, Precision::Df64] {
        assert!(
            Params {
                precision: p,
                ..base
            }
            .blocked(),
            "{p}"
        );
        assert!(
            !Params {
                precision: p,
                share: 1,
                ..base
            }
            .blocked(),
            "{p}"
        );
    }
    assert!(Params { share: 32, ..base }.blocked());
}

/// A forced chunk splits the arrays into aligned row ranges covering every
/// row; a chunk smaller than one aligned row is an error naming `chunk`.
#[test]
fn plans_chunk_the_rows() {
    let caps = Capabilities {
        max_storage_binding: 1 << 30,
        max_buffer: 1 << 30,
        ..Default::default()
    };
    let params = Params {
        precision: Precision::F32,
        dims: SMALL_DIMS,
        reduction: Reduction::Tree,
        order: Order::Nx,
        inputs: InputSet::Random,
        wg: 64,
        unroll: 1,
        share: 1,
        chunk: 5 * 2048,
    };
    let plan = Plan::new(&params, &caps, 256).expect("plan");
    assert_eq!(plan.pairs.len(), 4 * 7);
    assert_eq!(plan.grids[0], (5, 5));
    assert!(!plan.ragged);
    // Teams of 4 bands: ceil(5 / 4) workgroups a chunk, the last one ragged.
    let shared = Plan::new(&Params { share: 4, ..params }, &caps, 256).expect("plan");
    assert_eq!(shared.grids[0], (2, 5));
    assert!(shared.ragged);
    let even = Params {
        share: 4,
        chunk: 0,
        ..params
    };
    assert!(!Plan::new(&even, &caps, 256).expect("plan").ragged);
    let covered: u64 = plan.pairs.iter().take(7).map(|(_, igp)| igp.1).sum();
    assert_eq!(covered, SMALL_DIMS.ngpown);
    let tiny = Params {
        chunk: 100,
        ..params
    };
    match Plan::new(&tiny, &caps, 256) {
        Err(crate::Error::OverLimit { limit, .. }) => assert_eq!(limit, "chunk"),
        other => panic!("{other:?}"),
    }
}
