//! The stages of `src/` stay layered: a module imports only modules of its own stage or of
//! a lower one, and files import each other without circles. Counted over the `crate::`
//! and `super::` paths of every non-test file of `src/` (`use` lines and inline paths);
//! `cargo test --test integration layers -- --nocapture` prints the counts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The stages of `src/`, lowest first: each may import only those before it. The one place
/// the order is written.
const STAGES: &[&str] = &[
    "source",     // text, positions, locations, object identities
    "text",       // terminal-safe escaping, excerpts
    "panic",      // panic guards
    "read",       // reading files without blocking
    "walk",       // paths to lint, path display
    "diagnostic", // findings
    "settings",   // the kit settings files are read with
    "yaml",       // the parser and its tree
    "profile",    // the cluster profile
    "objects",    // documents to Kubernetes objects
    "catalog",    // rule metadata, the loader's findings, lookup by id or name
    "render",     // --render: kustomizations and charts rendered by the user's tools
    "views",      // typed views of objects: the one reader of raw YAML after loading
    "load",       // files loaded into a workspace, loader findings
    "model",      // entry points, callers, views
    "rules",      // the rule engine: the rules and their registry
    "suppress",   // suppression comments, annotations and config entries
    "config",     // lblint.yaml
    "filter",     // selection and suppression applied
    "relocate",   // --render: findings moved back to base files and templates
    "check",      // the driver
    "fix",        // --fix: edits applied, files re-linted
    "report",     // output formats
    "server",     // the language server
    "cli",        // commands and flags
    "lib",
    "main",
];

/// Imports from a stage to a higher one that are allowed for now; each names why.
const ALLOWED_UPWARD: &[(&str, &str)] = &[];

