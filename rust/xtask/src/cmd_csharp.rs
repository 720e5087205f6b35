//! `cargo xtask csharp [--check]`: the C# wrappers of every class the extension registers
//! (`tests/csharp/generate_csharp.gd` writes them from ClassDB and the classes' docs) into
//! `addons/wandering_terrain/csharp/`; with `--check` (run by `cargo xtask test`), writes them elsewhere
//! and fails when they differ from the committed ones (a `#[func]` added without regenerating), when a
//! ClassDB member has no wrapper member or one is typed `GodotObject`/`Variant` where ClassDB names a type,
//! or when they do not compile with Mono's `mcs` against `tests/csharp/GodotStub.cs` (skipped, with the
//! reason printed, where `mcs` is absent).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::godot::{find_or_provision, Godot};
use crate::godot_run::run_godot;

const OUT: &str = "addons/wandering_terrain/csharp";

pub(crate) fn csharp(repo: &Path, args: &[String]) -> Result<bool, String> {
    crate::build(repo, false)?;
    let g = find_or_provision(repo)?;
    if args.iter().any(|a| a == "--check") {
        return check(&g, repo);
    }
    let (ok, dir) = generate(&g, repo, false)?;
    println!("csharp: wrappers written to {}", dir.display());
    Ok(ok && compile(repo, &dir)?.unwrap_or(true))
}

/// The wrappers generated afresh equal the committed ones, cover ClassDB and compile (the test step).
pub(crate) fn check(g: &Godot, repo: &Path) -> Result<bool, String> {
    let (ok, dir) = generate(g, repo, true)?;
    if !ok {
        return Ok(false);
    }
    let drift = compare(&dir, &repo.join(OUT))?;
    for d in &drift {
        println!("  DRIFT {d}");
    }
    if !drift.is_empty() {
        println!(
            "csharp: the committed wrappers are stale: run `cargo xtask csharp` and commit {OUT}"
        );
    }
    let compiled = compile(repo, &dir)?.unwrap_or(true);
    Ok(drift.is_empty() && compiled)
}

/// Writes the wrappers (into the addon, or a scratch folder for `check`); false when the generator failed
/// or its coverage counts disagree.
fn generate(g: &Godot, repo: &Path, check: bool) -> Result<(bool, PathBuf), String> {
    let work = repo.join("target/csharp");
    let docs = work.join("docs");
    let _ = std::fs::remove_dir_all(&docs);
    let out = if check {
        work.join("generated")
    } else {
        repo.join(OUT)
    };
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let tests = repo.join("tests");
    let tp = tests.to_string_lossy().to_string();
    // The extension writes its class docs when the main loop starts, before the generator's script runs.
    let env = vec![(
        "WANDERING_TERRAIN_DOCS_OUT".to_string(),
        docs.to_string_lossy().to_string(),
    )];
    let limit = Duration::from_secs(300);
    let (os, ds) = (out.to_string_lossy(), docs.to_string_lossy());
    let a = [
        "--headless",
        "--path",
        &tp,
        "-s",
        "res://csharp/generate_csharp.gd",
        "--",
        "--out",
        &os,
        "--docs",
        &ds,
    ];
    let run = run_godot(g, &a, &env, &work.join("generate.log"), limit)?;
    let mut ok = run.ok_exit && !run.timed_out;
    let mut counted = 0;
    for line in run.log.lines() {
        if let Some(rest) = line.strip_prefix("::count ") {
            counted += 1;
            println!("  csharp coverage: {rest}");
            let v: Vec<&str> = rest.split_whitespace().collect();
            let num = |s: &str| s.split('=').nth(1).and_then(|n| n.parse::<u64>().ok());
            if v.len() != 3 || num(v[1]).is_none() || num(v[1]) != num(v[2]) {
                ok = false;
            }
        } else if let Some(n) = line.strip_prefix("::untyped ") {
            println!("  csharp members typed GodotObject/Variant where ClassDB names a type: {n}");
            ok &= n.trim() == "0";
        } else if line.contains("ERROR") {
            println!("  {line}");
            ok = false;
        }
    }
    if counted == 0 {
        println!(
            "csharp: the generator printed no counts (log {})",
            work.join("generate.log").display()
        );
        ok = false;
    }
    Ok((ok, out))
}

