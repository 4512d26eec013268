//! Records the git commit in `SKYLIGHT_GIT_HASH` for result records, and
//! sets `cfg(vulkan)` where wgpu compiles its Vulkan backend in.
use std::process::Command;

fn main() {
    let hash = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SKYLIGHT_GIT_HASH={hash}");
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/refs");
    vulkan_cfg();
}

/// `cfg(vulkan)`: the target has wgpu's Vulkan backend, so
/// `wgpu::hal::api::Vulkan` and `as_hal` on it exist. This mirrors wgpu
/// 30's own `vulkan` alias (its build.rs) for its default features, which
/// the workspace uses: Windows, Linux, Android and FreeBSD. Apple targets
/// would need wgpu's `vulkan-portability` feature (MoltenVK), which
/// Skylight does not enable; wasm32 has no native backend.
fn vulkan_cfg() {
    println!("cargo::rustc-check-cfg=cfg(vulkan)");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    let windows = family.split(',').any(|f| f == "windows");
    if windows || matches!(os.as_str(), "linux" | "android" | "freebsd") {
        println!("cargo:rustc-cfg=vulkan");
    }
}
