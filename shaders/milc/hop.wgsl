// The hopping sum D psi at one site, shared by the kernels that apply D or
// M = 1 - kappa D in one pass (dslash_fused.wgsl, m_fused.wgsl; the module
// binds `psi` and `links`, whose accessors are generated): each site reads
// its 8 neighbours' spinors and its 8 links, and the projections, link
// products and reconstructions stay in registers, so none of the split's
// half-spinor fields go through memory.
// The hops along one direction. hop_sum calls it once per direction with
// the direction as a constant rather than looping over it: NVIDIA's Vulkan
// driver kept the loop (a 15 KB binary, the projections' switch on mu run
// each time), while constant directions fold the switches and let the
// scheduler overlap the loads of one direction with the arithmetic of the
// one before (H100, aosoa-32/pairs at its best wg and tile: f32 D 1.7%, f64
// 1.0% faster; BENCHMARKS.md 2026-11-27 l).
fn hop_mu(acc: Spinor, site: u32, mu: u32) -> Spinor {
    let up = neighbour(site, mu, true);
    let dn = neighbour(site, mu, false);
    let fwd = recon_fwd(acc, half_mat_vec(links_link(site, mu), proj_fwd(psi_spinor(up), mu)), mu);
    return recon_bwd(fwd, half_adj_mat_vec(links_link(dn, mu), proj_bwd(psi_spinor(dn), mu)), mu);
}

fn hop_sum(site: u32) -> Spinor {
    return hop_mu(hop_mu(hop_mu(hop_mu(spinor_zero(), site, 0u), site, 1u), site, 2u), site, 3u);
}
