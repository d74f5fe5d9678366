//! The matcher: the regex (the single authority on what matches), the required literals that
//! may narrow candidates through the trigram index, and the key query built from them.

use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange, Hir, HirKind};

use super::{SearchMode, SearchRequest, TermsOperator};
use crate::error::{Result, StoreError};

/// Ranges kept per field (one more than shown, to know there are more).
pub(crate) const KEEP_RANGES: usize = 21;
/// Trigrams used per conjunction at most (evenly spaced; still a superset of the matches).
const MAX_GRAMS: usize = 12;

/// Matches of all patterns in one field.
#[derive(Debug, Default)]
pub(crate) struct FieldMatch {
    /// First matches as byte ranges, sorted and merged (at most [`KEEP_RANGES`]).
    pub ranges: Vec<(usize, usize)>,
    /// Number of (non-empty) matches.
    pub count: usize,
    /// Which patterns matched.
    pub patterns: u64,
}

pub(crate) struct Matcher {
    /// The patterns, built on first use (a search whose trigrams find no candidate never
    /// compiles a regex: a case-insensitive one costs ≈ 0.2 ms, a tenth of a warm search).
    pats: Lazy<Vec<Regex>>,
    and: bool,
    /// The trigram keys narrowing candidates, when the query allows it: a document is a
    /// candidate when it holds every key of one of the conjunctions.
    pub grams: Option<Vec<Vec<u32>>>,
    /// For literal and terms queries: any of the literals, over raw bytes (a block of stored
    /// records), to skip blocks without a match before looking at their events.
    pre: Lazy<Option<regex::bytes::Regex>>,
}

/// A value built from its recipe when first asked for (the recipe cannot fail: what could is
/// built at once by [`Matcher::new`]).
struct Lazy<T> {
    cell: std::sync::OnceLock<T>,
    make: Box<dyn Fn() -> T + Send + Sync>,
}

impl<T> Lazy<T> {
    fn new(make: impl Fn() -> T + Send + Sync + 'static) -> Self {
        Lazy {
            cell: std::sync::OnceLock::new(),
            make: Box::new(make),
        }
    }
    fn ready(value: T) -> Self {
        Lazy {
            cell: std::sync::OnceLock::from(value),
            make: Box::new(|| unreachable!("built at once")),
        }
    }
    fn get(&self) -> &T {
        self.cell.get_or_init(|| (self.make)())
    }
}

impl Matcher {
    pub fn new(req: &SearchRequest) -> Result<Matcher> {
        let ci = !req.case_sensitive;
        let (srcs, and, disj): (Vec<String>, bool, Vec<Vec<String>>) = match req.mode {
            SearchMode::Literal => {
                if req.query.is_empty() {
                    return Err(StoreError::InvalidQuery("empty query".into()));
                }
                (
                    vec![regex::escape(&req.query)],
                    false,
                    vec![vec![req.query.clone()]],
                )
            }
            SearchMode::Regex => {
                if req.query.is_empty() {
                    return Err(StoreError::InvalidQuery("empty regex".into()));
                }
                let mut req_lits = Vec::new();
                if let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(&req.query) {
                    required(&hir, &mut req_lits);
                }
                (vec![req.query.clone()], false, vec![req_lits])
            }
            SearchMode::Terms => {
                if req.terms.is_empty() {
                    return Err(StoreError::InvalidQuery("no terms given".into()));
                }
                if req.terms.iter().any(String::is_empty) {
                    return Err(StoreError::InvalidQuery("empty term".into()));
                }
                let pats = req.terms.iter().map(|t| regex::escape(t)).collect();
                match req.operator {
                    TermsOperator::And => (pats, true, vec![req.terms.clone()]),
                    TermsOperator::Or => (
                        pats,
                        false,
                        req.terms.iter().map(|t| vec![t.clone()]).collect(),
                    ),
                }
            }
        };
        if srcs.len() > 64 {
            return Err(StoreError::InvalidQuery("at most 64 terms".into()));
        }
        let build = move |p: &str| -> Result<Regex> {
            RegexBuilder::new(p)
                .case_insensitive(ci)
                .size_limit(64 << 20)
                .build()
                .map_err(|e| StoreError::InvalidQuery(e.to_string()))
        };
        // A regex may be refused (syntax, size): built now, so the error is the answer. An
        // escaped literal of a short query always builds: left for first use.
        let pats = if req.mode == SearchMode::Regex || srcs.iter().any(|p| p.len() > 4096) {
            Lazy::ready(srcs.iter().map(|p| build(p)).collect::<Result<Vec<_>>>()?)
        } else {
            Lazy::new(move || {
                srcs.iter()
                    .map(|p| build(p).expect("an escaped short literal builds"))
                    .collect()
            })
        };
        let grams = gram_query(&disj, ci);
        // Escaped literals have no anchors or word boundaries, so a match inside one field is
        // a match inside the block holding it: the prefilter never drops a real hit.
        let pre = match req.mode {
            SearchMode::Literal => Some(vec![req.query.as_str()]),
            SearchMode::Terms => Some(req.terms.iter().map(String::as_str).collect()),
            SearchMode::Regex => None,
        }
        .map(|lits| {
            lits.iter()
                .map(|l| regex::escape(l))
                .collect::<Vec<_>>()
                .join("|")
        });
        let pre = Lazy::new(move || {
            pre.as_ref().and_then(|alt| {
                regex::bytes::RegexBuilder::new(alt)
                    .case_insensitive(ci)
                    .size_limit(64 << 20)
                    .build()
                    .ok()
            })
        });
        Ok(Matcher {
            pats,
            and,
            grams,
            pre,
        })
    }

