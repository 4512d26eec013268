// M = 1 - kappa D (D^dagger for isign -1) in one pass, CG's operator:
// out = psi - kappa D psi, the hopping sum of hop.wgsl plus the site's own
// spinor (read anyway as a neighbour of the next sites), so a solve needs
// no multiply-add pass over D's output. -kappa is scalars[S_MINUS_KAPPA].
// `m_fused_norm` also leaves one partial of |out|^2 per workgroup for
// cg.wgsl's `finish` (CG's <p, A p> = |M p|^2 and its first |r|^2 =
// |M^dagger b|^2), so no dot pass re-reads the field. Only a rank's own
// sites count (`owned`), as in dot.wgsl: the others are its neighbours'
// halos. Each kernel covers the sites of its dispatch's part (part_site:
// every site on one device; a rank's interior or boundary when it updates
// the interior during a halo swap), and its partials start at GROUP0.

// M psi at one site (mk = -kappa), stored and returned.
fn m_at(site: u32, mk: Real) -> Spinor {
    let o = spinor_axpy(mk, hop_sum(site), psi_spinor(site));
    out_set_spinor(site, o);
    return o;
}

@compute @workgroup_size(WG)
fn m_fused(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let mk = r_load(scalars[S_MINUS_KAPPA]);
    let first = linear_id(gid, nwg) * VVL;
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) { _ = m_at(part_site(first + v), mk); }
    }
}

@compute @workgroup_size(WG)
fn m_fused_norm(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let mk = r_load(scalars[S_MINUS_KAPPA]);
    let first = linear_id(gid, nwg) * VVL;
    var acc = r_zero();
    for (var v = 0u; v < VVL; v++) {
        if (first + v < PART_COUNT) {
            let site = part_site(first + v);
            let o = m_at(site, mk);
            if (owned(site)) { acc = spinor_norm2_add(o, acc); }
        }
    }
    // Every invocation reaches the reduction (its barriers need the whole workgroup).
    let total = reduce_sum(acc, lid);
    if (lid == 0u) { partial[GROUP0 + linear_group(wid, nwg)] = r_store(total); }
}