#[test]
fn lower_stages_never_import_higher_ones() {
    let graph = Graph::of(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").as_path());
    let rank = |file: &str| {
        let stage = stage_of(file);
        STAGES.iter().position(|s| *s == stage).unwrap_or_else(|| {
            panic!("{file}: stage `{stage}` is not in STAGES (tests/integration/layers.rs)")
        })
    };
    let mut upward = Vec::new();
    for (from, targets) in &graph.edges {
        for to in targets {
            if rank(to) > rank(from) && !ALLOWED_UPWARD.contains(&(from.as_str(), to.as_str())) {
                upward.push(format!("{from} -> {to}"));
            }
        }
    }
    let circles = graph.circles();
    println!(
        "{} files, {} imports, {} upward, {} circles: {circles:?}",
        graph.edges.len(),
        graph.edges.values().map(BTreeSet::len).sum::<usize>(),
        upward.len(),
        circles.len()
    );
    assert!(
        upward.is_empty(),
        "a lower stage imports a higher one (move the item down, or pass it in):\n{}",
        upward.join("\n")
    );
    // No circle is allowed (the last one, ACK's and CCE's share of the local-policy family,
    // went with the rule families).
    assert!(
        circles.is_empty(),
        "files import each other in a circle: {circles:?}"
    );
}

/// Where the model and the rules may still name a key of something that is not YAML, with
/// why: (file, the exact call).
const RAW_READS_ALLOWED: &[(&str, &str)] = &[
    // LKE's annotation holds JSON (a serde_json value), not YAML.
    (
        "rules/family/proxy_protocol/lke.rs",
        ".get(\"proxy-protocol\")",
    ),
];

#[test]
fn the_model_and_the_rules_read_yaml_only_through_views() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, text) in source_files(&src, &[src.join("model"), src.join("rules")]) {
        let code = without_tests(&without_comments(&text));
        for read in raw_reads(&code) {
            if !RAW_READS_ALLOWED.contains(&(rel.as_str(), read.as_str())) {
                found.push(format!("{rel}: {read}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "string-path reads of raw YAML outside src/views (add a field or accessor to a view):\n{}",
        found.join("\n")
    );
}

/// No stage re-exports another stage's items (`pub use crate::views::…` in `model/`): a
/// second path to a type hides which stage a file really depends on, so the import test
/// would count the wrong edge. Each type has one path; a facade `mod.rs` may re-export its
/// own children.
#[test]
fn no_stage_re_exports_another_stages_items() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, text) in source_files(&src, std::slice::from_ref(&src)) {
        let code = without_tests(&without_comments(&text));
        for line in code.lines().map(str::trim_start) {
            let Some(rest) = line
                .strip_prefix("pub use crate::")
                .or_else(|| line.strip_prefix("pub(crate) use crate::"))
            else {
                continue;
            };
            let target = rest
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .next();
            if target.is_some_and(|t| t != stage_of(&rel)) {
                found.push(format!("{rel}: {line}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "re-exports of another stage's items (import them from where they live):\n{}",
        found.join("\n")
    );
}

/// Calls that read a YAML node by key: `.get("…")`, `.get_entry(…)`, `.path(&[…])`,
/// `.spec(…)`, `.metadata(…)`.
fn raw_reads(code: &str) -> Vec<String> {
    let mut reads = Vec::new();
    for call in [".get(\"", ".get_entry(", ".path(&[", ".spec(", ".metadata("] {
        for (at, _) in code.match_indices(call) {
            let end = code[at..].find(')').map_or(code.len(), |e| at + e + 1);
            reads.push(code[at..end].to_string());
        }
    }
    reads
}

#[test]
fn raw_reads_are_found() {
    let code =
        "let a = spec.get(\"x\"); let b = n.path(&[\"a\", \"b\"]); ws.spec(o); m.get_entry(k);";
    assert_eq!(
        raw_reads(code),
        [
            ".get(\"x\")",
            ".get_entry(k)",
            ".path(&[\"a\", \"b\"])",
            ".spec(o)"
        ]
    );
}

#[test]
fn the_import_parser_reads_groups_inline_paths_and_skips_tests() {
    let files = BTreeMap::from([
        ("a.rs".to_string(), String::new()),
        ("b/mod.rs".to_string(), String::new()),
        ("b/c.rs".to_string(), String::new()),
        ("d.rs".to_string(), String::new()),
        (
            "e.rs".to_string(),
            "use crate::{a, b::{c::X, Y}};\nfn f() { crate::d::g() }\n// crate::z\n\
             #[cfg(test)]\nmod tests { use crate::zz; fn t() { crate::yy::f() } }\n"
                .to_string(),
        ),
        ("b/f.rs".to_string(), "use super::c;\n".to_string()),
    ]);
    let graph = Graph::from_files(&files);
    assert_eq!(
        graph.edges["e.rs"],
        BTreeSet::from(["a.rs", "b/c.rs", "b/mod.rs", "d.rs"].map(String::from))
    );
    assert_eq!(
        graph.edges["b/f.rs"],
        BTreeSet::from(["b/c.rs".to_string()])
    );
}

/// The top-level module a file belongs to (`lib` and `main` for the crate roots).
fn stage_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// Files of `src/` and the files each imports.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let files = source_files(src, &[src.to_path_buf()]);
        Graph::from_files(&files)
    }

    fn from_files(files: &BTreeMap<String, String>) -> Graph {
        let modules: BTreeMap<Vec<String>, String> = files
            .keys()
            .map(|file| (module_path(file), file.clone()))
            .collect();
        let resolve = |path: &[String]| {
            (1..=path.len())
                .rev()
                .find_map(|n| modules.get(&path[..n]).cloned())
        };
        let mut edges = BTreeMap::new();
        for (file, text) in files {
            let code = without_tests(&without_comments(text));
            let own = module_path(file);
            let parent = own[..own.len().saturating_sub(1)].to_vec();
            let mut targets = BTreeSet::new();
            for (keyword, base) in [("crate::", Vec::new()), ("super::", parent)] {
                for at in word_starts(&code, keyword) {
                    let mut paths = Vec::new();
                    expand(&code, at + keyword.len(), base.clone(), &mut paths);
                    targets.extend(
                        paths
                            .iter()
                            .filter_map(|p| resolve(p))
                            .filter(|t| t != file),
                    );
                }
            }
            edges.insert(file.clone(), targets);
        }
        Graph { edges }
    }

    /// Groups of two or more files that import each other, directly or not (Tarjan).
    fn circles(&self) -> Vec<Vec<String>> {
        struct Walk<'g> {
            graph: &'g Graph,
            index: BTreeMap<&'g str, usize>,
            low: BTreeMap<&'g str, usize>,
            stack: Vec<&'g str>,
            found: Vec<Vec<String>>,
        }
        impl<'g> Walk<'g> {
            fn visit(&mut self, v: &'g str) {
                let n = self.index.len();
                self.index.insert(v, n);
                self.low.insert(v, n);
                self.stack.push(v);
                for w in self.graph.edges.get(v).into_iter().flatten() {
                    let w = w.as_str();
                    if !self.index.contains_key(w) {
                        self.visit(w);
                        let low = self.low[v].min(self.low[w]);
                        self.low.insert(v, low);
                    } else if self.stack.contains(&w) {
                        let low = self.low[v].min(self.index[w]);
                        self.low.insert(v, low);
                    }
                }
                if self.low[v] == self.index[v] {
                    let at = self.stack.iter().rposition(|x| *x == v).unwrap();
                    let group: Vec<String> = self.stack.drain(at..).map(str::to_string).collect();
                    if group.len() > 1 {
                        self.found.push(group);
                    }
                }
            }
        }
        let mut walk = Walk {
            graph: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            found: Vec::new(),
        };
        for file in self.edges.keys() {
            if !walk.index.contains_key(file.as_str()) {
                walk.visit(file);
            }
        }
        walk.found
    }
}

/// The non-test `.rs` files under `dirs`, by path relative to `src` (`/`-separated).
fn source_files(src: &Path, dirs: &[std::path::PathBuf]) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut stack = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.ends_with(".rs") && !is_test_file(&rel) {
                files.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    files
}

fn is_test_file(rel: &str) -> bool {
    rel.ends_with("_tests.rs")
        || rel == "tests.rs"
        || rel.ends_with("/tests.rs")
        || rel.starts_with("tests/")
        || rel.contains("/tests/")
}

/// `model/callers.rs` → `[model, callers]`; `mod.rs`, `lib.rs` and `main.rs` name their folder.
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) && parts.len() > 1
    {
        parts.pop();
    }
    parts
}

