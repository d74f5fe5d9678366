//! Shell text → simple commands, with `brush-parser` (a POSIX/bash parser) doing the parsing.
//!
//! The walker flattens every pipeline, `&&`/`||` list, subshell, brace group, `if`/`for`/
//! `while`/`case` body and function body into [`SimpleCmd`]s, each with its unquoted words, its
//! output redirects and the here-doc (or here-string) fed to it. A `cd DIR` in a sequence sets
//! the directory of the commands after it (subshells keep their own). Command substitutions
//! (`$(…)`, backticks) are not descended into.
//!
//! Fallback: when brush cannot parse the text (unbalanced quotes in a truncated command,
//! exotic syntax) — or the text is larger than [`MAX_PARSE_BYTES`] or nests deeper than
//! [`MAX_NESTING`] — a small documented
//! tokenizer is used instead: here-doc bodies are stripped textually
//! ([`super::words::strip_heredocs`]), the rest is split into commands at unquoted `;`, `&`,
//! `&&`, `||`, `|` and newlines, words are split at unquoted blanks, and `>`, `>>`, `&>`,
//! `N>`, `>|` take the next word (or the attached rest) as target. Results carry
//! `fallback: true` so callers can be stricter with bare tokens.

use brush_parser::ast;

use super::words::{strip_heredocs, unquote};

/// Texts above this size are not given to the parser (bounded work per command).
pub const MAX_PARSE_BYTES: usize = 256 * 1024;

/// An output redirection to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The target as written, unquoted.
    pub target: String,
    /// `>>` / `&>>`.
    pub append: bool,
}

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCmd {
    /// Unquoted words, command name first (assignments are dropped).
    pub argv: Vec<String>,
    /// Output redirections to files (`/dev/*` and fd duplications excluded).
    pub redirects: Vec<Redirect>,
    /// The here-doc body or here-string fed to stdin, if any.
    pub stdin_doc: Option<String>,
    /// Directory set by a preceding `cd` in the same list (as written, maybe relative).
    pub dir: Option<String>,
}

/// The simple commands of a text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Commands in source order.
    pub cmds: Vec<SimpleCmd>,
    /// True when the fallback tokenizer was used.
    pub fallback: bool,
}

/// Parses shell `text` into simple commands (never panics; falls back on failure).
pub fn parse(text: &str) -> Parsed {
    if text.len() <= MAX_PARSE_BYTES && nesting_depth(text) <= MAX_NESTING && !hurts_brush(text) {
        if let Some(cmds) = parse_brush(text) {
            return Parsed {
                cmds,
                fallback: false,
            };
        }
    }
    Parsed {
        cmds: fallback(text),
        fallback: true,
    }
}

/// Shapes that make brush-parser 0.4 panic, allocate without bound or backtrack
/// exponentially (found by fuzzing; see fuzz/README.md): a redirect fd of ten or more digits
/// (its integer parse unwraps), many here-doc operators (unbounded end-tag buffering), runs of
/// `(` (arithmetic backtracking), and NUL bytes. Such text goes to the fallback tokenizer.
fn hurts_brush(text: &str) -> bool {
    let b = text.as_bytes();
    let mut digits = 0usize;
    let mut parens = 0usize;
    for &c in b {
        if (c == b'<' || c == b'>') && digits >= 10 {
            return true;
        }
        digits = if c.is_ascii_digit() { digits + 1 } else { 0 };
        parens = if c == b'(' { parens + 1 } else { 0 };
        if parens >= 4 || c == 0 {
            return true;
        }
    }
    text.matches("<<").count() > 16 || text.matches("((").count() > 8 || odd_heredoc(text)
}

/// A `<<` whose delimiter does not start like a word (letter, digit, `_`, quote, backslash)
/// or a here-string `<<<`: no real command writes that, and brush buffers it without bound.
/// Also a delimiter that is nothing but quotes and backslashes (an empty end tag after quote
/// removal, e.g. `<<-''''…`): brush's end-tag removal then allocates gigabytes (fuzz-found).
fn odd_heredoc(text: &str) -> bool {
    text.match_indices("<<").any(|(i, _)| {
        let rest = text[i + 2..]
            .trim_start_matches('-')
            .trim_start_matches([' ', '\t']);
        let tag = rest
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>'))
            .next()
            .unwrap_or("");
        let empty_tag = !tag.is_empty() && tag.chars().all(|c| matches!(c, '\'' | '"' | '\\'));
        empty_tag
            || match rest.chars().next() {
                None => false,
                Some(c) => !(c.is_alphanumeric() || matches!(c, '_' | '\'' | '"' | '\\' | '<')),
            }
    })
}

