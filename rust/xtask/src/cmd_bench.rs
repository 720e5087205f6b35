//! `cargo xtask bench`: the criterion benches and the Godot-side bench scripts (Jolt runs included).

use super::*;

pub(crate) fn bench(repo: &Path, args: &[String]) -> Result<bool, String> {
    let quick = args.iter().any(|a| a == "--quick");
    if !args.iter().any(|a| a == "--godot-only") {
        let mut c = cargo();
        c.current_dir(repo).args(["bench", "-p", "terrain_core"]);
        if quick {
            c.args(["--", "--quick"]);
        }
        if !c.status().map_err(|e| e.to_string())?.success() {
            return Err("cargo bench failed".into());
        }
    }
    build(repo, true)?;
    let g = godot::find_or_provision(repo)?;
    println!("xtask: using Godot {}", g.description);
    import(&g, &repo.join("tests"), &repo.join("target/godot-bench"))?;
    let tp = repo.join("tests").display().to_string();
    let log = repo.join("target/godot-bench/bench.log");
    // `--only TEXT`: just the Godot-side benches whose file name contains TEXT.
    let only = opt(args, "--only");
    let mut a = vec![
        "--headless",
        "--audio-driver",
        "Dummy",
        "--path",
        &tp,
        "-s",
        "res://bench/bench_runner.gd",
        "--",
    ];
    if quick {
        a.push("--quick");
    }
    if let Some(o) = only {
        a.extend(["--only", o]);
    }
    let run = run_godot(&g, &a, &[], &log, Duration::from_secs(900))?;
    let mut ok = print_bench(&run);
    // The collision benches again under Jolt (the tests project defaults to Godot Physics).
    let collision = ["bench_collision.gd", "bench_collision_targets.gd"];
    if only.is_none_or(|o| collision.iter().any(|f| f.contains(o))) {
        a.retain(|x| Some(*x) != only && *x != "--only");
        a.extend(["--only", only.unwrap_or("collision")]);
        let run = with_jolt(repo, || {
            run_godot(
                &g,
                &a,
                &[],
                &repo.join("target/godot-bench/bench-jolt.log"),
                Duration::from_secs(900),
            )
        })?;
        ok &= print_bench(&run);
    }
    // Benches that need a real renderer (texture memory, uploads), under Xvfb for both renderers.
    if !args.iter().any(|a| a == "--no-render") {
        let x = godot::start_xvfb()?;
        // `--renderer vulkan|opengl3`: one renderer only (a 20-minute soak per renderer); `--physics jolt`:
        // the selected benches under Jolt only.
        let one = opt(args, "--renderer");
        let jolt = opt(args, "--physics") == Some("jolt");
        for r in [Renderer::Vulkan, Renderer::OpenGl3]
            .into_iter()
            .filter(|r| one.is_none_or(|o| o == r.driver()))
        {
            let suffix = if jolt { "-jolt" } else { "" };
            let log = repo
                .join("target/godot-bench")
                .join(format!("bench-{}{suffix}.log", r.driver()));
            let mut a = vec![
                "--audio-driver",
                "Dummy",
                "--rendering-driver",
                r.driver(),
                "--rendering-method",
                r.method(),
                "--resolution",
                "960x540",
                "--path",
                &tp,
                "-s",
                "res://bench/render_bench_runner.gd",
                "--",
            ];
            if quick {
                a.push("--quick");
            }
            if let Some(o) = only {
                a.extend(["--only", o]);
            }
            let mut env = g.render_env(repo);
            env.push(("DISPLAY".into(), x.display.clone()));
            // The full soak alone flies 20 minutes: a quick run's half-hour limit cut it short.
            let limit = Duration::from_secs(if quick { 1800 } else { 7200 });
            let run = if jolt {
                with_jolt(repo, || run_godot(&g, &a, &env, &log, limit))?
            } else {
                run_godot(&g, &a, &env, &log, limit)?
            };
            ok &= print_bench(&run);
            // The main-thread bench again under Jolt (Godot 4.6's default for new projects), on both
            // renderers.
            if !jolt && only.is_none_or(|o| "render_bench_main_thread.gd".contains(o)) {
                a.retain(|x| Some(*x) != only && *x != "--only");
                a.extend(["--only", "main_thread"]);
                let log = repo.join(format!("target/godot-bench/bench-{}-jolt.log", r.driver()));
                let run = with_jolt(repo, || {
                    run_godot(&g, &a, &env, &log, Duration::from_secs(1800))
                })?;
                ok &= print_bench(&run);
            }
        }
    }
    Ok(ok)
}

/// Runs `f` with the tests project switched to Jolt Physics (it defaults to Godot Physics).
pub(crate) fn with_jolt<T>(
    repo: &Path,
    f: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let cfg = repo.join("tests/override.cfg");
    std::fs::write(&cfg, "[physics]\n3d/physics_engine=\"Jolt Physics\"\n")
        .map_err(|e| e.to_string())?;
    let r = f();
    let _ = std::fs::remove_file(&cfg);
    r
}

/// Prints a bench run's result lines; false when it failed or logged errors.
pub(crate) fn print_bench(run: &GodotRun) -> bool {
    for l in run
        .log
        .lines()
        .filter(|l| l.starts_with("bench") || l.starts_with("::") || scan::is_error_line(l))
    {
        println!("{l}");
    }
    run.ok_exit && !run.log.lines().any(scan::is_error_line)
}
