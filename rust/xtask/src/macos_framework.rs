//! The macOS library as Godot loads it on every Mac: one universal ("fat") Mach-O holding the arm64 and
//! x86_64 slices, inside `lib<name>.macos.<profile>.framework/` with `Resources/Info.plist` naming it
//! (`CFBundleExecutable`, `CFBundlePackageType FMWK`) — the layout godot-rust's book and other addons use.
//! The fat file is written here (what `lipo -create` does), so no Apple tool is needed.

use crate::LIB_NAME;
use std::path::{Path, PathBuf};

const FAT_MAGIC: u32 = 0xcafe_babe;
const MH_MAGIC_64: u32 = 0xfeed_facf;
/// Slices start on 16 KiB boundaries (arm64's page size; what lipo uses for arm64).
const ALIGN_LOG2: u32 = 14;

/// (cputype, cpusubtype) of a 64-bit Mach-O file, or an error naming it.
fn cpu_of(bytes: &[u8], path: &Path) -> Result<(u32, u32), String> {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    match (word(0), word(4), word(8)) {
        (Some(MH_MAGIC_64), Some(cpu), Some(sub)) => Ok((cpu, sub)),
        _ => Err(format!("{} is not a 64-bit Mach-O file", path.display())),
    }
}

/// One universal binary from thin 64-bit Mach-O slices.
pub fn fat(slices: &[PathBuf]) -> Result<Vec<u8>, String> {
    let align = 1usize << ALIGN_LOG2;
    let mut header = Vec::new();
    header.extend_from_slice(&FAT_MAGIC.to_be_bytes());
    header.extend_from_slice(&(slices.len() as u32).to_be_bytes());
    let mut body: Vec<u8> = Vec::new();
    let mut offset = align; // the header fits in the first block
    for p in slices {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let (cpu, sub) = cpu_of(&bytes, p)?;
        let size = u32::try_from(bytes.len()).map_err(|_| format!("{} is too big", p.display()))?;
        for v in [cpu, sub, offset as u32, size, ALIGN_LOG2] {
            header.extend_from_slice(&v.to_be_bytes());
        }
        body.resize(offset - align, 0);
        body.extend_from_slice(&bytes);
        offset = (align + body.len()).div_ceil(align) * align;
    }
    header.resize(align, 0);
    header.extend_from_slice(&body);
    Ok(header)
}

fn info_plist(executable: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleDevelopmentRegion</key>
	<string>en</string>
	<key>CFBundleExecutable</key>
	<string>{executable}</string>
	<key>CFBundleIdentifier</key>
	<string>org.wandering-terrain.{executable}</string>
	<key>CFBundleInfoDictionaryVersion</key>
	<string>6.0</string>
	<key>CFBundleName</key>
	<string>{LIB_NAME}</string>
	<key>CFBundlePackageType</key>
	<string>FMWK</string>
	<key>CFBundleShortVersionString</key>
	<string>{version}</string>
	<key>CFBundleSupportedPlatforms</key>
	<array>
		<string>MacOSX</string>
	</array>
	<key>CFBundleVersion</key>
	<string>{version}</string>
	<key>LSMinimumSystemVersion</key>
	<string>11.0</string>
</dict>
</plist>
"#
    )
}

/// The framework's folder name for `profile`.
pub fn name(profile: &str) -> String {
    format!("lib{LIB_NAME}.macos.{profile}.framework")
}

/// Writes `bin/<name(profile)>/` from the slices (replacing an older one); returns its name.
pub fn write(bin: &Path, profile: &str, slices: &[PathBuf]) -> Result<String, String> {
    let fw_name = name(profile);
    let executable = fw_name.trim_end_matches(".framework").to_string();
    let tmp = bin.join(format!(".{fw_name}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("Resources")).map_err(|e| e.to_string())?;
    std::fs::write(tmp.join(&executable), fat(slices)?).map_err(|e| e.to_string())?;
    std::fs::write(tmp.join("Resources/Info.plist"), info_plist(&executable))
        .map_err(|e| e.to_string())?;
    let dst = bin.join(&fw_name);
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::rename(&tmp, &dst).map_err(|e| e.to_string())?;
    Ok(fw_name)
}