/// Deeper nesting than this goes to the fallback tokenizer: the parser recurses per level and
/// a few thousand nested `$(` overflow a thread's stack (an abort no `catch_unwind` can stop).
pub const MAX_NESTING: usize = 48;

/// An upper bound of the text's nesting: brackets and parentheses (quoted or not) plus the
/// compound-command keywords, counted as words.
fn nesting_depth(text: &str) -> usize {
    let mut depth: usize = 0;
    let mut max = 0;
    let mut word = String::new();
    let close_word = |w: &mut String, depth: &mut usize| {
        match w.as_str() {
            "if" | "case" | "for" | "while" | "until" | "select" => *depth += 1,
            "fi" | "esac" | "done" => *depth = depth.saturating_sub(1),
            _ => {}
        }
        w.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphabetic() {
            word.push(c);
            continue;
        }
        close_word(&mut word, &mut depth);
        match c {
            '(' | '{' | '[' | '`' => depth += 1,
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        max = max.max(depth);
    }
    close_word(&mut word, &mut depth);
    max.max(depth)
}

fn parse_brush(text: &str) -> Option<Vec<SimpleCmd>> {
    let owned = text.to_string();
    // The parser is third-party code fed with arbitrary agent input: a panic inside it must
    // degrade to the fallback tokenizer, not take the caller down.
    let result = std::panic::catch_unwind(move || {
        let opts = brush_parser::ParserOptions::default();
        let mut parser = brush_parser::Parser::new(std::io::Cursor::new(owned), &opts);
        parser.parse_program().ok()
    });
    let program = result.ok().flatten()?;
    let mut w = Walker::default();
    let mut dir = None;
    for cc in &program.complete_commands {
        w.list(cc, &mut dir);
    }
    Some(w.out)
}

#[derive(Default)]
struct Walker {
    out: Vec<SimpleCmd>,
}

impl Walker {
    fn list(&mut self, list: &ast::CompoundList, dir: &mut Option<String>) {
        for item in &list.0 {
            self.and_or(&item.0, dir);
        }
    }

    fn and_or(&mut self, l: &ast::AndOrList, dir: &mut Option<String>) {
        self.pipeline(&l.first, dir);
        for next in &l.additional {
            match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p, dir),
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline, dir: &mut Option<String>) {
        let single = p.seq.len() == 1;
        for c in &p.seq {
            if single {
                self.command(c, dir);
            } else {
                // Each pipeline stage runs in its own subshell: a `cd` there does not leak.
                let mut local = dir.clone();
                self.command(c, &mut local);
            }
        }
    }

    fn command(&mut self, c: &ast::Command, dir: &mut Option<String>) {
        match c {
            ast::Command::Simple(s) => self.simple(s, dir),
            ast::Command::Compound(cc, redirects) => {
                let before = self.out.len();
                self.compound(cc, dir);
                if let Some(r) = redirects {
                    // `{ a; b; } > f` / `for …; done > f`: the group's output goes to f;
                    // attach the redirect once, to the group's first command.
                    let (reds, doc) = redirects_of(&r.0);
                    if let Some(first) = self.out.get_mut(before) {
                        first.redirects.extend(reds);
                        if first.stdin_doc.is_none() {
                            first.stdin_doc = doc;
                        }
                    }
                }
            }
            ast::Command::Function(f) => {
                let mut local = dir.clone();
                self.compound(&f.body.0, &mut local);
            }
            ast::Command::ExtendedTest(..) => {}
        }
    }

    fn compound(&mut self, c: &ast::CompoundCommand, dir: &mut Option<String>) {
        match c {
            ast::CompoundCommand::BraceGroup(b) => self.list(&b.list, dir),
            ast::CompoundCommand::Subshell(s) => {
                let mut local = dir.clone();
                self.list(&s.list, &mut local);
            }
            ast::CompoundCommand::ForClause(f) => self.list(&f.body.list, dir),
            ast::CompoundCommand::ArithmeticForClause(f) => self.list(&f.body.list, dir),
            ast::CompoundCommand::CaseClause(cs) => {
                for item in &cs.cases {
                    if let Some(l) = &item.cmd {
                        self.list(l, dir);
                    }
                }
            }
            ast::CompoundCommand::IfClause(i) => {
                self.list(&i.condition, dir);
                self.list(&i.then, dir);
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.list(cond, dir);
                    }
                    self.list(&e.body, dir);
                }
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                self.list(&w.0, dir);
                self.list(&w.1.list, dir);
            }
            ast::CompoundCommand::Coprocess(c) => {
                let mut local = dir.clone();
                self.command(&c.body, &mut local);
            }
            ast::CompoundCommand::Arithmetic(_) => {}
        }
    }

    fn simple(&mut self, s: &ast::SimpleCommand, dir: &mut Option<String>) {
        let mut items: Vec<&ast::CommandPrefixOrSuffixItem> = Vec::new();
        if let Some(p) = &s.prefix {
            items.extend(p.0.iter());
        }
        let mut argv = Vec::new();
        if let Some(w) = &s.word_or_name {
            argv.push(unquote(&w.value));
        }
        if let Some(sf) = &s.suffix {
            items.extend(sf.0.iter());
        }
        let mut redirects_raw = Vec::new();
        for it in items {
            match it {
                ast::CommandPrefixOrSuffixItem::Word(w) => argv.push(unquote(&w.value)),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects_raw.push(r.clone()),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(..)
                | ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {}
            }
        }
        let (redirects, stdin_doc) = redirects_of(&redirects_raw);
        let cmd = SimpleCmd {
            argv,
            redirects,
            stdin_doc,
            dir: dir.clone(),
        };
        if cmd.argv.first().is_some_and(|a| a == "cd") {
            *dir = Some(join_dir(
                dir.as_deref(),
                cmd.argv.get(1).map(String::as_str),
            ));
        }
        self.out.push(cmd);
    }
}

