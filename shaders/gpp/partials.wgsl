// GPP partial sums, one per pass-1 workgroup, written once and added by the
// finish pass in a fixed order (the tree and subgroup reductions).
@group(0) @binding(6) var<storage, read_write> partial: array<RealStore>;

fn partial_count() -> u32 {
    return dims.groups;
}

fn gpp_store_partial(g: u32, s: Acc3) {
    let b = 6u * g;
    partial[b] = r_store(s.a0.re);
    partial[b + 1u] = r_store(s.a0.im);
    partial[b + 2u] = r_store(s.a1.re);
    partial[b + 3u] = r_store(s.a1.im);
    partial[b + 4u] = r_store(s.a2.re);
    partial[b + 5u] = r_store(s.a2.im);
}

fn load_partial(g: u32) -> Acc3 {
    let b = 6u * g;
    return Acc3(
        c_load(partial[b], partial[b + 1u]),
        c_load(partial[b + 2u], partial[b + 3u]),
        c_load(partial[b + 4u], partial[b + 5u]),
    );
}
