// comd's per-axis code as loops over the three axes: the form for f32 and
// df64. (The unrolled form of axes_unrolled.wgsl made lavapipe's LLVM take
// 85-290 s to compile the df64 cell force kernel, against 3 s for this one.)

// Neighbour cell `n` of cell k and its box shift (see `Neighbour`).
fn neighbour(k: vec3<u32>, n: u32, box: array<Real, 3>) -> Neighbour {
    let dims = vec3<u32>(NCX, NCY, NCZ);
    let o = vec3<u32>(n % 3u, (n / 3u) % 3u, n / 9u);
    var q = vec3<u32>(0u);
    var shift = array<Real, 3>(r_zero(), r_zero(), r_zero());
    for (var d = 0u; d < 3u; d++) {
        // k + o - 1 in [-1, dims]: shifted by one to stay unsigned.
        let x = k[d] + o[d];
        if (x == 0u) {
            q[d] = dims[d] - 1u;
            shift[d] = r_neg(box[d]);
        } else if (x > dims[d]) {
            q[d] = 0u;
            shift[d] = box[d];
        } else {
            q[d] = x - 1u;
        }
    }
    return Neighbour(cell_index(q), shift);
}

// acc.f += s d.
fn add_force(acc: ptr<function, Acc>, s: Real, d: array<Real, 3>) {
    for (var k = 0u; k < 3u; k++) { (*acc).f[k] = r_fma(s, d[k], (*acc).f[k]); }
}

fn store_force(i: u32, f: array<Real, 3>) {
    for (var k = 0u; k < 3u; k++) { frc[at(i, k)] = r_store(f[k]); }
}
