//! Finds or provisions a Godot 4 binary, and Xvfb for rendering.
//!
//! Order: `$GODOT`, then a `godot` on PATH reporting 4.x, then Godot 4.6 from Debian testing (or unstable)
//! unpacked into the git-ignored `.cache/godot/` (the machine's own Debian is too old to install it, so it
//! runs through the unpacked dynamic loader, see `shared/notes/godot-on-this-machine.md`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How to start Godot: a program, arguments that come before Godot's own, and environment.
#[derive(Clone, Debug)]
pub struct Godot {
    pub program: PathBuf,
    pub prefix: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Unpacked Debian root when provisioned by us (Mesa drivers live there too).
    pub root: Option<PathBuf>,
    pub description: String,
}

/// Which renderer a render run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renderer {
    /// Compatibility renderer (OpenGL 3.3, Mesa llvmpipe).
    OpenGl3,
    /// Forward+ (Vulkan, Mesa lavapipe).
    Vulkan,
    /// Mobile (Vulkan, Mesa lavapipe).
    Mobile,
}

impl Renderer {
    pub fn driver(self) -> &'static str {
        match self {
            Renderer::OpenGl3 => "opengl3",
            Renderer::Vulkan | Renderer::Mobile => "vulkan",
        }
    }
    /// The name of its test run (`render-<label>`).
    pub fn label(self) -> &'static str {
        match self {
            Renderer::Mobile => "mobile",
            r => r.driver(),
        }
    }
    pub fn method(self) -> &'static str {
        match self {
            Renderer::OpenGl3 => "gl_compatibility",
            Renderer::Vulkan => "forward_plus",
            Renderer::Mobile => "mobile",
        }
    }
    pub fn parse(s: &str) -> Option<Renderer> {
        match s {
            "opengl3" | "gl" | "compatibility" => Some(Renderer::OpenGl3),
            "vulkan" | "forward_plus" => Some(Renderer::Vulkan),
            "mobile" => Some(Renderer::Mobile),
            _ => None,
        }
    }
}

const GODOT_PACKAGES: &[&str] = &[
    "godot",
    "libgl1-mesa-dri",
    "libglx-mesa0",
    "libgl1",
    "libegl1",
    "libegl-mesa0",
    "mesa-vulkan-drivers",
    "libvulkan1",
];

impl Godot {
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.prefix);
        for (k, v) in &self.env {
            c.env(k, v);
        }
        // How to start this Godot again (a test's child process): one part a line. The unpacked Godot runs
        // through the dynamic loader, so the engine's own executable path would be the loader.
        let mut again = vec![self.program.display().to_string()];
        again.extend(self.prefix.iter().cloned());
        c.env("WT_GODOT_COMMAND", again.join("\n"));
        c
    }

    /// Environment that points Mesa (GL and Vulkan) at the unpacked drivers, when we provisioned them.
    pub fn render_env(&self, repo: &Path) -> Vec<(String, String)> {
        let Some(root) = &self.root else {
            return Vec::new();
        };
        let lib = root.join("usr/lib/x86_64-linux-gnu");
        let mut env = vec![
            (
                "LIBGL_DRIVERS_PATH".into(),
                lib.join("dri").display().to_string(),
            ),
            (
                "__EGL_VENDOR_LIBRARY_DIRS".into(),
                root.join("usr/share/glvnd/egl_vendor.d")
                    .display()
                    .to_string(),
            ),
        ];
        let icd_src = root.join("usr/share/vulkan/icd.d/lvp_icd.json");
        if let Ok(text) = std::fs::read_to_string(&icd_src) {
            // The ICD names its library by a relative or system path; point it at the unpacked copy.
            let lvp = lib.join("libvulkan_lvp.so").display().to_string();
            let fixed = rewrite_library_path(&text, &lvp);
            let dst = repo.join(".cache/godot/lvp_icd.json");
            if std::fs::write(&dst, fixed).is_ok() {
                env.push(("VK_DRIVER_FILES".into(), dst.display().to_string()));
                env.push(("VK_ICD_FILENAMES".into(), dst.display().to_string()));
            }
        }
        env
    }
}

fn rewrite_library_path(json: &str, lib: &str) -> String {
    let key = "\"library_path\"";
    let Some(k) = json.find(key) else {
        return json.to_string();
    };
    let after = k + key.len();
    let rest = &json[after..];
    let (Some(q1), Some(_)) = (rest.find('"'), rest.find(':')) else {
        return json.to_string();
    };
    let Some(q2) = rest[q1 + 1..].find('"') else {
        return json.to_string();
    };
    format!(
        "{}{}\"{}\"{}",
        &json[..after],
        &rest[..q1],
        lib,
        &rest[q1 + 1 + q2 + 1..]
    )
}

fn version_of(cmd: &mut Command) -> Option<String> {
    let out = cmd.arg("--version").stderr(Stdio::null()).output().ok()?;
    let v = String::from_utf8_lossy(&out.stdout)
        .trim()
        .lines()
        .last()?
        .trim()
        .to_string();
    Some(v)
}

