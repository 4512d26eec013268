//! The screenshot check: `skylight-desktop --demo --screenshot` under Xvfb
//! must draw result points. Fails (never skips) when `xvfb-run` is missing,
//! so a CI machine without it cannot pass by accident.

use std::path::PathBuf;
use std::process::Command;

use skylight_desktop::app::app_color;

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn demo_screenshot_shows_plotted_points() {
    assert!(
        have("xvfb-run"),
        "xvfb-run is not installed: the desktop screenshot test needs it \
         (Debian/Ubuntu: apt-get install -y xvfb; .ci/run does this)"
    );
    let out: PathBuf =
        std::env::temp_dir().join(format!("skylight-desktop-test-{}.png", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let xdg = std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| {
        let dir = std::env::temp_dir().join("skylight-desktop-xdg");
        std::fs::create_dir_all(&dir).expect("create XDG_RUNTIME_DIR");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .expect("chmod XDG_RUNTIME_DIR");
        }
        dir.display().to_string()
    });
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(env!("CARGO_BIN_EXE_skylight-desktop"))
        .arg("--demo")
        .arg("--screenshot")
        .arg(&out)
        .env("XDG_RUNTIME_DIR", xdg)
        // Wayland would win over X11 if the test runs inside a Wayland session.
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run xvfb-run");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "skylight-desktop --demo failed ({}):\n{stderr}",
        output.status
    );
    let img = image::open(&out)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}\n{stderr}", out.display()))
        .to_rgba8();
    let _ = std::fs::remove_file(&out);
    assert!(img.width() >= 640 && img.height() >= 400, "tiny screenshot");

    let mut colours = std::collections::HashSet::new();
    for p in img.pixels() {
        colours.insert(p.0);
    }
    assert!(
        colours.len() > 50,
        "the screenshot looks blank ({} distinct colours)",
        colours.len()
    );

    // Marker colours of the demo's apps; a few pixels of tolerance for blending.
    let markers = [app_color("stream", 0), app_color("peak", 0)];
    let near = |p: &image::Rgba<u8>| {
        markers.iter().any(|m| {
            let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).abs();
            d(p.0[0], m.r()) <= 6 && d(p.0[1], m.g()) <= 6 && d(p.0[2], m.b()) <= 6
        })
    };
    let hits = img.pixels().filter(|p| near(p)).count();
    assert!(
        hits >= 40,
        "only {hits} pixels of a point-marker colour: no results were plotted"
    );
}
