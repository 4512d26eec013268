// GPP partial sums for the seed's third reduction strategy, atomics
// (composed with gpp.wgsl, whose pass 1 and finish pass it serves): after
// its workgroup tree, each pass-1 workgroup adds its three complex sums with
// f32 atomics (SHADER_FLOAT32_ATOMIC) into one of ATOMIC_SLOTS slots, which
// the host zeroes before each run; the finish pass adds the slots in a fixed
// order. One slot for every workgroup would chain ~840,000 f32 additions at
// the default size: the H100 measured a 4e-3 relative error that way, 40x
// the f32 tolerance; ~200 a slot keeps the chain short, and spreads the
// atomics over many addresses. The order of the adds within a slot is the
// hardware's, so unlike the other reductions the sums are not bit-identical
// run to run. f32 only: WGSL has no 64-bit float atomics.
// ATOMIC_SLOTS is injected by the host, which zeroes that many slots.
@group(0) @binding(6) var<storage, read_write> partial: array<atomic<f32>>;

fn partial_count() -> u32 {
    return min(dims.groups, ATOMIC_SLOTS);
}

fn gpp_store_partial(g: u32, s: Acc3) {
    let b = 6u * (g % ATOMIC_SLOTS);
    atomicAdd(&partial[b], s.a0.re);
    atomicAdd(&partial[b + 1u], s.a0.im);
    atomicAdd(&partial[b + 2u], s.a1.re);
    atomicAdd(&partial[b + 3u], s.a1.im);
    atomicAdd(&partial[b + 4u], s.a2.re);
    atomicAdd(&partial[b + 5u], s.a2.im);
}

fn load_partial(g: u32) -> Acc3 {
    let b = 6u * g;
    return Acc3(
        Complex(atomicLoad(&partial[b]), atomicLoad(&partial[b + 1u])),
        Complex(atomicLoad(&partial[b + 2u]), atomicLoad(&partial[b + 3u])),
        Complex(atomicLoad(&partial[b + 4u]), atomicLoad(&partial[b + 5u])),
    );
}