/// Files that differ between the fresh wrappers and the committed ones.
fn compare(fresh: &Path, committed: &Path) -> Result<Vec<String>, String> {
    let list = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .map(|r| {
                r.flatten()
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .collect()
            })
            .unwrap_or_default();
        v.retain(|n| n.ends_with(".cs"));
        v.sort();
        v
    };
    let (a, b) = (list(fresh), list(committed));
    let mut drift = Vec::new();
    for n in a.iter().chain(b.iter().filter(|n| !a.contains(n))) {
        let x = std::fs::read(fresh.join(n)).ok();
        let y = std::fs::read(committed.join(n)).ok();
        if x != y {
            drift.push(match (x.is_some(), y.is_some()) {
                (true, false) => format!("{n}: new, not committed"),
                (false, true) => format!("{n}: committed, no longer generated"),
                _ => format!("{n}: differs from the committed file"),
            });
        }
    }
    Ok(drift)
}

/// Compiles the wrappers with the stub; None when `mcs` is absent (the reason printed).
fn compile(repo: &Path, dir: &Path) -> Result<Option<bool>, String> {
    if Command::new("mcs").arg("--version").output().is_err() {
        println!("csharp: SKIPPED compiling the wrappers: Mono's `mcs` is not installed (apt-get install mono-mcs)");
        return Ok(None);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cs"))
        .collect();
    files.sort();
    // The docs' C# examples compile too (each ```csharp block of docs/csharp.md, one file).
    let doc = std::fs::read_to_string(repo.join("docs/csharp.md")).map_err(|e| e.to_string())?;
    let mut examples = String::new();
    let mut inside = false;
    for line in doc.lines() {
        match (inside, line.trim_start().starts_with("```")) {
            (false, true) if line.trim() == "```csharp" => inside = true,
            (true, true) => inside = false,
            (true, false) => examples.push_str(&format!("{line}\n")),
            _ => {}
        }
    }
    let ex = repo.join("target/csharp/doc_examples.cs");
    std::fs::write(&ex, examples).map_err(|e| e.to_string())?;
    files.push(ex);
    let out = repo.join("target/csharp/wrappers.dll");
    let o = Command::new("mcs")
        .arg("-target:library")
        .arg("-langversion:7.2")
        .arg(format!("-out:{}", out.display()))
        .arg(repo.join("tests/csharp/GodotStub.cs"))
        .args(&files)
        .output()
        .map_err(|e| format!("mcs: {e}"))?;
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = text.lines().filter(|l| l.contains("error CS")).collect();
    for e in errors.iter().take(20) {
        println!("  {e}");
    }
    let ok = o.status.success() && errors.is_empty();
    println!(
        "csharp: {} wrapper files and the docs' examples {} with mcs against tests/csharp/GodotStub.cs",
        files.len() - 1,
        if ok { "compile" } else { "FAIL to compile" }
    );
    Ok(Some(ok))
}

#[cfg(test)]
mod tests {
    use super::compare;

    #[test]
    fn a_wrapper_changed_or_missing_is_drift() {
        let base = std::env::temp_dir().join(format!("csharp_drift_{}", std::process::id()));
        let (fresh, committed) = (base.join("fresh"), base.join("committed"));
        std::fs::create_dir_all(&fresh).unwrap();
        std::fs::create_dir_all(&committed).unwrap();
        std::fs::write(fresh.join("A.cs"), "class A { void F() {} }").unwrap();
        std::fs::write(committed.join("A.cs"), "class A { void F() {} }").unwrap();
        assert!(compare(&fresh, &committed).unwrap().is_empty());
        // A #[func] added: the fresh wrapper has a method the committed one lacks.
        std::fs::write(fresh.join("A.cs"), "class A { void F() {} void G() {} }").unwrap();
        std::fs::write(fresh.join("B.cs"), "class B {}").unwrap();
        let d = compare(&fresh, &committed).unwrap();
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].contains("A.cs") && d[1].contains("B.cs: new"));
        let _ = std::fs::remove_dir_all(&base);
    }
}
