// Keep-warm load: a few workgroups each run one dependent multiply-add chain
// of `heat.steps` steps. The GPU counts as busy (its clock governor keeps the
// clocks up) while it draws little power, so the next kernel is timed at the
// clocks it would reach under sustained load. The store never happens (the
// chain stays finite), but the compiler cannot prove it, so the chain stays.
struct Heat {
    steps: u32,
}

@group(0) @binding(0) var<storage, read_write> sink: array<f32>;
@group(0) @binding(1) var<uniform> heat: Heat;

@compute @workgroup_size(64)
fn keep_warm(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = f32(gid.x) * 1e-6;
    for (var i = 0u; i < heat.steps; i++) {
        x = fma(x, 0.999, 1e-3);
    }
    if (x < -1.0) {
        sink[gid.x] = x;
    }
}