/// `cd` semantics on a written directory: absolute replaces, relative appends, none = `~`.
fn join_dir(current: Option<&str>, arg: Option<&str>) -> String {
    match (current, arg) {
        (_, None) => "~".to_string(),
        (_, Some(a)) if a.starts_with('/') || a.starts_with('~') => a.to_string(),
        (Some(c), Some(a)) => format!("{}/{}", c.trim_end_matches('/'), a),
        (None, Some(a)) => a.to_string(),
    }
}

fn redirects_of(rs: &[ast::IoRedirect]) -> (Vec<Redirect>, Option<String>) {
    let mut out = Vec::new();
    let mut doc = None;
    for r in rs {
        match r {
            ast::IoRedirect::File(_, kind, ast::IoFileRedirectTarget::Filename(w)) => {
                let append = matches!(kind, ast::IoFileRedirectKind::Append);
                let writes = matches!(
                    kind,
                    ast::IoFileRedirectKind::Write
                        | ast::IoFileRedirectKind::Append
                        | ast::IoFileRedirectKind::Clobber
                        | ast::IoFileRedirectKind::ReadAndWrite
                );
                if writes {
                    push_target(&mut out, &w.value, append);
                }
            }
            ast::IoRedirect::OutputAndError(w, append) => push_target(&mut out, &w.value, *append),
            ast::IoRedirect::HereDocument(_, h) => doc = Some(h.doc.value.clone()),
            ast::IoRedirect::HereString(_, w) => doc = Some(unquote(&w.value)),
            ast::IoRedirect::File(..) => {}
        }
    }
    (out, doc)
}

fn push_target(out: &mut Vec<Redirect>, raw: &str, append: bool) {
    let target = unquote(raw);
    if is_real_target(&target) {
        out.push(Redirect { target, append });
    }
}

/// Redirect targets that are not files: `/dev/*`, fd duplications, empty words.
fn is_real_target(t: &str) -> bool {
    !(t.is_empty()
        || t.starts_with("/dev/")
        || t.starts_with('&')
        || t.chars().all(|c| c.is_ascii_digit() || c == '-'))
}

/// The documented fallback tokenizer (see the module doc).
fn fallback(text: &str) -> Vec<SimpleCmd> {
    let (stripped, docs) = strip_heredocs(text);
    let mut docs = docs.into_iter();
    let mut cmds = Vec::new();
    let mut dir: Option<String> = None;
    for seg in split_commands(&stripped) {
        let mut cmd = SimpleCmd {
            dir: dir.clone(),
            ..SimpleCmd::default()
        };
        let words = split_words(&seg);
        let mut i = 0;
        while let Some(w) = words.get(i) {
            i += 1;
            if let Some(rest) = heredoc_op(w) {
                if rest.is_empty() {
                    i += 1;
                }
                cmd.stdin_doc = docs.next().map(|d| d.body);
                continue;
            }
            if let Some((append, rest)) = redirect_op(w) {
                let target = if rest.is_empty() {
                    i += 1;
                    words.get(i - 1).cloned().unwrap_or_default()
                } else {
                    rest.to_string()
                };
                push_target(&mut cmd.redirects, &target, append);
                continue;
            }
            if cmd.argv.is_empty() && is_assignment(w) {
                continue;
            }
            cmd.argv.push(unquote(w));
        }
        if cmd.argv.first().is_some_and(|a| a == "cd") {
            dir = Some(join_dir(
                dir.as_deref(),
                cmd.argv.get(1).map(String::as_str),
            ));
        }
        if !cmd.argv.is_empty() || !cmd.redirects.is_empty() {
            cmds.push(cmd);
        }
    }
    cmds
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(n, _)| {
        !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn heredoc_op(w: &str) -> Option<&str> {
    if w.starts_with("<<<") {
        return None;
    }
    w.strip_prefix("<<-").or_else(|| w.strip_prefix("<<"))
}

fn redirect_op(w: &str) -> Option<(bool, &str)> {
    let w = w.trim_start_matches(|c: char| c.is_ascii_digit());
    let w = w.strip_prefix('&').unwrap_or(w);
    if let Some(r) = w.strip_prefix(">>") {
        return Some((true, r));
    }
    if let Some(r) = w.strip_prefix(">|") {
        return Some((false, r));
    }
    w.strip_prefix('>').map(|r| (false, r))
}

/// Splits at unquoted `;`, `&`, `|`, newlines (`&&`, `||` included).
fn split_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == '\\' && q == '"' {
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '\\' => {
                    cur.push(c);
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                }
                '&' if cur.ends_with('>') || chars.peek() == Some(&'>') => cur.push(c),
                ';' | '&' | '|' | '\n' => {
                    if c == '|' && cur.ends_with('>') {
                        cur.push(c);
                        continue;
                    }
                    out.push(std::mem::take(&mut cur));
                }
                _ => cur.push(c),
            },
        }
    }
    out.push(cur);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// Splits at unquoted blanks, keeping quotes in the words (unquoted later).
