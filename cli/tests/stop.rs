//! No measured case is lost: a run stopped by SIGINT part-way keeps every
//! case it finished in a valid result file, `--resume` runs only the rest,
//! a second signal exits at once, and commands that read result files take
//! folders. Real runs on the adapter (lavapipe in CI), stopped with `kill`.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use skylight_core::record::ResultFile;

/// Long enough for any case here on a loaded CPU adapter.
const PATIENCE: Duration = Duration::from_secs(600);

/// A fresh scratch folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skylight-stop-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// A running `skylight` and the lines of its stdout as they come.
struct Running {
    child: Child,
    lines: Receiver<String>,
}

/// Starts `skylight args`, in a process group of its own when `group` (as
/// a shell starts a foreground job, so that a signal can reach the group).
fn start(args: &[&str], group: bool) -> Running {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skylight"));
    command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if group {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    let mut child = command.spawn().expect("the skylight binary starts");
    let stdout = child.stdout.take().expect("stdout");
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    Running { child, lines }
}

/// A row of the results table: a case that finished.
fn is_row(line: &str) -> bool {
    line.starts_with("stream/")
}

impl Running {
    /// Waits for the first finished case's row.
    fn first_row(&self) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).expect("a case finishes");
            if is_row(&line) {
                return;
            }
        }
    }

    /// `kill -SIGNAL` to the process, or to its process group.
    fn signal(&self, signal: &str, group: bool) {
        let target = match group {
            true => format!("-{}", self.child.id()),
            false => self.child.id().to_string(),
        };
        let status = Command::new("kill")
            .args([format!("-{signal}"), "--".into(), target])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal}");
    }

    /// Waits for the exit: its status, the rows it printed in all (the
    /// first one included) and its stderr.
    fn wait(mut self) -> (ExitStatus, usize, String) {
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            assert!(Instant::now() < deadline, "skylight did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        let rows = 1 + self.lines.iter().filter(|l| is_row(l)).count();
        let mut err = String::new();
        let stderr = self.child.stderr.take().expect("stderr");
        std::io::Read::read_to_string(&mut BufReader::new(stderr), &mut err).expect("stderr");
        (status, rows, err)
    }
}

/// The `N` of "N case(s) left" in a stopped run's stderr.
fn cases_left(err: &str) -> usize {
    let (before, _) = err
        .split_once(" case(s) left")
        .expect("a count of cases left");
    let n = before.rsplit(' ').next().expect("a number");
    n.parse().unwrap_or_else(|_| panic!("{err}"))
}

/// Seven stream cases of `elements` per array, `samples` timed runs each.
fn stream_run(json: &Path, elements: u32, samples: u32, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["run", "stream", "--precision", "f32", "--warmup-s", "0"]
        .map(String::from)
        .to_vec();
    args.extend(["--size".into(), elements.to_string()]);
    args.extend(["--samples".into(), samples.to_string()]);
    args.extend([
        "--quiet".into(),
        "--json".into(),
        json.display().to_string(),
    ]);
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// SIGINT part-way: the case in flight finishes, the file holds every
/// finished case and says how many were left; cut short mid-record (a
/// power loss), it still resumes, and `--resume` runs only what is missing.
#[test]
fn a_stopped_run_keeps_its_cases_and_resume_runs_the_rest() {
    let json = scratch("resume").join("p.json");
    // Cases of a moment each on lavapipe.
    let run = start(&strs(&stream_run(&json, 1 << 20, 5, &[])), false);
    run.first_row();
    run.signal("INT", false);
    let (status, rows, err) = run.wait();
    assert_eq!(status.code(), Some(130), "{err}");
    let stopped = ResultFile::load(&json).expect("a valid result file");
    let done = stopped.records.len();
    // Every case that printed a row, the one in flight included, is kept.
    assert_eq!(done, rows, "{err}");
    let left = cases_left(&err);
    assert!(done >= 1 && left >= 1, "{done} done, {left} left: {err}");
    assert!(
        err.contains(&format!("--resume {}", json.display())),
        "{err}"
    );

    // Cut inside the last record, as a write that never finished would.
    let text = std::fs::read_to_string(&json).expect("read");
    let records = &text[..text.find("\"roofline\"").unwrap_or(text.len())];
    let last = records.rfind("\"app\"").expect("a record");
    std::fs::write(&json, &text[..last + 40]).expect("cut the file");
    let resumed = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(strs(&stream_run(
            &json,
            1 << 20,
            5,
            &["--resume", json.to_str().expect("utf-8")],
        )))
        .output()
        .expect("skylight runs");
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(err.contains("cut short"), "{err}");
    assert!(
        err.contains(&format!("resuming: {} case(s)", done - 1)),
        "{err}"
    );
    let out = String::from_utf8_lossy(&resumed.stdout);
    assert_eq!(out.lines().filter(|l| is_row(l)).count(), left + 1, "{out}");
    let all = ResultFile::load(&json).expect("a valid result file");
    assert_eq!(all.records.len(), done + left);
    assert_eq!(all.records[..done - 1], stopped.records[..done - 1]);
    for (i, r) in all.records.iter().enumerate() {
        let twins = all.records.iter().filter(|o| o.case == r.case).count();
        assert_eq!(twins, 1, "record {i} ({}) twice", r.case.label());
    }
}

/// A second signal exits at once, mid-case, leaving a valid file of the
/// cases finished and no temporary file.
#[test]
fn a_second_signal_exits_at_once() {
    let dir = scratch("twice");
    let json = dir.join("p.json");
    // Cases of seconds each on lavapipe, so that waiting out the one in
    // flight would show.
    let run = start(&strs(&stream_run(&json, 1 << 22, 300, &[])), false);
    run.first_row();
    // The next case is well under way (the file written, the case started).
    std::thread::sleep(Duration::from_secs(1));
    run.signal("INT", false);
    std::thread::sleep(Duration::from_millis(200));
    let second = Instant::now();
    run.signal("TERM", false);
    let (status, rows, err) = run.wait();
    let took = second.elapsed();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        took < Duration::from_secs(2),
        "took {took:?} to exit: {err}"
    );
    assert!(err.contains("exiting now"), "{err}");
    let file = ResultFile::load(&json).expect("a valid result file");
    assert_eq!(file.records.len(), rows, "{err}");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .expect("scratch")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["p.json"]);
}