    /// Whether `raw` (a decoded block) may hold a match; `true` when there is no prefilter.
    pub fn may_match(&self, raw: &[u8]) -> bool {
        self.pre.get().as_ref().is_none_or(|p| p.is_match(raw))
    }

    /// Matches in one field.
    pub fn field(&self, text: &str) -> FieldMatch {
        let mut fm = FieldMatch::default();
        for (i, re) in self.pats.get().iter().enumerate() {
            let mut kept = 0;
            for m in re.find_iter(text) {
                if m.start() == m.end() {
                    continue;
                }
                fm.count += 1;
                fm.patterns |= 1 << i;
                if kept < KEEP_RANGES {
                    fm.ranges.push((m.start(), m.end()));
                    kept += 1;
                }
            }
        }
        if self.pats.get().len() > 1 {
            fm.ranges.sort_unstable();
            let mut merged: Vec<(usize, usize)> = Vec::with_capacity(fm.ranges.len());
            for (s, e) in fm.ranges.drain(..) {
                match merged.last_mut() {
                    Some(last) if s < last.1 => last.1 = last.1.max(e),
                    _ => merged.push((s, e)),
                }
            }
            merged.truncate(KEEP_RANGES);
            fm.ranges = merged;
        }
        fm
    }

    /// How many (non-empty) matches `text` holds, and of which patterns: [`Matcher::field`]'s
    /// `count` and `patterns` without collecting ranges (what ranking needs of a hit that is
    /// not shown; the shown ones get their ranges from [`Matcher::field`] again).
    pub fn count(&self, text: &str) -> (usize, u64) {
        let (mut count, mut patterns) = (0, 0u64);
        for (i, re) in self.pats.get().iter().enumerate() {
            let n = re.find_iter(text).filter(|m| m.start() != m.end()).count();
            if n > 0 {
                count += n;
                patterns |= 1 << i;
            }
        }
        (count, patterns)
    }

    /// Whether the union of pattern bits found across an event's fields qualifies the event.
    pub fn qualifies(&self, patterns: u64) -> bool {
        if self.and {
            let all = if self.pats.get().len() >= 64 {
                u64::MAX
            } else {
                (1u64 << self.pats.get().len()) - 1
            };
            patterns & all == all
        } else {
            patterns != 0
        }
    }
}

/// Strings that every match of `h` must contain (conservative: alternations and optional parts
/// contribute nothing).
fn required(h: &Hir, out: &mut Vec<String>) {
    match h.kind() {
        HirKind::Literal(l) => {
            if let Ok(s) = std::str::from_utf8(&l.0) {
                out.push(s.to_string());
            }
        }
        HirKind::Concat(subs) => {
            let mut run = String::new();
            for s in subs {
                match s.kind() {
                    HirKind::Literal(l) => match std::str::from_utf8(&l.0) {
                        Ok(t) => run.push_str(t),
                        Err(_) => {
                            if !run.is_empty() {
                                out.push(std::mem::take(&mut run));
                            }
                        }
                    },
                    _ => {
                        if !run.is_empty() {
                            out.push(std::mem::take(&mut run));
                        }
                        required(s, out);
                    }
                }
            }
            if !run.is_empty() {
                out.push(run);
            }
        }
        HirKind::Capture(c) => required(&c.sub, out),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub, out),
        _ => {}
    }
}

