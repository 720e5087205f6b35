//! The crates' import graph, file by file, checked by a test: no file imports (directly or through others)
//! a file that imports it, no `#[path]` module, no terrain-node class named outside `nodes/` (whatever
//! stands on the terrain reaches it through `surface.rs`'s `TerrainHost`), and nothing outside `nodes/`
//! importing `nodes/`. A parent module's use of its
//! own children is composition, not an import; a child's `super::` is an import of its parent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// Every `.rs` file under `src` as its module path (`a/b/mod.rs` and `a/b.rs` are `[a, b]`; `lib.rs` is
/// `[]`) with its text up to its first `#[cfg(test)]` (tests may import anything).
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(src).unwrap().with_extension("");
                let mut m: Module = rel.iter().map(|c| c.to_string_lossy().into()).collect();
                if m.last().is_some_and(|l| l == "mod") || m == ["lib"] || m == ["main"] {
                    m.pop();
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or("");
                let code: String = code
                    .lines()
                    .map(|l| l.split("//").next().unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join("\n");
                out.insert(m, code);
            }
        }
    }
    out
}

/// The paths a `use` tree names: `a::{b, c::d}` → `[a, b]`, `[a, c, d]`.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Module>) {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{') {
        let inner = &inner[..inner.rfind('}').unwrap_or(inner.len())];
        let (mut depth, mut start) = (0, 0);
        for (i, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(prefix, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !inner[start..].trim().is_empty() {
            expand(prefix, &inner[start..], out);
        }
        return;
    }
    let (head, rest) = match tree.split_once("::") {
        Some((h, r)) => (h.trim(), Some(r)),
        None => (tree, None),
    };
    if head == "self" || head == "*" || head.is_empty() {
        out.push(prefix.to_vec());
        return;
    }
    let mut p = prefix.to_vec();
    p.push(head.to_string());
    match rest {
        Some(r) => expand(&p, r, out),
        None => out.push(p),
    }
}

/// The `crate::`, `super::` and `self::` paths in `code`, each with what follows up to the end of its path.
fn paths(code: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    for kind in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(kind) {
            let at = from + i;
            from = at + kind.len();
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let rest = &code[from..];
            // The path, and a use tree's braces whole.
            let mut depth = 0;
            let mut end = rest.len();
            for (j, ch) in rest.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = j + 1;
                            break;
                        }
                    }
                    c if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == ':') => {
                        end = j;
                        break;
                    }
                    _ => {}
                }
            }
            out.push((kind, rest[..end].trim_end_matches(':').to_string()));
        }
    }
    out
}

/// Edges: module → the modules it imports.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mods = modules(src);
    let resolve = |p: &Module| -> Option<Module> {
        (0..=p.len())
            .rev()
            .map(|n| p[..n].to_vec())
            .find(|m| mods.contains_key(m))
    };
    let mut edges = BTreeMap::new();
    for (m, code) in &mods {
        let mut to = BTreeSet::new();
        for (kind, tree) in paths(code) {
            let base: Module = match kind {
                "crate::" => vec![],
                "super::" => m[..m.len().saturating_sub(1)].to_vec(),
                _ => m.clone(),
            };
            let mut named = Vec::new();
            expand(&base, &tree, &mut named);
            for p in named {
                let Some(t) = resolve(&p) else { continue };
                // Itself, or a parent using its own child (composition), is no import.
                if &t == m || (t.starts_with(m) && kind != "super::") {
                    continue;
                }
                to.insert(t);
            }
        }
        edges.insert(m.clone(), to);
    }
    edges
}

