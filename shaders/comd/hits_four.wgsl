// force_cell's exact candidate test on the staged positions themselves,
// the form for f32 and f64. f64 measured 17.5% slower with an f32 filter
// (at 56 -> 67 registers), f32 41% slower with comd/hits_coarse.wgsl's
// (at 40 -> 50 registers; docs/notebook/benchmarks.md 2026-11-26 g and i).

// What the test compares a staged atom with: atom i's position.
alias Probe = array<Real, 3>;

fn probe_of(lj: Lj, ri: array<Real, 3>, corner: array<Real, 3>) -> Probe { return ri; }

// The test reads the stage itself: nothing more to stage.
fn stage_probe(m: u32, rj: array<Real, 3>, corner: array<Real, 3>) {}

// 1 where staged place m (clamped to STAGE, so no branch guards the load)
// lies within the cutoff of atom i at ri, else 0.
fn staged_hit(lj: Lj, probe: Probe, m: u32) -> u32 {
    return select(0u, 1u, inside(lj, offset(probe, staged_pos(min(m, STAGE)))));
}

// A hit is inside the cutoff: its pair term.
fn take_hit(acc: ptr<function, Acc>, lj: Lj, d: array<Real, 3>) { interact(acc, lj, d); }
