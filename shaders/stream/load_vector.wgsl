// stream's loads as the prelude's 16-byte vectors (RealVec): the fewest
// memory instructions.
alias StreamVec = RealVec;
const SV_LANES: u32 = RV_LANES;
fn sv_get(v: StreamVec, k: u32) -> Real { return rv_get(v, k); }
fn sv_set(v: ptr<function, StreamVec>, k: u32, x: Real) { rv_set(v, k, x); }