/// With `--isolate`, a case whose process dies (here killed outright, as a
/// driver crash would end it) fails alone: every other case is kept.
#[test]
fn a_crashed_isolated_case_loses_no_other_case() {
    let json = scratch("crash").join("p.json");
    let run = start(&strs(&stream_run(&json, 1 << 20, 5, &["--isolate"])), false);
    run.first_row();
    // The next case's process, as soon as it is started.
    let children = format!("/proc/{0}/task/{0}/children", run.child.id());
    let deadline = Instant::now() + PATIENCE;
    let case = loop {
        let text = std::fs::read_to_string(&children).expect("the children of the run");
        if let Some(pid) = text.split_whitespace().next() {
            break pid.to_string();
        }
        assert!(Instant::now() < deadline, "no case process started");
        std::thread::sleep(Duration::from_millis(5));
    };
    let status = Command::new("kill").args(["-KILL", &case]).status();
    assert!(status.expect("kill runs").success());
    let (status, rows, err) = run.wait();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 kernel(s) failed validation or errored"),
        "{err}"
    );
    let file = ResultFile::load(&json).expect("a valid result file");
    assert!(rows >= 3, "{rows} rows: {err}");
    assert_eq!(file.records.len(), rows - 1, "{err}");
}

/// With `--isolate`, Ctrl-C in a terminal (SIGINT to the whole foreground
/// group) leaves the case's own process to finish: no case is lost to it.
#[test]
fn ctrl_c_lets_an_isolated_case_finish() {
    let json = scratch("isolate").join("p.json");
    let run = start(&strs(&stream_run(&json, 1 << 20, 5, &["--isolate"])), true);
    run.first_row();
    run.signal("INT", true);
    let (status, rows, err) = run.wait();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(!err.contains("errored"), "a case was killed: {err}");
    let file = ResultFile::load(&json).expect("a valid result file");
    assert_eq!(file.records.len(), rows, "{err}");
    assert!(cases_left(&err) >= 1, "{err}");
}

/// A resumed file that cannot be read is refused before any case runs, and
/// `stats`, which writes no result file, refuses `--resume`.
#[test]
fn a_missing_resume_file_is_refused_before_any_case() {
    let started = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(["run", "stream", "--resume", "/no/such/file.json"])
        .output()
        .expect("skylight runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/no/such/file.json"), "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_skylight"))
        .args(["stats", "stream", "--resume", "/no/such/file.json"])
        .output()
        .expect("skylight runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume applies to run"));
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// Folders are read at any depth; JSON that is no result file (here
/// `skylight stats` output) is skipped with a note of one line each.
#[test]
fn commands_read_folders_and_skip_other_json() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let folder = repo.join("benchmarks/nvidia-h100-gpp-atomic-2026-11-23");
    let skylight = |args: &[&Path]| {
        Command::new(env!("CARGO_BIN_EXE_skylight"))
            .args(args)
            .output()
            .expect("skylight runs")
    };
    let o = skylight(&[Path::new("table"), &folder]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("| gpp |"));
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("note: skipping"))
        .collect();
    assert_eq!(notes.len(), 3, "{err}");
    assert!(notes.iter().all(|n| n.contains("stats-")), "{err}");
    let o = skylight(&[
        Path::new("scaling"),
        &repo.join("benchmarks/lavapipe-mpi-2026-11-23"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = skylight(&[Path::new("pp"), &repo.join("benchmarks/reference/lavapipe")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
