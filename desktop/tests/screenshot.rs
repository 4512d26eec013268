//! The screenshot checks under Xvfb: `skylight-desktop --demo --screenshot`
//! must draw result points, and every `skylight-desktop` command of the
//! README's "Desktop app" section must load its files and draw them into
//! the picture its `--screenshot` names: the README's pictures are these
//! tests' (a changed picture shows in `git status`). Fail (never skip)
//! when `xvfb-run` is missing, so a CI machine without it cannot pass by
//! accident.

use std::path::{Path, PathBuf};
use std::process::Command;

use image::RgbaImage;
use skylight_desktop::app::{CASCADE_EFFICIENCY, CASCADE_PP, app_color, series_color};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A scratch file for a picture no document shows.
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("skylight-{name}-{}.png", std::process::id()))
}

/// Runs `skylight-desktop ARGS --screenshot OUT` under Xvfb from the
/// repository root and returns the picture (left at `out`).
fn capture(args: &[String], out: &Path) -> RgbaImage {
    assert!(
        have("xvfb-run"),
        "xvfb-run is not installed: the desktop screenshot tests need it \
         (Debian/Ubuntu: apt-get install -y xvfb; .ci/run does this)"
    );
    let _ = std::fs::remove_file(out);
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
        .args(args)
        .arg("--screenshot")
        .arg(out)
        .current_dir(repo())
        .env("XDG_RUNTIME_DIR", xdg)
        // Wayland would win over X11 if the test runs inside a Wayland session.
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run xvfb-run");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "skylight-desktop {} failed ({}):\n{stderr}",
        args.join(" "),
        output.status
    );
    let img = image::open(out)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}\n{stderr}", out.display()))
        .to_rgba8();
    assert!(img.width() >= 640 && img.height() >= 400, "tiny screenshot");
    let colours: std::collections::HashSet<[u8; 4]> = img.pixels().map(|p| p.0).collect();
    assert!(
        colours.len() > 50,
        "the screenshot looks blank ({} distinct colours)",
        colours.len()
    );
    img
}

/// Pixels within a few levels (blending) of `c`.
fn pixels_of(img: &RgbaImage, c: eframe::egui::Color32) -> usize {
    let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).abs();
    img.pixels()
        .filter(|p| d(p.0[0], c.r()) <= 6 && d(p.0[1], c.g()) <= 6 && d(p.0[2], c.b()) <= 6)
        .count()
}

#[test]
fn demo_screenshot_shows_plotted_points() {
    let out = scratch("desktop-demo");
    let img = capture(&["--demo".to_string()], &out);
    let _ = std::fs::remove_file(&out);
    // Marker colours of the demo's apps.
    let hits: usize = [app_color("stream", 0), app_color("peak", 0)]
        .into_iter()
        .map(|c| pixels_of(&img, c))
        .sum();
    assert!(
        hits >= 40,
        "only {hits} pixels of a point-marker colour: no results were plotted"
    );
}

/// The `skylight-desktop` commands of the README's "Desktop app" section
/// (its fenced blocks; `\` continues a line), as their arguments.
fn readme_commands() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let start = text.find("## Desktop app").expect("a Desktop app section");
    let section = &text[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut commands = Vec::new();
    for block in section.split("```").skip(1).step_by(2) {
        for line in block.replace("\\\n", " ").lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            // The binary itself, not `cargo run -p skylight-desktop`.
            let at = words.iter().enumerate().position(|(i, w)| {
                (*w == "skylight-desktop" || w.ends_with("/skylight-desktop"))
                    && (i == 0 || words[i - 1] != "-p")
            });
            if let Some(at) = at {
                commands.push(words[at + 1..].iter().map(|w| w.to_string()).collect());
            }
        }
    }
    commands
}

#[test]
fn readme_desktop_commands_draw_their_files() {
    let commands = readme_commands();
    for view in ["--portability", "--scaling"] {
        assert!(
            commands.iter().any(|c| c.iter().any(|w| w == view)),
            "the README shows no `skylight-desktop {view}` command: {commands:?}"
        );
    }
    for command in &commands {
        let mut args: Vec<String> = Vec::new();
        let mut picture = None;
        let mut words = command.iter();
        while let Some(w) = words.next() {
            if w == "--screenshot" {
                picture = words.next().map(|p| repo().join(p));
            } else {
                args.extend(skylight_tests::json_glob(&repo(), w));
            }
        }
        let picture = picture.unwrap_or_else(|| panic!("{command:?} names no --screenshot"));
        let img = capture(&args, &picture);
        let has = |flag: &str| args.iter().any(|a| a == flag);
        // Each view's own marks, in their colours.
        let colours: Vec<(String, eframe::egui::Color32)> = if has("--scaling") {
            (0..3)
                .map(|k| (format!("curve {k}"), series_color(k)))
                .collect()
        } else if has("--portability") {
            vec![
                ("the cascade's markers".into(), CASCADE_EFFICIENCY),
                ("the cascade's PP line".into(), CASCADE_PP),
            ]
        } else {
            ["stream", "su3", "milc"]
                .iter()
                .map(|app| (format!("{app}'s points"), app_color(app, 1)))
                .collect()
        };
        for (what, c) in colours {
            let hits = pixels_of(&img, c);
            assert!(
                hits >= 40,
                "{command:?}: {what}: only {hits} pixels of its colour"
            );
        }
    }
}
