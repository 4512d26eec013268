// targetDP's INDEX: where component `comp` (of `ncomp`) of lattice site
// `site` lives, for the layout the host chose through SAL, the short-array
// length. SAL = 1 is AoS (a site's components together), SAL = SITES is SoA
// (each component's sites together), and anything between is AoSoA: blocks
// of SAL sites, each block holding its components one short array after
// another. One kernel source serves every layout through this function.
fn tdp_index(site: u32, comp: u32, ncomp: u32) -> u32 {
    return ((site / SAL) * ncomp + comp) * SAL + site % SAL;
}
