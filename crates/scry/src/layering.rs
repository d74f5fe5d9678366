//! Imports point one way (issue 18): a test that reads the sources of this crate and of
//! scry-query, builds the graph "module A names an item through module B" (each file one
//! module; `use` trees and `crate::` / `super::` / `self::` / child-module paths, re-exports
//! followed to the module that defines the name, comments, strings and `mod tests` left out)
//! and lists its strongly connected components. crates/scry must have none; scry-query's may
//! only lie inside the circles named in [`QUERY_CIRCLES`] (none left).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The import circles scry-query may still have: none. (Until session 34 the catalog /
/// archive / index / usage core was one — the catalog fell back to the archive and added
/// Aider's cwds, the index priced parsed rows with `usage::Cost` — and `list` ↔ `list_sql`
/// another; discovery and resolution moved to `discover.rs` above the catalog, the parse
/// fallback of the list's ledger into `indexed`, and the list's row to `session_row`.)
const QUERY_CIRCLES: &[&[&str]] = &[];

type Segs = Vec<String>;

/// A module's path inside its crate (`commands/mod.rs` → `commands`).
fn module_path(root: &Path, file: &Path) -> Segs {
    let rel = file
        .strip_prefix(root)
        .expect("under root")
        .with_extension("");
    let mut segs: Segs = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        segs.last().map(String::as_str),
        Some("main" | "lib" | "mod")
    ) {
        segs.pop();
    }
    segs
}

