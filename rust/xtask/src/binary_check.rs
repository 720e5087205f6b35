//! What can be checked of a library for another platform without running it there: its format and
//! architecture, the entry symbol Godot looks up (`gdext_rust_init`), the DLLs a Windows build imports
//! (only DLLs every Windows has), and for macOS both slices of the universal binary, the arm64 one signed
//! (Apple silicon refuses unsigned code; zig signs ad hoc) and the framework's Info.plist naming it.

use object::macho::{FatArch32, LC_CODE_SIGNATURE};
use object::read::macho::{FatArch, MachOFatFile32, MachOFile64};
use object::{Architecture, BinaryFormat, Object};
use std::path::Path;

pub const ENTRY: &str = "gdext_rust_init";

/// DLLs a Windows 10 or 11 machine has. A mingw build that links its C runtime dynamically would add
/// libgcc_s_seh-1.dll or libwinpthread-1.dll, which users do not have.
const SYSTEM_DLLS: &[&str] = &[
    "kernel32.dll",
    "ntdll.dll",
    "msvcrt.dll",
    "userenv.dll",
    "ws2_32.dll",
    "advapi32.dll",
    "bcrypt.dll",
    "bcryptprimitives.dll",
    "user32.dll",
    "shell32.dll",
    "ole32.dll",
    "oleaut32.dll",
    "secur32.dll",
    "crypt32.dll",
];

fn is_system_dll(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SYSTEM_DLLS.contains(&n.as_str()) || n.starts_with("api-ms-win-")
}

/// Format, architecture and the entry symbol of one (thin) library; `what` names it in messages.
fn thin(bytes: &[u8], format: BinaryFormat, arch: Architecture, what: &str) -> Result<(), String> {
    let f = object::File::parse(bytes).map_err(|e| format!("{what}: cannot parse: {e}"))?;
    if f.format() != format || f.architecture() != arch {
        return Err(format!(
            "{what}: {:?} {:?}, want {format:?} {arch:?}",
            f.format(),
            f.architecture()
        ));
    }
    let exports = f.exports().map_err(|e| format!("{what}: exports: {e}"))?;
    // Mach-O prefixes C symbols with an underscore.
    let found = exports
        .iter()
        .any(|e| e.name() == ENTRY.as_bytes() || e.name() == format!("_{ENTRY}").as_bytes());
    if !found {
        return Err(format!("{what}: does not export {ENTRY}"));
    }
    Ok(())
}

/// A Linux library (ELF) for `arch`.
pub fn linux(path: &Path, arch: Architecture) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    thin(&bytes, BinaryFormat::Elf, arch, &path.display().to_string())?;
    Ok(format!("ELF {arch:?}, exports {ENTRY}"))
}

/// A Windows DLL (PE, x86_64) importing only system DLLs; returns them.
pub fn windows(path: &Path) -> Result<String, String> {
    let what = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{what}: {e}"))?;
    thin(&bytes, BinaryFormat::Pe, Architecture::X86_64, &what)?;
    let f = object::File::parse(&*bytes).map_err(|e| e.to_string())?;
    let mut dlls: Vec<String> = f
        .imports()
        .map_err(|e| format!("{what}: imports: {e}"))?
        .iter()
        .map(|i| String::from_utf8_lossy(i.library()).to_string())
        .collect();
    dlls.sort_by_key(|d| d.to_ascii_lowercase());
    dlls.dedup_by_key(|d| d.to_ascii_lowercase());
    let foreign: Vec<&String> = dlls.iter().filter(|d| !is_system_dll(d)).collect();
    if !foreign.is_empty() {
        return Err(format!(
            "{what}: imports DLLs Windows does not ship: {foreign:?} (link the C runtime statically)"
        ));
    }
    Ok(format!(
        "PE x86_64, exports {ENTRY}, imports {}",
        dlls.join(" ")
    ))
}

/// A macOS framework: Info.plist names a universal binary with arm64 (signed) and x86_64 slices.
pub fn macos_framework(dir: &Path) -> Result<String, String> {
    let what = dir.display().to_string();
    let plist = std::fs::read_to_string(dir.join("Resources/Info.plist"))
        .map_err(|e| format!("{what}: Resources/Info.plist: {e}"))?;
    let exe = plist
        .split("<key>CFBundleExecutable</key>")
        .nth(1)
        .and_then(|s| s.split("<string>").nth(1))
        .and_then(|s| s.split("</string>").next())
        .ok_or(format!("{what}: Info.plist has no CFBundleExecutable"))?;
    if !plist.contains("<string>FMWK</string>") {
        return Err(format!("{what}: Info.plist is not a framework's (FMWK)"));
    }
    let bytes = std::fs::read(dir.join(exe)).map_err(|e| format!("{what}/{exe}: {e}"))?;
    let fat =
        MachOFatFile32::parse(&*bytes).map_err(|e| format!("{what}/{exe}: not universal: {e}"))?;
    let mut arches = Vec::new();
    for a in fat.arches() {
        let slice =
            slice_of(&bytes, a).ok_or(format!("{what}/{exe}: a slice lies outside the file"))?;
        let arch = a.architecture();
        thin(
            slice,
            BinaryFormat::MachO,
            arch,
            &format!("{what}/{exe} ({arch:?})"),
        )?;
        if arch == Architecture::Aarch64 && !signed(slice)? {
            return Err(format!(
                "{what}/{exe}: the arm64 slice is not signed (Apple silicon refuses it)"
            ));
        }
        arches.push(format!("{arch:?}"));
    }
    arches.sort();
    if arches != ["Aarch64", "X86_64"] {
        return Err(format!(
            "{what}/{exe}: slices {arches:?}, want arm64 and x86_64"
        ));
    }
    Ok(format!(
        "universal Mach-O (arm64 signed ad hoc, x86_64), exports {ENTRY}, Info.plist names {exe}"
    ))
}

fn slice_of<'a>(bytes: &'a [u8], a: &FatArch32) -> Option<&'a [u8]> {
    let (off, size) = (a.offset() as usize, a.size() as usize);
    bytes.get(off..off.checked_add(size)?)
}

fn signed(slice: &[u8]) -> Result<bool, String> {
    let m = MachOFile64::<object::Endianness>::parse(slice).map_err(|e| e.to_string())?;
    let mut cmds = m.macho_load_commands().map_err(|e| e.to_string())?;
    while let Some(c) = cmds.next().map_err(|e| e.to_string())? {
        if c.cmd() == LC_CODE_SIGNATURE {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_dlls_are_told_from_runtime_dlls() {
        assert!(is_system_dll("KERNEL32.dll"));
        assert!(is_system_dll("api-ms-win-core-synch-l1-2-0.dll"));
        assert!(!is_system_dll("libgcc_s_seh-1.dll"));
        assert!(!is_system_dll("libwinpthread-1.dll"));
    }

    #[test]
    fn this_machines_own_build_tool_is_checked_as_an_elf() {
        // The running xtask is an x86_64 ELF executable: the parser and the format check work, and a
        // wrong architecture or a missing entry symbol is refused with a message.
        let me = std::env::current_exe().unwrap();
        let bytes = std::fs::read(&me).unwrap();
        let e = thin(&bytes, BinaryFormat::Elf, Architecture::Aarch64, "xtask").unwrap_err();
        assert!(e.contains("want Elf Aarch64"), "{e}");
    }
}