/// Finds Godot as described in the module docs; provisions it when needed.
pub fn find_or_provision(repo: &Path) -> Result<Godot, String> {
    if let Ok(p) = std::env::var("GODOT") {
        if !p.is_empty() {
            let g = Godot {
                program: PathBuf::from(&p),
                prefix: vec![],
                env: vec![],
                root: None,
                description: String::new(),
            };
            let v = version_of(&mut g.command()).ok_or(format!("$GODOT={p} does not run"))?;
            return Ok(Godot {
                description: format!("$GODOT={p} ({v})"),
                ..g
            });
        }
    }
    if let Some(path) = which("godot") {
        let g = Godot {
            program: path.clone(),
            prefix: vec![],
            env: vec![],
            root: None,
            description: String::new(),
        };
        if let Some(v) = version_of(&mut g.command()) {
            if v.starts_with("4.") {
                return Ok(Godot {
                    description: format!("{} ({v}, from PATH)", path.display()),
                    ..g
                });
            }
            eprintln!(
                "xtask: ignoring {} on PATH: version {v} is not 4.x",
                path.display()
            );
        }
    }
    provision_debian(repo)
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn unpacked(root: &Path) -> Godot {
    let lib = root.join("usr/lib/x86_64-linux-gnu");
    Godot {
        program: lib.join("ld-linux-x86-64.so.2"),
        prefix: vec![
            "--library-path".into(),
            format!("{}:{}", lib.display(), lib.join("pulseaudio").display()),
            root.join("usr/bin/godot").display().to_string(),
        ],
        env: vec![],
        root: Some(root.to_path_buf()),
        description: String::new(),
    }
}

pub fn debian_mirror() -> String {
    let mut text = std::fs::read_to_string("/etc/apt/sources.list").unwrap_or_default();
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        for e in dir.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sources" || x == "list") {
                text.push('\n');
                text.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    for line in text.lines() {
        let l = line.trim();
        let url = if let Some(rest) = l.strip_prefix("URIs:") {
            rest.split_whitespace().next()
        } else if l.starts_with("deb ") {
            l.split_whitespace().find(|w| w.starts_with("http"))
        } else {
            None
        };
        if let Some(u) = url {
            if u.trim_end_matches('/').ends_with("/debian") {
                return u.trim_end_matches('/').to_string();
            }
        }
    }
    "http://deb.debian.org/debian".into()
}

fn provision_debian(repo: &Path) -> Result<Godot, String> {
    let cache = repo.join(".cache/godot");
    let root = cache.join("root");
    let marker = cache.join("root.complete");
    if marker.exists() {
        let mut g = unpacked(&root);
        if let Some(v) = version_of(&mut g.command()) {
            g.description = format!("{v} (Debian package unpacked in {})", root.display());
            return Ok(g);
        }
        eprintln!(
            "xtask: cached Godot in {} does not run; provisioning again",
            root.display()
        );
    }
    let mirror = debian_mirror();
    let mut last_err = String::new();
    for suite in ["forky", "sid"] {
        eprintln!(
            "xtask: downloading Godot 4 and Mesa from Debian {suite} ({mirror}) into {}",
            cache.display()
        );
        match download_suite(&cache, &mirror, suite, "amd64", GODOT_PACKAGES) {
            Ok(()) => {
                let n = unpack_debs(&cache.join("debs"), &root)?;
                let mut g = unpacked(&root);
                match version_of(&mut g.command()) {
                    Some(v) if v.starts_with("4.") => {
                        std::fs::write(&marker, &v).map_err(|e| e.to_string())?;
                        eprintln!("xtask: unpacked {n} packages; Godot {v}");
                        g.description = format!(
                            "{v} (Debian {suite} package unpacked in {})",
                            root.display()
                        );
                        return Ok(g);
                    }
                    other => last_err = format!("unpacked Godot from {suite} reports {other:?}"),
                }
            }
            Err(e) => last_err = e,
        }
    }
    Err(format!(
        "no Godot 4 found: set $GODOT to a Godot 4.x binary, put `godot` 4.x on PATH, or allow the \
         download from Debian ({last_err})"
    ))
}

/// The Debian mirror and suite whose lists `.cache/godot` holds (after provisioning).
pub fn cached_apt(repo: &Path) -> Option<PathBuf> {
    let cache = repo.join(".cache/godot");
    cache.join("sources.list").exists().then_some(cache)
}

/// Downloads single packages (no dependencies) with the cached apt configuration into `dest`.
pub fn apt_download(cache: &Path, dest: &Path, packages: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(dest).map_err(|e| e.to_string())?;
    let mut c = Command::new("apt-get");
    for o in [
        format!(
            "Dir::Etc::sourcelist={}",
            cache.join("sources.list").display()
        ),
        "Dir::Etc::sourceparts=/dev/null".to_string(),
        format!("Dir::State::Lists={}", cache.join("lists").display()),
        format!("Dir::State::status={}", cache.join("status").display()),
        format!("Dir::Cache={}", cache.join("aptcache").display()),
        "Debug::NoLocking=1".to_string(),
    ] {
        c.arg("-o").arg(o);
    }
    c.arg("download").args(packages).current_dir(dest);
    let out = c.output().map_err(|e| format!("apt-get: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "apt-get download {} failed: {}",
            packages.join(" "),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ))
    }
}

