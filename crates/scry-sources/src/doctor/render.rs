//! The people-facing text of a [`DoctorReport`]: one block per provider that has something to
//! say, one line per provider that found nothing, failures and panics spelled out.

use std::fmt::Write;
use std::path::Path;

use scry_model::Warning;

use super::{DoctorReport, ProviderHealth};
use crate::Excluded;

/// Renders `report` as compact text for a terminal (no colour, ends with a newline). Paths
/// under the home directory are written `~/…`.
pub fn render_text(report: &DoctorReport) -> String {
    let mut s = String::new();
    let short = |p: &Path| shorten(p, &report.home);
    let t = &report.totals;
    let _ = writeln!(
        s,
        "{} sources found, {} excluded, {} parsed, {} failed · {} · {} warnings · {:.0} ms",
        t.files_found,
        t.excluded,
        t.parsed,
        t.failed,
        bytes(t.bytes),
        t.warnings,
        t.elapsed_ms
    );
    let ex = &report.exclusions;
    match &ex.config_file {
        Some(p) => {
            let _ = writeln!(s, "config: {}", short(p));
        }
        None => {
            let _ = writeln!(s, "config: none ({} not found)", short(&report.config_path));
        }
    }
    let mut parts = Vec::new();
    if !ex.providers.is_empty() {
        let v: Vec<&str> = ex.providers.iter().map(|p| p.as_str()).collect();
        parts.push(format!("providers {}", v.join(", ")));
    }
    if !ex.paths.is_empty() {
        parts.push(format!("paths {}", ex.paths.join(", ")));
    }
    if !ex.projects.is_empty() {
        let v: Vec<String> = ex.projects.iter().map(|p| short(p)).collect();
        parts.push(format!("projects {}", v.join(", ")));
    }
    if !parts.is_empty() {
        let _ = writeln!(s, "excluding: {}", parts.join("; "));
    }
    if !report.unmatched_exclusions.is_empty() {
        let v: Vec<String> = report
            .unmatched_exclusions
            .iter()
            .map(|e| match e {
                Excluded::Project(p) => format!("project {}", short(p)),
                other => other.to_string(),
            })
            .collect();
        let _ = writeln!(s, "matched nothing: {}", v.join(", "));
    }
    for p in &report.providers {
        s.push('\n');
        provider(&mut s, p, &short);
    }
    if t.panics > 0 {
        let _ = writeln!(
            s,
            "\n{} source(s) made a reader panic: that is a bug in scry — please report it with the file's provider and version.",
            t.panics
        );
    }
    s
}

