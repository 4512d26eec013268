// force_cell's exact candidate test on the staged positions themselves,
// the form for f32 and f64: four candidates a step with no branch between
// their loads and tests, so that their latencies overlap (on the H100 12%
// and 7% faster than one candidate a step with a branch, BENCHMARKS.md
// 2026-11-25 b). f64 measured 17.5% slower with comd/hits_coarse.wgsl's
// f32 filter (at 56 -> 67 registers; BENCHMARKS.md 2026-11-26 g).

// What the test compares a staged atom with: atom i's position.
alias Probe = array<Real, 3>;

fn probe_of(ri: array<Real, 3>, corner: array<Real, 3>) -> Probe { return ri; }

// The test reads the stage itself: nothing more to stage.
fn stage_probe(m: u32, rj: array<Real, 3>, corner: array<Real, 3>) {}

// 1 where staged atom m lies within the cutoff of atom i at ri and is not
// atom i itself (its place `me`), else 0, also for m past the `staged`
// atoms: the stage is read at a clamped place, so no branch guards the load.
fn staged_hit(lj: Lj, probe: Probe, m: u32, staged: u32, me: u32) -> u32 {
    let near = inside(lj, offset(probe, staged_pos(min(m, STAGE - 1u))));
    return select(0u, 1u, near & (m < staged) & (m != me));
}

// Bit b: staged atom m0 + b * parts is a neighbour of atom i (b < 32).
fn staged_hits(lj: Lj, probe: Probe, m0: u32, staged: u32, me: u32, parts: u32) -> u32 {
    var hits = 0u;
    for (var b = 0u; b < 32u; b += 4u) {
        let m = m0 + b * parts;
        if (m >= staged) { break; }
        let four = staged_hit(lj, probe, m, staged, me)
            | (staged_hit(lj, probe, m + parts, staged, me) << 1u)
            | (staged_hit(lj, probe, m + 2u * parts, staged, me) << 2u)
            | (staged_hit(lj, probe, m + 3u * parts, staged, me) << 3u);
        hits |= four << b;
    }
    return hits;
}

// A hit is inside the cutoff: its pair term.
fn take_hit(acc: ptr<function, Acc>, lj: Lj, d: array<Real, 3>) { interact(acc, lj, d); }
