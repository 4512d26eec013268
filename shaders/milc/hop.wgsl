// The hopping sum D psi at one site, shared by the kernels that apply D or
// M = 1 - kappa D in one pass (dslash_fused.wgsl, m_fused.wgsl; the module
// binds `psi` and `links`, whose accessors are generated): each site reads
// its 8 neighbours' spinors and its 8 links, and the projections, link
// products and reconstructions stay in registers, so none of the split's
// half-spinor fields go through memory.
// The loop over mu stays a loop. On the H100 one call per constant
// direction gained at most 1.7% at the best case but made df64's one-pass
// D 2.9x slower and the default f32 / f64 cases 2-5% slower; coordinates
// with constant divisors in the loop gained nothing (docs/notebook/benchmarks.md
// 2026-11-27 l and m).
fn hop_sum(site: u32) -> Spinor {
    var acc = spinor_zero();
    for (var mu = 0u; mu < 4u; mu++) {
        let up = neighbour(site, mu, true);
        let dn = neighbour(site, mu, false);
        acc = recon_fwd(acc, half_mat_vec(links_link(site, mu), proj_fwd(psi_spinor(up), mu)), mu);
        acc = recon_bwd(acc, half_adj_mat_vec(links_link(dn, mu), proj_bwd(psi_spinor(dn), mu)), mu);
    }
    return acc;
}