/// Line comments removed (doc comments name paths that are not imports).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Items under `#[cfg(test)]` removed: a `mod … { … }`, a `fn` body, or a `…;` item.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let brace = item.find('{');
        let semicolon = item.find(';');
        let end = match (brace, semicolon) {
            (Some(b), Some(s)) if s < b => s + 1,
            (Some(b), _) => b + matching_brace(&item[b..]),
            (None, Some(s)) => s + 1,
            (None, None) => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Length up to and including the brace that closes the one `text` starts with.
fn matching_brace(text: &str) -> usize {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// Where `word` starts, not as the tail of a longer name.
fn word_starts(code: &str, word: &str) -> Vec<usize> {
    code.match_indices(word)
        .map(|(at, _)| at)
        .filter(|&at| {
            !code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
        .collect()
}

/// Reads the path after `crate::` or `super::` at `at`, expanding `{…}` groups; each full
/// path goes to `out` (prefixed by `base`). Returns where reading stopped.
fn expand(
    code: &str,
    mut at: usize,
    mut segments: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let bytes = code.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    loop {
        at = skip_space(at);
        if at < bytes.len() && bytes[at] == b'{' {
            at += 1;
            loop {
                at = skip_space(at);
                if at < bytes.len() && bytes[at] == b'}' {
                    return at + 1;
                }
                at = expand(code, at, segments.clone(), out);
                at = skip_space(at);
                match bytes.get(at) {
                    Some(b',') => at += 1,
                    Some(b'}') => return at + 1,
                    _ => return at,
                }
            }
        }
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        if at == start {
            break;
        }
        segments.push(code[start..at].to_string());
        if code[at..].starts_with("::") {
            at += 2;
        } else {
            break;
        }
    }
    out.push(segments);
    at
}
