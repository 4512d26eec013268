//! The work and traffic model of the snap kernels (FLOPs and bytes per
//! run), from the index tables, and the bytes their loads and stores
//! request (their L1 traffic).

use super::plan::{Plan, chains, usum_shape};
use super::sna::{Config, Tables};
use super::{KernelName, y_slots};
use crate::app::Model;
use crate::apps::common::Traffic;
use crate::precision::Precision;

/// Work of one run of `kernel` from the tables: complex multiplies and adds
/// as the kernels do them (6 and 2 flops, 2 for a real scale). fused moves
/// compute_dU's work into compute_dE and its traffic to U and Y alone; the
/// staircase rows its chain walks repeat are not counted (useful work, the
/// same count as the other variants and TestSNAP's records).
pub(super) fn model(
    kernel: KernelName,
    t: &Tables,
    c: &Config,
    steps: u64,
    p: Precision,
    fused: bool,
) -> Model {
    let (ny, pairs, atoms) = (t.ny() as f64, c.pairs() as f64, c.nlocal as f64);
    let nu = t.nu() as f64;
    let rb = p.real_bytes() as f64;
    let y_flops: f64 = t
        .terms
        .iter()
        .map(|x| x.nb as f64 * (x.na as f64 * 10.0 + 4.0) + 4.0)
        .sum();
    let du = Model {
        flops: pairs * 3.0 * ny * 44.0,
        bytes: (pairs * 8.0 + 2.0 * pairs * ny + 6.0 * pairs * ny) * rb,
    };
    let de = Model {
        flops: pairs * 3.0 * ny * 6.0,
        bytes: (6.0 * pairs * ny + 2.0 * atoms * ny + 3.0 * pairs) * rb,
    };
    let (du, de) = if fused {
        let bytes = (pairs * 8.0 + 2.0 * pairs * ny + 2.0 * atoms * ny + 3.0 * pairs) * rb;
        let flops = du.flops + de.flops;
        (
            Model {
                flops: 0.0,
                bytes: 0.0,
            },
            Model { flops, bytes },
        )
    } else {
        (du, de)
    };
    let stages = [
        Model {
            flops: pairs * ny * 18.0 + atoms * ny * c.nnbr as f64 * 4.0,
            bytes: (pairs * 8.0 + 2.0 * pairs * ny + 2.0 * atoms * nu) * rb,
        },
        Model {
            flops: atoms * y_flops,
            bytes: (2.0 * atoms * nu + 2.0 * atoms * ny) * rb,
        },
        du,
        de,
    ];
    match kernel {
        KernelName::Force => Model {
            flops: steps as f64 * stages.iter().map(|s| s.flops).sum::<f64>(),
            bytes: steps as f64 * (stages.iter().map(|s| s.bytes).sum::<f64>() + 6.0 * pairs * rb),
        },
        k => stages[k.stage()],
    }
}

/// The forms the snap module takes in a precision (see `spec` in mod.rs),
/// as far as they change its loads.
#[derive(Clone, Copy, Debug)]
struct Forms {
    /// `Y_PAD_ZERO`: compute_Y reads a u2 outside its row at a clamped place.
    pad_zero: bool,
    /// `DE_REMAKE_U`: fused's dE remakes U instead of loading it.
    remake_u: bool,
    /// `U_WALK_FLAT`: U's walk takes both terms at a row's ends.
    flat: bool,
}

impl Forms {
    fn of(p: Precision) -> Forms {
        Forms {
            pad_zero: p != Precision::Df64,
            remake_u: p == Precision::F64,
            flat: p != Precision::Df64,
        }
    }
}

/// How compute_Y's `y_pair` is called: with `two` the constant false
/// (y_atom, y_elems), or from a slot of one or two elements known at run
/// time (y_tiles), where the load of the second element's first u2 stays
/// whether or not the slot has a second element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Pairing {
    /// `two` the constant false.
    Alone,
    /// A slot, with a second element or not.
    Slot(bool),
}