fn provider(s: &mut String, p: &ProviderHealth, short: &dyn Fn(&Path) -> String) {
    let title = format!("{} ({})", p.provider, p.name);
    if p.excluded {
        let _ = writeln!(s, "{title}: excluded");
        return;
    }
    let roots: Vec<String> = p
        .roots
        .iter()
        .map(|r| {
            let mut t = short(&r.path);
            match (&r.env_var, r.exists) {
                (Some(v), true) => t.push_str(&format!(" (from ${v})")),
                (Some(v), false) => t.push_str(&format!(" (from ${v}, missing)")),
                (None, false) => t.push_str(" (missing)"),
                (None, true) => {}
            }
            t
        })
        .collect();
    let quiet =
        p.files_found == 0 && p.discovery_panic.is_none() && p.discovery_warnings_total == 0;
    if quiet {
        let _ = writeln!(s, "{title}: no sessions — {}", roots.join(", "));
        return;
    }
    let _ = writeln!(s, "{title}");
    let _ = writeln!(s, "  roots: {}", roots.join(", "));
    if let Some(panic) = &p.discovery_panic {
        let _ = writeln!(s, "  DISCOVERY PANIC (a bug in scry): {panic}");
    }
    let excluded: usize = p.excluded_files.iter().map(|e| e.files).sum();
    let _ = writeln!(
        s,
        "  sources: {} found, {} excluded, {} parsed, {} failed · {} · {} events · {:.0} ms",
        p.files_found,
        excluded,
        p.parsed,
        p.failed.len(),
        bytes(p.bytes),
        p.events,
        p.elapsed_ms
    );
    for e in &p.excluded_files {
        let _ = writeln!(s, "  excluded by {}: {}", e.reason, e.files);
    }
    if p.non_utf8_paths_total > 0 {
        let _ = writeln!(
            s,
            "  warning: {} source path(s) not valid UTF-8, read by their exact bytes, shown (and \
             keyed in the index) with \u{fffd}:",
            p.non_utf8_paths_total
        );
        for path in p.non_utf8_paths.iter().take(3) {
            let _ = writeln!(s, "    {}", short(path));
        }
    }
    if p.discovery_warnings_total > 0 {
        let _ = writeln!(s, "  discovery warnings: {}", p.discovery_warnings_total);
        for w in p.discovery_warnings.iter().take(3) {
            let _ = writeln!(s, "    {}", warning(w, short));
        }
    }
    if !p.warnings.is_empty() {
        let v: Vec<String> = p
            .warnings
            .iter()
            .map(|w| format!("{} {}", w.kind.as_str(), w.count))
            .collect();
        let _ = writeln!(s, "  warnings: {}", v.join(", "));
    }
    if !p.unknown_records.is_empty() {
        let v: Vec<String> = p
            .unknown_records
            .iter()
            .map(|u| match &u.record_type {
                Some(t) => format!("{t} ×{}", u.count),
                None => format!("\"{}\"", u.message.as_deref().unwrap_or("")),
            })
            .collect();
        let _ = writeln!(s, "  unknown records: {}", v.join(", "));
    }
    // The slowest of one source says nothing new.
    if let Some(slow) = p.slowest.as_ref().filter(|_| p.parsed + p.failed.len() > 1) {
        let key = slow
            .key
            .as_deref()
            .map(|k| format!(" [{k}]"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  slowest: {:.1} ms {}{key} ({})",
            slow.ms,
            short(&slow.path),
            bytes(slow.bytes)
        );
    }
    for f in &p.failed {
        let key = f
            .key
            .as_deref()
            .map(|k| format!(" [{k}]"))
            .unwrap_or_default();
        let label = if f.panicked {
            "PANIC (a bug in scry)"
        } else {
            "FAILED"
        };
        // Source errors usually start with the path already; say it once.
        let full = f.path.display().to_string();
        let error = f
            .error
            .strip_prefix(&format!("{full}: "))
            .unwrap_or(&f.error);
        let _ = writeln!(s, "  {label} {}{key}: {error}", short(&f.path));
    }
}

/// `file:line: kind: message`, the file shortened and not repeated at the message's start.
fn warning(w: &Warning, short: &dyn Fn(&Path) -> String) -> String {
    let mut t = String::new();
    let mut message = w.message.as_str();
    if let Some(file) = &w.file {
        t.push_str(&short(file));
        if let Some(line) = w.line {
            t.push_str(&format!(":{line}"));
        }
        t.push_str(": ");
        let full = format!("{}: ", file.display());
        message = message.strip_prefix(&full).unwrap_or(message);
    }
    t.push_str(&format!("{}: {message}", w.kind.as_str()));
    t
}

/// `path` with a leading `home` written as `~`.
fn shorten(path: &Path, home: &Path) -> String {
    if home.parent().is_some() {
        if let Ok(rest) = path.strip_prefix(home) {
            return if rest.as_os_str().is_empty() {
                "~".to_string()
            } else {
                format!("~/{}", rest.display())
            };
        }
    }
    path.display().to_string()
}

/// `1.2 MB`, `340 KB`, `12 B`.
fn bytes(n: u64) -> String {
    const K: f64 = 1000.0;
    let f = n as f64;
    if f >= K * K * K {
        format!("{:.1} GB", f / (K * K * K))
    } else if f >= K * K {
        format!("{:.1} MB", f / (K * K))
    } else if f >= K {
        format!("{:.0} KB", f / K)
    } else {
        format!("{n} B")
    }
}

#[cfg(test)]
mod tests {
    use super::{bytes, shorten};
    use std::path::Path;

    #[test]
    fn home_is_tilde() {
        let home = Path::new("/home/me");
        assert_eq!(
            shorten(Path::new("/home/me/.claude/x"), home),
            "~/.claude/x"
        );
        assert_eq!(shorten(Path::new("/home/me"), home), "~");
        assert_eq!(shorten(Path::new("/home/meow/x"), home), "/home/meow/x");
        assert_eq!(shorten(Path::new("/x"), Path::new("/")), "/x");
    }

    #[test]
    fn sizes() {
        assert_eq!(bytes(12), "12 B");
        assert_eq!(bytes(340_400), "340 KB");
        assert_eq!(bytes(1_250_000), "1.2 MB");
        assert_eq!(bytes(3_000_000_000), "3.0 GB");
    }
}
