//! Running Godot and cargo as children: their output streamed and counted, a project's import, the
//! extension listed in a project, a run's log scanned and reported.

use super::*;

/// Runs a command, streaming its stdout, and returns the stdout text.
pub(crate) fn run_streaming(mut c: Command) -> Result<(bool, String), String> {
    let mut child = c
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut text = String::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.map_err(|e| e.to_string())?;
        println!("{line}");
        text.push_str(&line);
        text.push('\n');
    }
    let ok = child.wait().map_err(|e| e.to_string())?.success();
    Ok((ok, text))
}

/// Sums cargo test's `test result:` lines.
pub(crate) fn cargo_counts(out: &str) -> (usize, usize) {
    let (mut p, mut f) = (0, 0);
    for l in out.lines().filter(|l| l.starts_with("test result:")) {
        let num = |key: &str| {
            l.split(';')
                .find(|s| s.trim_end().ends_with(key))
                .and_then(|s| s.split_whitespace().rev().nth(1))
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(0)
        };
        p += num("passed");
        f += num("failed");
    }
    (p, f)
}

pub struct GodotRun {
    pub ok_exit: bool,
    pub timed_out: bool,
    pub log: String,
}

/// Runs Godot with a timeout; stdout and stderr go to one log file so their order is kept.
pub fn run_godot(
    g: &Godot,
    args: &[&str],
    env: &[(String, String)],
    log_path: &Path,
    timeout: Duration,
) -> Result<GodotRun, String> {
    if let Some(d) = log_path.parent() {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let f = std::fs::File::create(log_path).map_err(|e| e.to_string())?;
    let f2 = f.try_clone().map_err(|e| e.to_string())?;
    let mut c = g.command();
    c.args(args).stdout(f).stderr(f2).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().map_err(|e| format!("starting Godot: {e}"))?;
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(s);
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = String::from_utf8_lossy(&std::fs::read(log_path).unwrap_or_default()).into_owned();
    Ok(GodotRun {
        ok_exit: status.is_some_and(|s| s.success()),
        timed_out,
        log,
    })
}

/// The addon's extension file, as a project lists it.
pub const EXTENSION: &str = "res://addons/wandering_terrain/wandering_terrain.gdextension";

/// Lists the addon in the project's `.godot/extension_list.cfg` before its first import, keeping any
/// other extension listed there. A headless import that *discovers* an extension aborts at exit (Godot
/// #111048: the editor queues the extension's class docs for a later frame, and `--import` quits first);
/// one that finds it listed loads it at start-up and exits cleanly (measured: 10 of 10 cold imports
/// aborted, 0 of 10 seeded ones).
pub fn list_extension(project: &Path) -> Result<(), String> {
    let dir = project.join(".godot");
    let file = dir.join("extension_list.cfg");
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    if old.lines().any(|l| l.trim() == EXTENSION) {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut text = old;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(EXTENSION);
    text.push('\n');
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))
}

/// One headless `--import` pass over `project`, logged to `log`.
pub fn run_import(g: &Godot, project: &Path, log: &Path) -> Result<GodotRun, String> {
    let p = project.display().to_string();
    let args = [
        "--headless",
        "--audio-driver",
        "Dummy",
        "--path",
        &p,
        "--import",
    ];
    run_godot(g, &args, &[], log, Duration::from_secs(600))
}

/// `--import` pass so the class cache exists, with the extension listed first (see `list_extension`).
pub(crate) fn import(g: &Godot, project: &Path, logs: &Path) -> Result<(), String> {
    list_extension(project)?;
    let p = project.display().to_string();
    let log = logs.join(format!(
        "import-{}.log",
        project.file_name().unwrap().to_string_lossy()
    ));
    let r = run_import(g, project, &log)?;
    clean_import(&r, &log).map_err(|e| format!("Godot could not import {p} cleanly ({e})"))
}

/// Whether an import pass exited cleanly with no error line; otherwise what went wrong, naming the log.
pub fn clean_import(r: &GodotRun, log: &Path) -> Result<(), String> {
    let errors: Vec<&str> = r.log.lines().filter(|l| scan::is_error_line(l)).collect();
    if r.ok_exit && errors.is_empty() {
        return Ok(());
    }
    Err(format!(
        "exit ok {}, timed out {}, {} error lines, e.g. {:?}; log {}",
        r.ok_exit,
        r.timed_out,
        errors.len(),
        errors.first(),
        log.display()
    ))
}

pub(crate) fn print_report(label: &str, r: &scan::Report, log: &Path) {
    for c in &r.cases {
        if c.passed {
            println!("  ok   {label} {}", c.name);
        } else {
            println!("  FAIL {label} {}", c.name);
            for why in &c.reasons {
                println!("         {why}");
            }
        }
    }
    for e in &r.stray_errors {
        println!("  FAIL {label} log: {e}");
    }
    if !r.finished {
        println!(
            "  FAIL {label} the runner did not finish (see {})",
            log.display()
        );
    }
}
