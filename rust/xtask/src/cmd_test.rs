//! `cargo xtask test`: Rust tests, the Godot suites (headless), the runner's self-test, render tests on
//! both renderers, the editor, the fresh project and the platform checks, with one summary.

use super::*;

pub(crate) struct Totals {
    passed: usize,
    failed: usize,
    lines: Vec<String>,
    /// Each failure again at the end, so that a log cut to its tail (as CI shows it) still names them.
    failures: Vec<String>,
}

impl Totals {
    fn add(&mut self, stage: &str, p: usize, f: usize) {
        self.passed += p;
        self.failed += f;
        self.lines
            .push(format!("{stage:>28}: {p} passed, {f} failed"));
    }

    /// Adds a Godot run's counts and names its failures.
    fn add_report(&mut self, stage: &str, r: &scan::Report) {
        self.add(stage, r.passed(), r.failed());
        for c in r.cases.iter().filter(|c| !c.passed) {
            let why = c.reasons.first().map(String::as_str).unwrap_or("");
            self.failures.push(format!("{stage} {}: {why}", c.name));
        }
        for e in &r.stray_errors {
            self.failures
                .push(format!("{stage} (outside any case): {e}"));
        }
        if !r.finished {
            self.failures
                .push(format!("{stage}: the run did not finish"));
        }
    }
}

/// Runs the GDScript suites in `dir` (relative to `tests/`) and scans the log.
pub(crate) fn run_suites(
    g: &Godot,
    repo: &Path,
    dir: &str,
    label: &str,
    renderer: Option<Renderer>,
    display: Option<&str>,
    filter: Option<&str>,
) -> Result<scan::Report, String> {
    let tests = repo.join("tests");
    let log = repo.join("target/godot-tests").join(format!("{label}.log"));
    let tp = tests.display().to_string();
    let out_dir = repo.join("target/godot-tests").join(label);
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let out = out_dir.display().to_string();
    let mut args: Vec<&str> = vec!["--audio-driver", "Dummy", "--path", &tp];
    let mut env = Vec::new();
    match renderer {
        None => args.insert(0, "--headless"),
        Some(r) => {
            args.extend([
                "--rendering-driver",
                r.driver(),
                "--rendering-method",
                r.method(),
            ]);
            args.extend(["--resolution", "320x240"]);
            env = g.render_env(repo);
            env.push(("DISPLAY".into(), display.unwrap_or(":0").to_string()));
        }
    }
    let renderer_name = renderer.map(|r| r.driver()).unwrap_or("headless");
    args.extend([
        "-s",
        "res://runner.gd",
        "--",
        "--dir",
        dir,
        "--out",
        &out,
        "--renderer",
        renderer_name,
    ]);
    if let Some(f) = filter {
        args.extend(["--filter", f]);
    }
    let run = run_godot(g, &args, &env, &log, Duration::from_secs(1200))?;
    let mut r = scan::scan(&run.log);
    if run.timed_out {
        r.stray_errors.push("Godot timed out".into());
    } else if !run.ok_exit && r.failed() == 0 {
        r.stray_errors
            .push("Godot exited with an error status".into());
    }
    print_report(label, &r, &log);
    println!("  ({label}: log {}, pictures in {out})", log.display());
    Ok(r)
}

