//! The docs' GDScript, run as tests: every ```gdscript block of `README.md`, the addon's README and
//! `docs/*.md` becomes a script in `tests/doc_snippets/scripts/` and a case of the generated suite
//! `tests/doc_snippets/test_doc_snippets.gd`, which `tests/snippet_context.gd` runs in the scene the docs
//! assume (a node with a `TerrainNode` child holding a small TerrainData and a `TerrainInstancer`).
//!
//! A block is a whole script (it says `extends`), a class body (top-level `func`, `var` with `@export`,
//! `const`, `signal`: given `extends Node3D`), or statements (run in a `run()` method that has the names
//! the docs use: `terrain`, `delta`, `brush`, `heights`, `generator`). A block right after a line
//! `<!-- snippet: parse -->` is only loaded (parsed and type-checked), not run: for steps that need the
//! editor, files the reader has, or minutes of work. A parse or script error, or any error line, fails it.

use std::path::Path;

/// One block: where it is, its code, and whether it runs.
#[derive(Debug, PartialEq)]
pub struct Snippet {
    pub file: String,
    pub line: usize,
    pub code: String,
    pub run: bool,
}

/// The marker that makes the next block parse-only.
const PARSE_ONLY: &str = "<!-- snippet: parse -->";

/// The gdscript blocks of one markdown text.
pub fn extract(file: &str, text: &str) -> Vec<Snippet> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("```gdscript") {
            let run = !(i > 0 && lines[i - 1].trim() == PARSE_ONLY);
            let start = i + 1;
            let mut j = start;
            while j < lines.len() && !lines[j].trim_start().starts_with("```") {
                j += 1;
            }
            out.push(Snippet {
                file: file.to_string(),
                line: i + 1,
                code: lines[start..j.min(lines.len())].join("\n"),
                run,
            });
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a block is a class body (or a whole script) rather than statements.
fn is_class_body(code: &str) -> bool {
    code.lines().any(|l| {
        [
            "func ",
            "const ",
            "signal ",
            "@export",
            "@onready",
            "extends ",
            "class_name ",
        ]
        .iter()
        .any(|k| l.starts_with(k))
    })
}

/// The script a block becomes (the docs' four-space indents become tabs, as GDScript in this repo).
pub fn script_of(s: &Snippet) -> String {
    let code: String = s
        .code
        .lines()
        .map(|l| {
            let spaces = l.len() - l.trim_start_matches(' ').len();
            format!("{}{}", "\t".repeat(spaces / 4), &l[spaces - spaces % 4..])
        })
        .collect::<Vec<_>>()
        .join("\n");
    let origin = format!(
        "# {}:{} (written by cargo xtask test from the docs)\n",
        s.file, s.line
    );
    if code.lines().any(|l| l.starts_with("extends ")) {
        return format!("{origin}{code}\n");
    }
    if is_class_body(&code) {
        return format!("extends Node3D\n{origin}\n{code}\n");
    }
    let body: String = code
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("\t{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "extends Node3D\n{origin}\n\
         @onready var terrain: TerrainNode = $TerrainNode\n\
         var delta := 1.0 / 60.0\n\
         var brush := TerrainBrush.new()\n\
         var heights := PackedFloat32Array()\n\
         var generator := TerrainGenerator.new()\n\n\n\
         func run() -> void:\n{body}\n\tpass\n"
    )
}

/// Every block of the docs, in file order.
pub fn all(repo: &Path) -> Result<Vec<Snippet>, String> {
    let mut files = vec![
        "README.md".to_string(),
        "addons/wandering_terrain/README.md".to_string(),
    ];
    let mut docs: Vec<String> = std::fs::read_dir(repo.join("docs"))
        .map_err(|e| format!("docs/: {e}"))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(repo.join(&f)).map_err(|e| format!("{f}: {e}"))?;
        out.extend(extract(&f, &text));
    }
    Ok(out)
}

/// Writes the scripts and the suite into `tests/doc_snippets/` (made anew each run); returns how many.
pub fn write_suite(repo: &Path) -> Result<usize, String> {
    let dir = repo.join("tests/doc_snippets");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scripts")).map_err(|e| e.to_string())?;
    let snippets = all(repo)?;
    let mut suite = String::from(
        "extends \"res://snippet_context.gd\"\n## Generated by cargo xtask test (rust/xtask/src/doc_snippets.rs): one case per GDScript block of the docs.\n",
    );
    for s in &snippets {
        let name = format!("{}_{}", s.file.replace(['/', '.', '-'], "_"), s.line);
        let path = format!("res://doc_snippets/scripts/{name}.gd");
        std::fs::write(dir.join(format!("scripts/{name}.gd")), script_of(s))
            .map_err(|e| e.to_string())?;
        suite.push_str(&format!(
            "\n\nfunc test_{name}() -> void:\n\tawait run_snippet(\"{path}\", \"{}:{}\", {})\n",
            s.file, s.line, s.run
        ));
    }
    std::fs::write(dir.join("test_doc_snippets.gd"), suite).map_err(|e| e.to_string())?;
    Ok(snippets.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_found_with_their_line_and_marker() {
        let md = "# T\n```gdscript\nvar a := 1\n```\ntext\n<!-- snippet: parse -->\n```gdscript\nfunc f():\n    pass\n```\n```python\nx\n```\n";
        let s = extract("docs/t.md", md);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].line, s[0].run, s[0].code.as_str()),
            (2, true, "var a := 1")
        );
        assert_eq!((s[1].line, s[1].run), (7, false));
        assert!(is_class_body(&s[1].code) && !is_class_body(&s[0].code));
    }

    #[test]
    fn statements_run_in_a_method_and_class_bodies_stay_at_class_level() {
        let st = Snippet {
            file: "f.md".into(),
            line: 3,
            code: "var x := 2\nif x:\n    print(x)".into(),
            run: true,
        };
        let g = script_of(&st);
        assert!(g.starts_with("extends Node3D\n# f.md:3"));
        assert!(g.contains("func run() -> void:\n\tvar x := 2\n\tif x:\n\t\tprint(x)\n"));
        let body = Snippet {
            code: "@export var t: TerrainNode\nfunc _ready():\n    pass".into(),
            ..st
        };
        let g = script_of(&body);
        assert!(g.contains("\n@export var t: TerrainNode\nfunc _ready():\n\tpass\n"));
        assert!(!g.contains("func run()"));
    }

    #[test]
    fn the_repository_docs_have_blocks() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let all = all(&repo).unwrap();
        assert!(all.len() >= 15, "{} blocks", all.len());
        assert!(all.iter().any(|s| s.file == "README.md"));
    }
}