/// Whether the trigram keys ([`crate::grams`]: ASCII letters folded, nothing else) keep every
/// text the regex would match for `c` — i.e. `c` has no case variants, or exactly one ASCII
/// partner. NUL is never used.
fn safe_char(c: char, case_insensitive: bool) -> bool {
    if c == '\0' {
        return false;
    }
    if !case_insensitive {
        return true;
    }
    let mut cls = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
    if cls.try_case_fold_simple().is_err() {
        return false;
    }
    let mut members = Vec::new();
    for r in cls.iter() {
        for ch in r.start()..=r.end() {
            members.push(ch);
            if members.len() > 2 {
                return false;
            }
        }
    }
    match members.as_slice() {
        [only] => *only == c,
        [a, b] => a.is_ascii() && b.is_ascii(),
        _ => false,
    }
}

/// The trigrams of one conjunction: every ≥ 3-character run of safe characters of every
/// literal, cut into overlapping trigrams, at most [`MAX_GRAMS`] evenly spaced.
fn grams(lits: &[String], ci: bool) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for lit in lits {
        let mut run: Vec<char> = Vec::new();
        let flush = |run: &mut Vec<char>, all: &mut Vec<String>| {
            if run.len() >= 3 {
                for w in run.windows(3) {
                    let g: String = w.iter().collect();
                    if !all.contains(&g) {
                        all.push(g);
                    }
                }
            }
            run.clear();
        };
        for c in lit.chars() {
            if safe_char(c, ci) {
                run.push(c);
            } else {
                flush(&mut run, &mut all);
            }
        }
        flush(&mut run, &mut all);
    }
    if all.len() > MAX_GRAMS {
        let n = all.len();
        all = (0..MAX_GRAMS)
            .map(|i| all[i * (n - 1) / (MAX_GRAMS - 1)].clone())
            .collect();
    }
    all
}

/// The key query (an OR of ANDs of trigram keys) of a disjunction of conjunctions of required
/// literals, or `None` when some disjunct has no usable trigram (then nothing can be narrowed).
fn gram_query(disj: &[Vec<String>], ci: bool) -> Option<Vec<Vec<u32>>> {
    if disj.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    for conj in disj {
        let g = grams(conj, ci);
        if g.is_empty() {
            return None;
        }
        let mut and: Vec<u32> = g
            .iter()
            .filter_map(|x| crate::grams::query_key(x))
            .collect();
        if and.is_empty() {
            return None;
        }
        and.sort_unstable();
        and.dedup();
        parts.push(and);
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gram_query_keys_every_trigram() {
        let q = gram_query(&[vec!["a\"b OR c*".into()], vec!["xyz".into()]], true).unwrap();
        assert_eq!(q.len(), 2);
        assert!(
            q[0].contains(&crate::grams::query_key("a\"b").unwrap()),
            "{q:?}"
        );
        assert!(
            q[0].contains(&crate::grams::query_key("r c").unwrap()),
            "{q:?}"
        );
        assert_eq!(q[1], [crate::grams::query_key("XYZ").unwrap()]);
        assert!(gram_query(&[vec!["会话".into()]], true).is_none());
        assert!(gram_query(&[vec!["跨会话".into()]], true).is_some());
        // `k` and `s` have non-ASCII case partners (K, ſ): not narrowed case-insensitively.
        assert!(gram_query(&[vec!["ask".into()]], true).is_none());
        assert!(gram_query(&[vec!["ask".into()]], false).is_some());
    }

    #[test]
    fn required_literals_of_regexes() {
        let lits = |p: &str| {
            let hir = regex_syntax::ParserBuilder::new().build().parse(p).unwrap();
            let mut out = Vec::new();
            required(&hir, &mut out);
            out
        };
        assert_eq!(lits(r"src/.*ledger\.ts"), vec!["src/", "ledger.ts"]);
        assert!(lits("foo|bar").is_empty());
        assert_eq!(lits("abc?def"), vec!["ab", "def"]);
    }
}
