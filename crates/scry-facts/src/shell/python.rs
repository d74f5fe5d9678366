//! Files written by Python code run from the shell (`python -c …`, `python3 - <<EOF … EOF`):
//! `open('f', 'w'|'a'|'x'…)` and `Path('f').write_text(…)` / `.write_bytes(…)` with a literal
//! path. Paths held in variables are not guessed.

use std::sync::LazyLock;

use regex::Regex;

static OPEN_W: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"\bopen\(\s*[rRbBuU]?(?:'([^'\n]+)'|"([^"\n]+)")\s*,\s*(?:mode\s*=\s*)?[rRbB]?(?:'([^'\n]*)'|"([^"\n]*)")"#,
    )
    .ok()
});

static PATH_WRITE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"\bPath\(\s*[rR]?(?:'([^'\n]+)'|"([^"\n]+)")\s*\)\s*\.\s*write_(?:text|bytes)\s*\("#,
    )
    .ok()
});

/// A file a Python snippet writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyWrite {
    /// The literal path.
    pub path: String,
    /// Opened for append (`'a'`).
    pub append: bool,
}

/// Files `code` writes with a literal path.
pub fn python_writes(code: &str) -> Vec<PyWrite> {
    let mut out = Vec::new();
    if let Some(re) = OPEN_W.as_ref() {
        for c in re.captures_iter(code) {
            let path = c.get(1).or_else(|| c.get(2)).map(|m| m.as_str());
            let mode = c.get(3).or_else(|| c.get(4)).map_or("", |m| m.as_str());
            if let Some(p) = path {
                if mode.contains(['w', 'a', 'x', '+']) {
                    out.push(PyWrite {
                        path: p.to_string(),
                        append: mode.contains('a'),
                    });
                }
            }
        }
    }
    if let Some(re) = PATH_WRITE.as_ref() {
        for c in re.captures_iter(code) {
            if let Some(p) = c.get(1).or_else(|| c.get(2)) {
                out.push(PyWrite {
                    path: p.as_str().to_string(),
                    append: false,
                });
            }
        }
    }
    out
}

/// True when `prog` is a Python interpreter (`python`, `python3`, `python3.12`, `pypy3`).
pub fn is_python(prog: &str) -> bool {
    let rest = prog
        .strip_prefix("python")
        .or_else(|| prog.strip_prefix("pypy"));
    rest.is_some_and(|r| r.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_for_writing_and_write_text() {
        let w = python_writes(
            "open('out.txt','w').write(x); open(\"log.txt\", mode='a'); open('in.txt'); open('r.txt','r')\nPath('cfg.json').write_text(s)",
        );
        let paths: Vec<(&str, bool)> = w.iter().map(|p| (p.path.as_str(), p.append)).collect();
        assert_eq!(
            paths,
            vec![("out.txt", false), ("log.txt", true), ("cfg.json", false)]
        );
        assert!(python_writes("open(name, 'w')").is_empty());
    }

    #[test]
    fn interpreters() {
        assert!(is_python("python3"));
        assert!(is_python("python3.12"));
        assert!(is_python("python"));
        assert!(!is_python("pythonic"));
    }
}
