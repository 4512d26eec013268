// Linear invocation index over a 1-D or 2-D dispatch (the host spreads
// workgroups over y when x would pass the 65535-per-dimension limit).
fn linear_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// Linear workgroup index, for one partial result per workgroup.
fn linear_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}