/// Unpacks every `.deb` in `debs` into a fresh `root`; returns how many.
pub fn unpack_debs(debs: &Path, root: &Path) -> Result<usize, String> {
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root).map_err(|e| e.to_string())?;
    let mut n = 0;
    for e in std::fs::read_dir(debs)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "deb") {
            let st = Command::new("dpkg").arg("-x").arg(&p).arg(root).status();
            if !st.is_ok_and(|s| s.success()) {
                return Err(format!("dpkg -x {} failed", p.display()));
            }
            n += 1;
        }
    }
    Ok(n)
}

/// Downloads `packages` and everything they depend on (the state is empty: nothing counts as
/// installed) for `arch` from Debian `suite` into `cache/debs`.
pub fn download_suite(
    cache: &Path,
    mirror: &str,
    suite: &str,
    arch: &str,
    packages: &[&str],
) -> Result<(), String> {
    for d in ["lists/partial", "debs/partial", "aptcache"] {
        std::fs::create_dir_all(cache.join(d)).map_err(|e| e.to_string())?;
    }
    let list = cache.join("sources.list");
    std::fs::write(&list, format!("deb [arch={arch}] {mirror} {suite} main\n"))
        .map_err(|e| e.to_string())?;
    let status = cache.join("status");
    std::fs::write(&status, "").map_err(|e| e.to_string())?;
    let opts = [
        format!("Dir::Etc::sourcelist={}", list.display()),
        "Dir::Etc::sourceparts=/dev/null".to_string(),
        format!("Dir::State::Lists={}", cache.join("lists").display()),
        format!("Dir::State::status={}", status.display()),
        format!("Dir::Cache={}", cache.join("aptcache").display()),
        format!("Dir::Cache::archives={}", cache.join("debs").display()),
        "APT::Install-Recommends=false".to_string(),
        format!("APT::Architecture={arch}"),
        format!("APT::Architectures={arch}"),
        "Debug::NoLocking=1".to_string(),
    ];
    let apt = |extra: &[&str]| -> Result<(), String> {
        let mut c = Command::new("apt-get");
        for o in &opts {
            c.arg("-o").arg(o);
        }
        c.args(extra);
        let out = c.output().map_err(|e| format!("apt-get: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "apt-get {} failed: {}",
                extra.join(" "),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ))
        }
    };
    apt(&["update"])?;
    let mut args = vec!["--download-only", "-y", "install"];
    args.extend_from_slice(packages);
    apt(&args)
}

/// A running Xvfb server, stopped on drop.
pub struct Xvfb {
    child: std::process::Child,
    pub display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM lets Xvfb remove its lock file and socket (SIGKILL would leave them behind).
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

/// A display whose lock names a process that no longer runs is free again: remove its leftovers.
fn clear_stale(n: u32) {
    let lock = format!("/tmp/.X{n}-lock");
    let Ok(text) = std::fs::read_to_string(&lock) else {
        return;
    };
    let alive = text
        .trim()
        .parse::<u32>()
        .is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
    if !alive {
        let _ = std::fs::remove_file(&lock);
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{n}"));
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Starts Xvfb on a free display, installing it with apt-get when missing and running as root.
pub fn start_xvfb() -> Result<Xvfb, String> {
    if which("Xvfb").is_none() {
        if is_root() {
            eprintln!("xtask: Xvfb missing; installing package xvfb with apt-get");
            let _ = Command::new("apt-get")
                .arg("update")
                .stdout(Stdio::null())
                .status();
            let st = Command::new("apt-get")
                .args(["install", "-y", "--no-install-recommends", "xvfb"])
                .env("DEBIAN_FRONTEND", "noninteractive")
                .stdout(Stdio::null())
                .status();
            if !st.is_ok_and(|s| s.success()) || which("Xvfb").is_none() {
                return Err("apt-get install xvfb failed".into());
            }
        } else {
            return Err(
                "Xvfb is needed for render tests and the headless demo: install it \
                        (Debian/Ubuntu: `sudo apt-get install xvfb`) and run again"
                    .into(),
            );
        }
    }
    for n in 90..130 {
        clear_stale(n);
        let sock = format!("/tmp/.X11-unix/X{n}");
        let lock = format!("/tmp/.X{n}-lock");
        if Path::new(&sock).exists() || Path::new(&lock).exists() {
            continue;
        }
        let display = format!(":{n}");
        let mut child = Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1280x1024x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("Xvfb: {e}"))?;
        for _ in 0..100 {
            if Path::new(&sock).exists() {
                return Ok(Xvfb { child, display });
            }
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    Err("could not start Xvfb on displays :90..:129".into())
}