pub(crate) fn test(repo: &Path, args: &[String]) -> Result<bool, String> {
    let t0 = Instant::now();
    let mut totals = Totals {
        passed: 0,
        failed: 0,
        lines: vec![],
        failures: vec![],
    };

    // `--filter TEXT` runs only the Godot cases whose name contains TEXT (and skips the Rust tests and the
    // runner self-test): for working on one case.
    let filter = opt(args, "--filter");
    if filter.is_none() {
        println!("== Rust tests (cargo test --workspace)");
        let mut c = cargo();
        c.current_dir(repo).args(["test", "--workspace"]);
        let (ok, out) = run_streaming(c)?;
        let (p, f) = cargo_counts(&out);
        totals.add("rust", p, if ok { f } else { f.max(1) });
    }

    println!("== Build and lay out the addon");
    build(repo, false)?;
    let g = godot::find_or_provision(repo)?;
    println!("xtask: using Godot {}", g.description);
    let logs = repo.join("target/godot-tests");
    import(&g, &repo.join("tests"), &logs)?;

    println!("== Godot suites (headless)");
    let r = run_suites(&g, repo, "res://suites", "godot", None, None, filter)?;
    totals.add_report("godot suites", &r);

    // Every GDScript block of the docs, run as the docs assume (a filter that names no block skips it).
    let n = doc_snippets::write_suite(repo)?;
    println!("== Doc snippets ({n} GDScript blocks of README.md and docs/, headless)");
    let r = run_suites(
        &g,
        repo,
        "res://doc_snippets",
        "doc-snippets",
        None,
        None,
        filter,
    )?;
    totals.add_report("doc snippets", &r);

    // The C# wrappers: generated afresh, equal to the committed ones, covering ClassDB, compiling.
    if filter.is_none_or(|f| "csharp".contains(f)) {
        println!("== C# wrappers (addons/wandering_terrain/csharp)");
        let ok = crate::cmd_csharp::check(&g, repo)?;
        totals.add("csharp wrappers", usize::from(ok), usize::from(!ok));
        if !ok {
            totals
                .failures
                .push("csharp wrappers: see the lines above".into());
        }
    }

    // Collision in real physics, once per engine (selected by the project's override.cfg).
    for (label, engine) in [
        ("physics-godot", "GodotPhysics3D"),
        ("physics-jolt", "Jolt Physics"),
    ] {
        println!("== Physics suites ({engine})");
        let cfg = repo.join("tests/override.cfg");
        std::fs::write(&cfg, format!("[physics]\n3d/physics_engine=\"{engine}\"\n"))
            .map_err(|e| e.to_string())?;
        let r = run_suites(&g, repo, "res://physics", label, None, None, filter);
        let _ = std::fs::remove_file(&cfg);
        let r = r?;
        totals.add_report(label, &r);
    }

    if filter.is_none() {
        self_test(&g, repo, &mut totals)?;
        println!("== The demo scenes in the editor (headless)");
        import(&g, &repo.join("godot-project"), &logs)?;
        let (p, f) = editor_open::run(&g, repo)?;
        totals.add("editor", p, f);
        let r = editor_open::tools(&g, repo)?;
        totals.add_report("editor tools", &r);
    }

    if filter.is_none() {
        // Before the fresh project, whose package then ships every library built here.
        println!(
            "== Platforms: cross-built libraries checked here (skipped without their toolchains)"
        );
        let (p, f) = platform_checks::run(repo);
        totals.add("platforms", p, f);
    }

    if !args.iter().any(|a| a == "--no-render") {
        let x = godot::start_xvfb()?;
        if filter.is_none() {
            println!("== The package in a fresh project");
            let (p, f) = fresh_project::run(&g, repo, &x.display)?;
            totals.add("fresh project", p, f);
        }
        // Mobile runs the techniques written for it (the surface cache); the others run everything.
        for (r, only) in [
            (Renderer::OpenGl3, filter),
            (Renderer::Vulkan, filter),
            (Renderer::Mobile, filter.or(Some("render_surface_cache"))),
        ] {
            println!("== Render tests under Xvfb {} ({})", x.display, r.label());
            let label = format!("render-{}", r.label());
            let rep = run_suites(
                &g,
                repo,
                "res://render",
                &label,
                Some(r),
                Some(&x.display),
                only,
            )?;
            totals.add_report(&label, &rep);
        }
    }

    println!("== Summary ({:.0} s)", t0.elapsed().as_secs_f64());
    for l in &totals.lines {
        println!("{l}");
    }
    for f in &totals.failures {
        println!("  FAILED {f}");
    }
    println!("{} passed, {} failed", totals.passed, totals.failed);
    Ok(totals.failed == 0)
}

/// The runner self-test: a suite that must fail in exactly the planted ways.
pub(crate) fn self_test(g: &Godot, repo: &Path, totals: &mut Totals) -> Result<(), String> {
    println!("== Runner self-test: a suite that must fail");
    let r = run_suites(g, repo, "res://selftest", "selftest", None, None, None)?;
    // tests/selftest/selftest_suite.gd: exactly one case passes; each other case breaks the rules one way.
    let expect = ["selftest_suite/test_passes"];
    let sound = r.finished
        && r.cases.len() == 8
        && r.cases
            .iter()
            .all(|c| c.passed == expect.contains(&c.name.as_str()));
    println!(
        "  runner self-test: {}",
        if sound {
            "ok (the failures above were expected)"
        } else {
            "FAIL: the runner did not catch every planted failure"
        }
    );
    totals.add("runner self-test", usize::from(sound), usize::from(!sound));
    Ok(())
}
