//! `cargo xtask demo`: the demo opened in Godot, or rendered to PNGs without a display.

use super::*;

pub(crate) fn demo(repo: &Path, args: &[String]) -> Result<bool, String> {
    build(repo, true)?;
    let g = godot::find_or_provision(repo)?;
    println!("xtask: using Godot {}", g.description);
    let project = repo.join("godot-project");
    import(&g, &project, &repo.join("target/demo"))?;
    let pp = project.display().to_string();
    let has_display =
        std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()) && std::env::var("CI").is_err();
    let renderer = opt(args, "--renderer")
        .map(|s| Renderer::parse(s).ok_or(format!("unknown renderer {s}")))
        .transpose()?;
    if has_display && !args.iter().any(|a| a == "--png") {
        let mut c = g.command();
        c.args(["--path", &pp]);
        if let Some(r) = renderer {
            c.args([
                "--rendering-driver",
                r.driver(),
                "--rendering-method",
                r.method(),
            ]);
        }
        return Ok(c.status().map_err(|e| e.to_string())?.success());
    }
    let renderer = renderer.unwrap_or(Renderer::Vulkan);
    let x = godot::start_xvfb()?;
    let out = repo.join("target/demo");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let mut env = g.render_env(repo);
    env.push(("DISPLAY".into(), x.display.clone()));
    let os = out.display().to_string();
    let log = out.join("demo.log");
    // `--measure`: frame times of the main demo scene instead of pictures.
    let measure = args.iter().any(|a| a == "--measure");
    let script = if measure {
        "res://tools/measure_frame_time.gd"
    } else {
        "res://tools/render_demo.gd"
    };
    let mut godot_args = vec![
        "--audio-driver",
        "Dummy",
        "--rendering-driver",
        renderer.driver(),
        "--rendering-method",
        renderer.method(),
        "--resolution",
        "960x540",
        "--path",
        &pp,
        "-s",
        script,
        "--",
        "--out",
        &os,
    ];
    // `--only NAME`: the demo scenes whose file name contains NAME.
    if let Some(only) = opt(args, "--only") {
        godot_args.extend(["--only", only]);
    }
    let run = run_godot(&g, &godot_args, &env, &log, Duration::from_secs(900))?;
    if measure {
        for l in run
            .log
            .lines()
            .filter(|l| l.starts_with("frametime") || scan::is_error_line(l))
        {
            println!("{l}");
        }
        return Ok(run.ok_exit);
    }
    let pngs: Vec<&str> = run
        .log
        .lines()
        .filter_map(|l| l.strip_prefix("::png "))
        .collect();
    let errors: Vec<&str> = run.log.lines().filter(|l| scan::is_error_line(l)).collect();
    for e in &errors {
        eprintln!("  error in demo: {e}");
    }
    println!(
        "Demo rendered with {} under Xvfb; pictures:",
        renderer.driver()
    );
    for p in &pngs {
        println!("{p}");
    }
    let shot = editor_shot::shoot(&g, repo, &env, renderer);
    match &shot {
        Ok(p) => println!("{}", p.display()),
        Err(e) => eprintln!("  {e}"),
    }
    if pngs.is_empty() {
        return Err(format!(
            "the demo wrote no picture (log: {})",
            log.display()
        ));
    }
    Ok(errors.is_empty() && shot.is_ok())
}
