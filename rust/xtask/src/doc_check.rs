//! Every class, property, method, signal and constant the extension exposes to Godot carries a description
//! (gdext's `register-docs` turns `///` comments into the editor's help). Checked on the sources, as
//! Godot's `--doctool` does not load an extension's help: an exposed item is a `#[derive(GodotClass)]`,
//! `#[export]`, `#[func]`, `#[signal]` or `#[constant]`; its description is the `///` block above its
//! attributes. Exempt: accessors named in a property's `#[var(get = …, set = …)]` (documented with the
//! property) and `#[func(rename = _…)]` (private to Godot, as names starting with `_` are).

/// The exposed items of one source file that have no `///` description, as "file:line item".
pub fn undocumented(file: &str, src: &str) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    let accessors: Vec<String> = lines
        .iter()
        .filter_map(|l| l.trim().strip_prefix("#[var("))
        .flat_map(|v| {
            v.trim_end_matches(")]")
                .split(',')
                .filter_map(|kv| kv.split_once('=').map(|(_, n)| n.trim().to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out = vec![];
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        let exposed = t.starts_with("#[derive(GodotClass)]")
            || t.starts_with("#[export")
            || t == "#[func]"
            || t.starts_with("#[func(")
            || t == "#[signal]"
            || t == "#[constant]";
        if !exposed || t.contains("rename = _") {
            i += 1;
            continue;
        }
        // The item: the first line after the attribute block.
        let mut j = i;
        while j < lines.len() && (lines[j].trim().starts_with("#[") || lines[j].trim().is_empty()) {
            j += 1;
        }
        let item = lines.get(j).map(|l| l.trim()).unwrap_or("");
        let name = item
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ")
            .trim_start_matches("fn ")
            .trim_start_matches("const ")
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let is_accessor = item.contains("fn ") && accessors.iter().any(|a| a == name);
        // The description: walk up over the attribute block.
        let mut k = i;
        while k > 0 && lines[k - 1].trim().starts_with("#[") {
            k -= 1;
        }
        let documented = k > 0 && lines[k - 1].trim().starts_with("///");
        if !documented && !is_accessor {
            out.push(format!("{file}:{} {item}", j + 1));
        }
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scanner_sees_what_is_missing() {
        let src = "/// A class.\n#[derive(GodotClass)]\nstruct A {\n    #[export]\n    x: i64,\n    /// Documented.\n    #[export]\n    #[var(get = get_y, set = set_y)]\n    y: i64,\n}\n#[func]\nfn get_y() {}\n#[func]\nfn lonely() {}\n#[func(rename = _hidden)]\nfn hidden() {}\n";
        let u = undocumented("a.rs", src);
        assert_eq!(u, vec!["a.rs:5 x: i64,", "a.rs:14 fn lonely() {}"]);
    }

    #[test]
    fn every_exposed_item_of_the_extension_is_documented() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../wandering_terrain/src");
        let mut missing = vec![];
        // Every file, in the concept folders too.
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let src = std::fs::read_to_string(&p).unwrap();
                    let name = p.strip_prefix(&root).unwrap_or(&p).to_string_lossy();
                    missing.extend(undocumented(&name, &src));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "undocumented exposed items:\n{}",
            missing.join("\n")
        );
    }
}
