// stream's loads one real at a time (RealStore: 4 bytes in f32, 8 in f64 and
// df64), as BabelStream's CUDA model moves them.
alias StreamVec = RealStore;
const SV_LANES: u32 = 1u;
fn sv_get(v: StreamVec, k: u32) -> Real { return r_load(v); }
fn sv_set(v: ptr<function, StreamVec>, k: u32, x: Real) { *v = r_store(x); }