/// Geometry reals U's recursion reads, each once (the repeated reads of r
/// and z0 in straight-line code are one load): the Cayley-Klein map's x,
/// y, z, r and z0.
const GEO_U: u64 = 5;
/// Geometry reals dU's recursion reads: [`GEO_U`]'s, dz0/dr for the map's
/// derivative, and the switching function and its derivative.
const GEO_DU: u64 = 8;

/// The loads and stores of the snap kernels per work item, as
/// `shaders/snap` issues them, from the tables of one 2J.
pub(super) struct Counter<'a> {
    t: &'a Tables,
    nnbr: u64,
    forms: Forms,
}

impl<'a> Counter<'a> {
    /// The counts of the module for tables `t`, `nnbr` neighbours an atom, in `p`.
    pub(super) fn new(t: &'a Tables, nnbr: usize, p: Precision) -> Counter<'a> {
        Counter {
            t,
            nnbr: nnbr as u64,
            forms: Forms::of(p),
        }
    }

    /// The stored rows (j, mb) of layers 1..=2J (2 mb <= j), in storage order.
    fn rows(&self) -> impl Iterator<Item = (u64, u64)> {
        (1..=u64::from(self.t.twojmax)).flat_map(|j| (0..=j / 2).map(move |mb| (j, mb)))
    }

    /// `u_pair`, U of one pair: the geometry; U(0) stored; per row its
    /// previous row's layer start (a word), and per element the previous
    /// row's one or two elements each with its rootpq, and the element
    /// stored (8 j + 2 reals a row of j + 1 elements).
    pub(super) fn u_pair(&self) -> Traffic {
        let rows: Traffic = self.rows().map(|(j, _)| Traffic::new(8 * j + 2, 1)).sum();
        Traffic::new(GEO_U + 2, 0) + rows
    }

    /// `u_sum` over every half element of one atom: each element's
    /// neighbours' U and switching functions (3 reals each), its (j, mb,
    /// ma) (a word), and the total U stored whole (NU complex over the
    /// elements, a row's mirror with it).
    pub(super) fn u_sums(&self) -> Traffic {
        let (ny, nu) = (self.t.ny() as u64, self.t.nu() as u64);
        Traffic::new(3 * self.nnbr * ny + 2 * nu, ny)
    }

    /// One invocation's walk of chain `own` (`shaders/snap/walk.wgsl`):
    /// U's (`du` false; `live` where it stores) or dU's along one
    /// direction with its dE. The row sums' stores are the workgroup's
    /// ([`Counter::u_walks`]); the rows kept in workgroup or private
    /// memory are not storage traffic.
    pub(super) fn walk(&self, own: u64, du: bool, live: bool) -> Traffic {
        let f = self.forms;
        let flat = f.flat && !du;
        let mut c = Traffic::new(if du { GEO_DU } else { GEO_U }, 0);
        if own == 0 {
            // Element 0: dE's U and Y and weight, or U stored.
            c.reals += match (du, live) {
                (true, _) => 5,
                (false, true) => 2,
                (false, false) => 0,
            };
        }
        for mb in 0..=own {
            let mine = mb == own;
            let last = if mine {
                u64::from(self.t.twojmax)
            } else {
                2 * mb + 1
            };
            for j in (2 * mb).max(1)..=last {
                // The previous row's layer start where dU reads U from it;
                // the row's own where its elements are stored or read
                // (past the batch too: only the stores are skipped).
                c.words += u64::from(du) + u64::from(mine);
                for ma in (0..=j).rev() {
                    let lo = flat || ma > 0;
                    let hi = flat || ma < j;
                    // The previous row's U (dU's walk), and the rootpq of each term.
                    c.reals += 2 * u64::from(du && lo) + u64::from(lo) + u64::from(hi);
                    if mine {
                        c.reals += match (du, live) {
                            // U loaded unless remade, Y and the weight.
                            (true, _) => 2 * u64::from(!f.remake_u) + 3,
                            (false, true) => 2,
                            (false, false) => 0,
                        };
                    }
                }
            }
        }
        c
    }

    /// `u_walks` over `groups` workgroups for a batch of `atoms` atoms:
    /// every invocation walks its chain (past the batch, the batch's first
    /// pair, storing nothing), the live ones load their switching function,
    /// and the workgroup's row sums store every atom's total U whole, each
    /// element with its (j, mb, ma).
    pub(super) fn u_walks(&self, groups: u64, atoms: u64) -> Traffic {
        let nch = chains(self.t.twojmax) as u64;
        let (per, wg) = usum_shape(self.nnbr as usize);
        let (per, wg) = (u64::from(per), u64::from(wg));
        let walks: Vec<[Traffic; 2]> = (0..nch)
            .map(|own| [self.walk(own, false, false), self.walk(own, false, true)])
            .collect();
        let mut c: Traffic = (0..groups)
            .map(|w| {
                let live = atoms.saturating_sub(w / nch * per).min(per) * self.nnbr;
                let [dead_walk, live_walk] = walks[(w % nch) as usize];
                (live_walk + Traffic::new(1, 0)).times(live) + dead_walk.times(wg - live)
            })
            .sum();
        let (ny, nu) = (self.t.ny() as u64, self.t.nu() as u64);
        c += Traffic::new(2 * nu, ny).times(atoms);
        c
    }

    /// `y_pair` of half element `e` as `pairing` calls it: its (j, mb, ma)
    /// and term range (3 words); per term its 3 words and beta; per
    /// inner sum the second element's first u2 (a slot's, where in its
    /// row), the Clebsch-Gordan factor of the sum; per product u1, u2 and
    /// the coefficients; the one or two elements stored.
    pub(super) fn y_pair(&self, e: usize, pairing: Pairing) -> Traffic {
        let t = self.t;
        let [j, _, ma] = t.elems[e].map(i64::from);
        let two = pairing == Pairing::Slot(true);
        let mut c = Traffic::new(2 + 2 * u64::from(two), 3);
        for x in &t.terms[t.ystart[e] as usize..t.ystart[e + 1] as usize] {
            let (j1, j2) = (i64::from(x.j1), i64::from(x.j2));
            let sum = ma + (j1 + j2 - j) / 2;
            let lo = 0.max(sum - j2);
            let hi = j1.min(sum + i64::from(two));
            let mut inner = 0;
            for ma1 in lo..=hi {
                let ma2 = sum - ma1;
                inner += 2 + if self.forms.pad_zero {
                    3 + u64::from(two)
                } else {
                    3 * u64::from(ma2 >= 0) + u64::from(two && ma2 < j2)
                };
            }
            let u2b = matches!(pairing, Pairing::Slot(_)) && sum - lo < j2;
            let sum_reals = 2 * u64::from(u2b) + inner + 1;
            c += Traffic::new(sum_reals * u64::from(x.nb) + 1, 3);
        }
        c
    }

    /// compute_Y of one atom: every half element alone (y_atom, y_elems).
    pub(super) fn y_alone(&self) -> Traffic {
        (0..self.t.ny())
            .map(|e| self.y_pair(e, Pairing::Alone))
            .sum()
    }

    /// compute_Y of one atom by slots (y_tiles): each slot's word and its
    /// one or two elements.
    pub(super) fn y_slots(&self) -> Traffic {
        y_slots(self.t)
            .into_iter()
            .map(|v| {
                let slot = Pairing::Slot(v > 0xffff);
                self.y_pair((v & 0xffff) as usize, slot) + Traffic::new(0, 1)
            })
            .sum()
    }

    /// `du_pair`, dU of one pair along one direction: the geometry, dU(0)
    /// stored; per row its previous row's layer start, per element the
    /// previous row's dU and U for each of its one or two terms with the
    /// rootpq (5 reals a term), the element stored; then U and dU of every
    /// element loaded and dU with the switching function stored.
    pub(super) fn du_pair(&self) -> Traffic {
        let ny = self.t.ny() as u64;
        let rows: Traffic = self.rows().map(|(j, _)| Traffic::new(12 * j + 2, 1)).sum();
        Traffic::new(GEO_DU + 2 + 6 * ny, 0) + rows
    }

    /// `de_pair`: dU, Y and the weight of every element, fij stored.
    pub(super) fn de_pair(&self) -> Traffic {
        Traffic::new(5 * self.t.ny() as u64 + 1, 0)
    }

    /// `de_chains` of one pair and direction: each chain's walk and its
    /// share of dE stored (a complex slot of dulist).
    pub(super) fn de_chains(&self) -> Traffic {
        let nch = chains(self.t.twojmax) as u64;
        (0..nch)
            .map(|own| self.walk(own, true, true) + Traffic::new(2, 0))
            .sum()
    }

    /// One dispatch of `entry` over `groups` workgroups for a batch of
    /// `atoms` atoms; `None` for an entry point this count does not know.
    fn entry(&self, entry: &str, groups: u64, atoms: u64) -> Option<Traffic> {
        let pairs = atoms * self.nnbr;
        let nch = chains(self.t.twojmax) as u64;
        Some(match entry {
            "u_atom" => (self.u_pair().times(self.nnbr) + self.u_sums()).times(atoms),
            "u_pairs" => self.u_pair().times(pairs),
            "u_sums" | "u_sums_staged" => self.u_sums().times(atoms),
            "u_walks" => self.u_walks(groups, atoms),
            "y_atom" | "y_elems" => self.y_alone().times(atoms),
            "y_tiles" => self.y_slots().times(atoms),
            "du_atom" | "du_pairs" => self.du_pair().times(3 * pairs),
            "de_atom" | "de_pairs" => self.de_pair().times(3 * pairs),
            "de_chains" => self.de_chains().times(3 * pairs),
            // The real part of each chain's share (the imaginary one is
            // never used), fij stored.
            "de_sums" => Traffic::new(nch + 1, 0).times(3 * pairs),
            _ => return None,
        })
    }
}

/// `gather` over every atom and direction: its own pairs' fij where it owns
/// a neighbour list, its reverse list's range (2 words) and, per pair that
/// names it, the pair (a word) and its fij; the force stored.
fn gather(c: &Config) -> Traffic {
    let (pairs, nlocal, ntotal) = (c.jlist.len() as u64, c.nlocal as u64, c.ntotal as u64);
    Traffic::new(nlocal * c.nnbr as u64 + pairs + ntotal, 2 * ntotal + pairs).times(3)
}

/// Bytes one run's loads and stores request, every access counted (the L1
/// level's traffic), as `shaders/snap` issues them in the dispatches of
/// `plan` for every batch, `steps` force calls over: the coefficients,
/// geometry and U-like arrays in `p`'s reals (a complex two), the index
/// tables in 4-byte words. A load whose value the kernel never uses (the
/// switching function's reads in U's walk, the second element's u2 where
/// `two` is the constant false) is dropped by the compiler and not counted,
/// nor is a repeated load of one element in straight-line code (a loop
/// bound, a helper's second read of r); everything in a loop is counted
/// each iteration. The batch uniform is not counted, nor is workgroup
/// memory (u_walks' rows and switching functions, u_sums_staged's partial
/// sums: not storage traffic). `None` if `plan` runs an entry point the
/// count does not know.
///
/// compute_U's count falls below the model's bytes at 2J = 0, where U's
/// walk reads 5 of a pair's 8 geometry reals the model moves and little
/// else; from 2J = 2 on every kernel's is above it.
pub(super) fn issued_bytes(
    plan: &Plan,
    t: &Tables,
    c: &Config,
    p: Precision,
    steps: u64,
) -> Option<f64> {
    let k = Counter::new(t, c.nnbr, p);
    let mut call = Traffic::default();
    for &(_, atoms) in &plan.batches {
        for &(_, entry, (x, y)) in &plan.stages {
            call += k.entry(entry, u64::from(x) * u64::from(y), atoms as u64)?;
        }
    }
    if plan.gather.is_some() {
        call += gather(c);
    }
    Some(call.times(steps).bytes(p))
}
