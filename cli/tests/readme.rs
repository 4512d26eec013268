//! Every `skylight` command README.md shows runs: the "Examples" block (each
//! at the small size, a few samples, f32 where it names no precision, so
//! lavapipe gets through them) and the commands on committed result files
//! (efficiency table, PP, cascade plot, the HTML report).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `skylight ...` lines of the fenced block after `marker` in README.md.
fn block_after(marker: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("README has no `{marker}`"));
    let block = text[start..]
        .split("```")
        .nth(1)
        .unwrap_or_else(|| panic!("no fenced block after `{marker}`"));
    // A line ending in `\` continues on the next, as in the shell.
    let joined = block.replace("\\\n", " ");
    let lines: Vec<Vec<String>> = joined
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| l.starts_with("skylight "))
        .map(|l| l.split_whitespace().skip(1).map(String::from).collect())
        .collect();
    assert!(!lines.is_empty(), "no skylight command after `{marker}`");
    lines
}

fn run(args: &[String]) {
    let out = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("the skylight binary runs");
    assert!(
        out.status.success(),
        "skylight {}: exit {:?}\n{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A README run or sweep at the CI size: `--size` becomes `small`, and a
/// command that names no precision runs in f32 alone. This test checks the
/// commands' plumbing (flags, cases, output); the numbers of every precision
/// are checked by the apps' own tests (tests/tests/: milc's every kernel
/// with complex split and pairs, su3's every mapping and layout, in each
/// precision), and on lavapipe the df64 pipelines of the su3 and milc
/// sweeps cost minutes to compile.
fn small(mut args: Vec<String>) -> Vec<String> {
    if let Some(i) = args.iter().position(|a| a == "--size") {
        args.drain(i..=i + 1);
    }
    if !args.iter().any(|a| a == "--precision") {
        args.extend(["--precision", "f32"].map(String::from));
    }
    args.extend(common::FAST.map(String::from));
    args
}

#[test]
fn readme_examples_run_at_the_small_size() {
    for args in block_after("Examples:") {
        assert!(matches!(args[0].as_str(), "run" | "sweep"), "{args:?}");
        run(&small(args));
    }
}

#[test]
fn readme_portability_commands_run_on_the_committed_files() {
    let dir = std::env::temp_dir().join(format!("skylight-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    for mut args in block_after("Native baselines and portability") {
        // Plots and tables go to the scratch folder, not over the committed ones.
        for a in args.iter_mut() {
            if [".png", ".svg", ".csv", ".html"]
                .iter()
                .any(|x| a.ends_with(x))
            {
                let name = Path::new(a.as_str()).file_name().map(|n| n.to_owned());
                *a = dir.join(name.expect("a file name")).display().to_string();
            }
        }
        let expanded: Vec<String> = args
            .iter()
            .flat_map(|a| skylight_tests::json_glob(&repo(), a))
            .collect();
        run(&expanded);
    }
}

/// The tuning block: `tune` at the CI size in f32 with a short budget into
/// a scratch cache, `run` from that cache, `pp` on the committed files.
#[test]
fn readme_tuning_commands_run() {
    let dir = std::env::temp_dir().join(format!("skylight-readme-tune-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let cache = dir.join("tuning.json").display().to_string();
    for mut args in block_after("### Tuning") {
        if args[0] == "tune"
            && let Some(i) = args.iter().position(|a| a == "--budget-s")
        {
            args[i + 1] = "10".into();
        }
        if matches!(args[0].as_str(), "tune" | "run") {
            args = small(args);
            args.extend(["--tuning".to_string(), cache.clone()]);
        }
        run(&args);
    }
}