/// The groups of modules that import each other (strongly connected, more than one module).
fn loops(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    // Reachability is enough at this size (about 50 files).
    let reach = |from: &Module| -> BTreeSet<Module> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&Module> = edges[from].iter().collect();
        while let Some(m) = todo.pop() {
            if seen.insert(m.clone()) {
                todo.extend(edges.get(m).into_iter().flatten());
            }
        }
        seen
    };
    let all: BTreeMap<&Module, BTreeSet<Module>> = edges.keys().map(|m| (m, reach(m))).collect();
    let mut out: Vec<Vec<Module>> = Vec::new();
    for (m, r) in &all {
        if !r.contains(*m) || out.iter().any(|g| g.contains(m)) {
            continue;
        }
        let group = all
            .iter()
            .filter(|(n, rn)| r.contains(**n) && rn.contains(*m))
            .map(|(n, _)| (*n).clone())
            .collect();
        out.push(group);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crate_src(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(name)
            .join("src")
    }

    #[test]
    fn neither_crate_has_an_import_loop() {
        for name in ["terrain_core", "wandering_terrain"] {
            let edges = graph(&crate_src(name));
            assert!(edges.len() > 30, "{name}: found only {} files", edges.len());
            assert!(edges.values().map(BTreeSet::len).sum::<usize>() > 50);
            let show = |g: &Vec<Module>| {
                g.iter()
                    .map(|m| m.join("/"))
                    .collect::<Vec<_>>()
                    .join(" ↔ ")
            };
            let found: Vec<String> = loops(&edges).iter().map(show).collect();
            assert!(
                found.is_empty(),
                "{name}: files that import each other: {found:?}"
            );
        }
    }

    #[test]
    fn no_path_modules_and_no_node_casts_outside_the_nodes() {
        for name in ["terrain_core", "wandering_terrain"] {
            for (m, code) in modules(&crate_src(name)) {
                let at = m.join("/");
                assert!(!code.contains("#[path"), "{name}/{at}: a #[path] module");
                if name == "wandering_terrain" && m.first().is_none_or(|f| f != "nodes") {
                    for class in ["TerrainNode>", "WanderingTerrain>"] {
                        assert!(
                            !code.contains(&format!("cast::<{class}")),
                            "{at}: casts to a terrain node class (use surface::host_of)"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn nothing_outside_the_nodes_imports_the_nodes() {
        // The nodes are the hub: they import their parts (features, data, physics), never the reverse;
        // what the parts need of a terrain is the contract in `surface.rs`.
        let edges = graph(&crate_src("wandering_terrain"));
        let in_nodes = |m: &Module| m.first().is_some_and(|f| f == "nodes");
        let back: Vec<String> = edges
            .iter()
            // lib.rs registers every class: the root composes, like a parent its children.
            .filter(|(m, _)| !in_nodes(m) && !m.is_empty())
            .flat_map(|(m, to)| {
                to.iter()
                    .filter(|t| in_nodes(t))
                    .map(move |t| format!("{} → {}", m.join("/"), t.join("/")))
            })
            .collect();
        assert!(
            edges.keys().any(in_nodes),
            "the nodes' files were not found"
        );
        assert!(
            back.is_empty(),
            "files outside nodes/ import nodes/: {back:?}"
        );
    }

    #[test]
    fn the_checker_finds_a_loop_and_reads_use_trees() {
        let mut named = Vec::new();
        expand(&[], "a::{b, c::{d, self}}", &mut named);
        let want: Vec<Module> = [vec!["a", "b"], vec!["a", "c", "d"], vec!["a", "c"]]
            .iter()
            .map(|v| v.iter().map(|s| s.to_string()).collect())
            .collect();
        assert_eq!(named, want);
        let m = |s: &str| -> Module { vec![s.to_string()] };
        let mut edges = BTreeMap::new();
        edges.insert(m("a"), BTreeSet::from([m("b")]));
        edges.insert(m("b"), BTreeSet::from([m("c")]));
        edges.insert(m("c"), BTreeSet::from([m("a")]));
        edges.insert(m("d"), BTreeSet::from([m("a")]));
        assert_eq!(loops(&edges), vec![vec![m("a"), m("b"), m("c")]]);
        let p = paths("use crate::x::{y, z};\nfn f() { super::w::v(); }");
        assert_eq!(p[0], ("crate::", "x::{y, z}".to_string()));
        assert_eq!(p[1], ("super::", "w::v".to_string()));
    }
}