/// The code of a file without comments, string / char literals, `pub(in …)` paths and its
/// `#[cfg(test)] mod tests`.
fn code(src: &str) -> String {
    let src = match src.find("#[cfg(test)]\nmod tests") {
        Some(i) => &src[..i],
        None => src,
    };
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(raw) = rest.strip_prefix("r#\"") {
            i += raw.find("\"#").map_or(rest.len(), |e| e + 5);
            out.push_str("\"\"");
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && b[i + j] != b'"' {
                j += if b[i + j] == b'\\' { 2 } else { 1 };
            }
            i += j + 1;
            out.push_str("\"\"");
        } else if let Some(escaped) = rest.strip_prefix("'\\") {
            i += escaped.find('\'').map_or(rest.len(), |e| e + 3);
        } else if rest.len() >= 3 && b[i] == b'\'' && rest[1..].chars().nth(1) == Some('\'') {
            i += 1 + rest[1..].chars().next().map_or(1, char::len_utf8) + 1;
        } else if rest.starts_with("pub(in ") {
            i += rest.find(')').map_or(rest.len(), |e| e + 1);
            out.push_str("pub");
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a `use` tree names (`a::{b, c::*}` → `a::b`, `a::c::*`).
fn use_paths(tree: &str) -> Vec<Segs> {
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = tree.chars().peekable();
    while let Some(c) = chars.next() {
        if is_ident(c) {
            let mut t = c.to_string();
            while let Some(&n) = chars.peek().filter(|n| is_ident(**n)) {
                t.push(n);
                chars.next();
            }
            tokens.push(t);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            tokens.push("::".into());
        } else if "{},*".contains(c) {
            tokens.push(c.to_string());
        }
    }
    let mut out = Vec::new();
    walk(&tokens, 0, Vec::new(), &mut out);
    out
}

fn walk(t: &[String], mut i: usize, mut prefix: Segs, out: &mut Vec<Segs>) -> usize {
    while i < t.len() {
        if t[i] == "{" {
            i += 1;
            while i < t.len() && t[i] != "}" {
                i = walk(t, i, prefix.clone(), out);
                if t.get(i).map(String::as_str) == Some(",") {
                    i += 1;
                }
            }
            return i + 1;
        }
        if t[i] == "::" {
            i += 1;
            continue;
        }
        prefix.push(t[i].clone());
        i += 1;
        match t.get(i).map(String::as_str) {
            Some("::") => i += 1,
            Some("as") => {
                out.push(prefix);
                return i + 2;
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
    }
    i
}

/// The `use` statements of `code` (their trees) and the code without them.
fn uses(code: &str) -> (Vec<(bool, String)>, String) {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some(off) = code[at..].find("use ") {
        let start = at + off;
        let before = code[..start].chars().next_back();
        let end = code[start..].find(';').map_or(code.len(), |e| start + e);
        if before.is_some_and(is_ident) {
            rest.push_str(&code[at..start + 4]);
            at = start + 4;
            continue;
        }
        let before = code[..start].trim_end();
        let public = ["pub", "pub(crate)", "pub(super)"]
            .iter()
            .any(|p| before.ends_with(p));
        found.push((public, code[start + 4..end].to_string()));
        rest.push_str(&code[at..start]);
        at = (end + 1).min(code.len());
    }
    rest.push_str(&code[at..]);
    (found, rest)
}

/// Paths written in code: `a::b::c` not preceded by `::` or an identifier.
fn inline_paths(code: &str) -> Vec<Segs> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if is_ident(b[i]) && (i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == ':')) {
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let s = j;
                while j < b.len() && is_ident(b[j]) {
                    j += 1;
                }
                segs.push(b[s..j].iter().collect::<String>());
                if j + 2 < b.len() && b[j] == ':' && b[j + 1] == ':' && is_ident(b[j + 2]) {
                    j += 2;
                } else {
                    break;
                }
            }
            if segs.len() > 1 {
                out.push(segs);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

struct Crate {
    root: PathBuf,
    modules: BTreeMap<Segs, PathBuf>,
    /// Per module: the names its `use`s bring in, and the path each names.
    names: HashMap<Segs, HashMap<String, Segs>>,
    code: HashMap<PathBuf, String>,
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("source dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

impl Crate {
    fn read(root: &Path) -> Crate {
        let mut all = Vec::new();
        files(root, &mut all);
        let mut c = Crate {
            root: root.to_path_buf(),
            modules: BTreeMap::new(),
            names: HashMap::new(),
            code: HashMap::new(),
        };
        for f in all {
            let m = module_path(root, &f);
            let text = code(&std::fs::read_to_string(&f).expect("source"));
            let (trees, _) = uses(&text);
            let names = trees
                .iter()
                .flat_map(|(_, t)| use_paths(t))
                .filter_map(|p| Some((p.last()?.clone(), p)))
                .collect();
            c.names.insert(m.clone(), names);
            c.modules.insert(m, f.clone());
            c.code.insert(f, text);
        }
        c
    }

    /// `p` as a path from the crate root, read in module `me`; `None` for other crates.
    fn absolute(&self, me: &[String], p: &[String]) -> Option<Segs> {
        let mut base: Segs = me.to_vec();
        let mut rest = p;
        match p.first().map(String::as_str) {
            Some("crate") => return Some(p[1..].to_vec()),
            Some("super" | "self") => {
                while let Some(first) = rest.first() {
                    match first.as_str() {
                        "super" => {
                            base.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let mut child = me.to_vec();
                child.push(first.to_string());
                if !self.modules.contains_key(&child) {
                    return None;
                }
            }
            None => return None,
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file of the module that defines what `p` names (re-exports followed).
    fn resolve(&self, me: &[String], p: &[String], depth: usize) -> Option<&PathBuf> {
        let full = self.absolute(me, p)?;
        for k in (0..=full.len()).rev() {
            let Some(file) = self.modules.get(&full[..k]) else {
                continue;
            };
            if let Some(target) = full.get(k).and_then(|n| self.names[&full[..k]].get(n)) {
                if depth < 10 {
                    let mut next = target.clone();
                    next.extend(full[k + 1..].iter().cloned());
                    self.absolute(&full[..k], &next)?;
                    if let Some(f) = self.resolve(&full[..k], &next, depth + 1) {
                        return Some(f);
                    }
                }
            }
            return Some(file);
        }
        None
    }

    /// File → the files it imports from.
    fn graph(&self) -> BTreeMap<&PathBuf, BTreeSet<&PathBuf>> {
        let mut g = BTreeMap::new();
        for (m, f) in &self.modules {
            let (trees, rest) = uses(&self.code[f]);
            let mut paths: Vec<Segs> = trees
                .iter()
                .filter(|(public, _)| !public)
                .flat_map(|(_, t)| use_paths(t))
                .collect();
            paths.extend(inline_paths(&rest));
            let to: BTreeSet<&PathBuf> = paths
                .iter()
                .filter_map(|p| self.resolve(m, p, 0))
                .filter(|t| *t != f)
                .collect();
            g.insert(f, to);
        }
        g
    }

    /// The import circles: each strongly connected component of more than one file, as paths
    /// relative to the source root, sorted.
    fn circles(&self) -> Vec<Vec<String>> {
        let g = self.graph();
        let nodes: Vec<&PathBuf> = g.keys().copied().collect();
        let at: HashMap<&PathBuf, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let edges: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| g[n].iter().map(|t| at[t]).collect())
            .collect();
        let mut t = Tarjan {
            edges: &edges,
            index: vec![None; nodes.len()],
            low: vec![0; nodes.len()],
            stack: Vec::new(),
            on: vec![false; nodes.len()],
            next: 0,
            found: Vec::new(),
        };
        for v in 0..nodes.len() {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        let mut out: Vec<Vec<String>> = t
            .found
            .into_iter()
            .map(|c| {
                let mut names: Vec<String> = c
                    .into_iter()
                    .map(|v| {
                        let rel = nodes[v].strip_prefix(&self.root).expect("under root");
                        rel.to_string_lossy().replace('\\', "/")
                    })
                    .collect();
                names.sort();
                names
            })
            .collect();
        out.sort();
        out
    }
}

struct Tarjan<'a> {
    edges: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on: Vec<bool>,
    next: usize,
    found: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on[v] = true;
        for &w in &self.edges[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(i) if self.on[w] => self.low[v] = self.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                self.found.push(comp);
            }
        }
    }
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn use_trees_expand() {
    assert_eq!(
        use_paths("crate::{a, b::{C, d as e}, f::*}"),
        vec![
            vec!["crate", "a"],
            vec!["crate", "b", "C"],
            vec!["crate", "b", "d"],
            vec!["crate", "f", "*"],
        ]
    );
    assert_eq!(code("a // b\n\"x::y\" '\"' c"), "a \n\"\"  c");
}

/// The checker sees a circle where there is one (two files naming each other).
#[test]
fn circles_are_found() {
    let dir = std::env::temp_dir().join(format!("scry-layering-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("m")).expect("temp dir");
    std::fs::write(dir.join("main.rs"), "mod m;\nmod n;\nuse crate::m::X;\n").expect("write");
    std::fs::write(
        dir.join("m/mod.rs"),
        "pub struct X;\nfn f() { super::n::g() }\n",
    )
    .expect("write");
    std::fs::write(dir.join("n.rs"), "pub fn g() { let _ = crate::m::X; }\n").expect("write");
    let circles = Crate::read(&dir).circles();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        circles,
        vec![vec!["m/mod.rs".to_string(), "n.rs".to_string()]]
    );
}

#[test]
fn scry_imports_point_one_way() {
    let circles = Crate::read(&crate_src("scry")).circles();
    assert!(
        circles.is_empty(),
        "import circles in crates/scry: {circles:?}"
    );
}

#[test]
fn scry_query_has_no_new_import_circle() {
    let circles = Crate::read(&crate_src("scry-query")).circles();
    for c in &circles {
        assert!(
            QUERY_CIRCLES
                .iter()
                .any(|known| c.iter().all(|f| known.contains(&f.as_str()))),
            "a new import circle in scry-query: {c:?}"
        );
    }
}
