// comd's per-axis code written out axis by axis, with constant indices: the
// form for f64. NVIDIA's Vulkan driver kept the loop form's arrays (indexed
// by the loop counter) in local memory in f64 only, which made the f64
// force kernels 4x slower (H100: 14.86 -> 3.63 ms at 2,048,000 atoms).
struct Axis { q: u32, shift: Real }

fn neighbour_axis(k: u32, o: u32, dim: u32, len: Real) -> Axis {
    // k + o - 1 in [-1, dim]: shifted by one to stay unsigned.
    let x = k + o;
    if (x == 0u) { return Axis(dim - 1u, r_neg(len)); }
    if (x > dim) { return Axis(0u, len); }
    return Axis(x - 1u, r_zero());
}

// Neighbour cell `n` of cell k and its box shift (see `Neighbour`).
fn neighbour(k: vec3<u32>, n: u32, box: array<Real, 3>) -> Neighbour {
    let ax = neighbour_axis(k.x, n % 3u, NCX, box[0]);
    let ay = neighbour_axis(k.y, (n / 3u) % 3u, NCY, box[1]);
    let az = neighbour_axis(k.z, n / 9u, NCZ, box[2]);
    return Neighbour(cell_index(vec3<u32>(ax.q, ay.q, az.q)), array<Real, 3>(ax.shift, ay.shift, az.shift));
}

// acc.f += s d.
fn add_force(acc: ptr<function, Acc>, s: Real, d: array<Real, 3>) {
    (*acc).f[0] = r_fma(s, d[0], (*acc).f[0]);
    (*acc).f[1] = r_fma(s, d[1], (*acc).f[1]);
    (*acc).f[2] = r_fma(s, d[2], (*acc).f[2]);
}

fn store_force(i: u32, f: array<Real, 3>) {
    frc[at(i, 0u)] = r_store(f[0]);
    frc[at(i, 1u)] = r_store(f[1]);
    frc[at(i, 2u)] = r_store(f[2]);
}
