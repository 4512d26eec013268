// achtemp[0..3] as six plain reals, written once by the finish pass
// (the tree and subgroup reductions).
@group(0) @binding(7) var<storage, read_write> achtemp: array<RealStore>;

fn achtemp_store(i: u32, v: Real) {
    achtemp[i] = r_store(v);
}
