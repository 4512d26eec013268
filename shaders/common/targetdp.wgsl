// targetDP's INDEX: where component `comp` (of `ncomp`) of lattice site
// `site` lives, for the layout the host chose through SAL, the short-array
// length. SAL = 1 is AoS (a site's components together), SAL = SITES is SoA
// (each component's sites together), and anything between is AoSoA: blocks
// of SAL sites, each block holding its components one short array after
// another. One kernel source serves every layout through this function.
// The short arrays hold elements of ELEM reals: 1 as in targetDP, or 2 when
// a complex number's parts stay adjacent so a kernel moves them as one
// vector (the host's `Layout::width`).

// Element `comp / ELEM` of the site, counted in elements of ELEM reals.
fn tdp_elem(site: u32, comp: u32, ncomp: u32) -> u32 {
    return ((site / SAL) * (ncomp / ELEM) + comp / ELEM) * SAL + site % SAL;
}

fn tdp_index(site: u32, comp: u32, ncomp: u32) -> u32 {
    return tdp_elem(site, comp, ncomp) * ELEM + comp % ELEM;
}