fn split_words(seg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut chars = seg.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == '\\' && q == '"' {
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '\\' => {
                    cur.push(c);
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                }
                c if c.is_whitespace() => {
                    if !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                }
                _ => cur.push(c),
            },
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv0(p: &Parsed) -> Vec<&str> {
        p.cmds
            .iter()
            .filter_map(|c| c.argv.first().map(String::as_str))
            .collect()
    }

    #[test]
    fn lists_pipelines_and_redirects() {
        let p = parse("cd x && make > build.log 2>&1 | tee -a out.txt; echo hi >/dev/null");
        assert!(!p.fallback);
        assert_eq!(argv0(&p), vec!["cd", "make", "tee", "echo"]);
        let make = &p.cmds[1];
        assert_eq!(make.dir.as_deref(), Some("x"));
        assert_eq!(
            make.redirects,
            vec![Redirect {
                target: "build.log".into(),
                append: false
            }]
        );
        assert!(p.cmds[3].redirects.is_empty());
    }

    #[test]
    fn heredoc_body_is_data_not_commands() {
        let p =
            parse("cat > a.ts <<'EOF'\nconst f = (a, b) => b[1].length;\nssh root@h 'x'\nEOF\n");
        assert!(!p.fallback);
        assert_eq!(argv0(&p), vec!["cat"]);
        assert_eq!(p.cmds[0].redirects[0].target, "a.ts");
        assert!(p.cmds[0]
            .stdin_doc
            .as_deref()
            .is_some_and(|d| d.contains("ssh root@h")));
    }

    #[test]
    fn compound_commands_are_walked() {
        let p = parse("for f in a b; do echo $f >> list.txt; done; if true; then (cd sub; touch z.md); fi; { echo a; } > grp.txt");
        assert_eq!(argv0(&p), vec!["echo", "true", "cd", "touch", "echo"]);
        assert_eq!(p.cmds[0].redirects[0].target, "list.txt");
        assert!(p.cmds[0].redirects[0].append);
        assert_eq!(p.cmds[3].dir.as_deref(), Some("sub"));
        assert_eq!(p.cmds[4].redirects[0].target, "grp.txt");
    }

    #[test]
    fn fuzz_found_inputs_never_reach_brush() {
        // Each of these made brush-parser 0.4 panic, exhaust memory or hang (fuzz/README.md).
        let start = std::time::Instant::now();
        for input in [
            "9999999999>".to_string(),
            "echo 2147483648>x".to_string(),
            "l l<<\u{c}<<@<9|<<><<<a ".to_string(),
            "((((tto(\0\0((((((((((t((tto(\0\0((((((((((t\0\0\0\0\u{1}\0\0".to_string(),
            {
                let q = |n: usize| "'".repeat(n);
                format!("pri{}n{}nodeVT}}/scri{}<<-{} ", q(19), q(3), q(24), q(26))
            },
        ] {
            let p = parse(&input);
            assert!(p.fallback, "{input:?}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn fallback_on_unbalanced_quote() {
        let p = parse("echo 'unterminated > x.txt; cat a > b.txt");
        assert!(p.fallback);
        // The quote swallows the rest: no write is invented.
        assert!(p.cmds.iter().all(|c| c.redirects.is_empty()));
        let q = parse("if then fi ( > out.txt");
        assert!(q.fallback);
        assert_eq!(q.cmds.iter().flat_map(|c| &c.redirects).count(), 1);
    }
}
