// df64 self-test: the error-free transforms on known inputs. The host checks
// every error term bit for bit; a compiler that reassociates or fuses them
// away is caught here, at device creation.
@group(0) @binding(0) var<storage, read> inputs: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> outputs: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&inputs)) {
        return;
    }
    let a = inputs[i].x;
    let b = inputs[i].y;
    let p = df_two_prod(a, b);
    let s = df_two_sum(a, b);
    outputs[i] = vec4<f32>(p.hi, p.lo, s.hi, s.lo);
}
