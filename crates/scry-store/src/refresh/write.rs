//! Writing one parsed file: a resume appends to the indexed session inside a savepoint; a whole
//! parse is staged under a new sid (its sink commits between blocks) and swapped in by one short
//! transaction that checks no other writer replaced the file's session meanwhile.

use rusqlite::{params, Connection, OptionalExtension};
use scry_model::Header;
use scry_source::{Emitter, ResumePoint, Source, SourceFile};

use super::pipe::{Piece, Pieces};
use super::{prefix_hash, Batch, FileRow, ParseOutcome, RefreshReport};
use crate::error::{Result, StoreError};
use crate::ingest::{delete_tail, new_sid, now_secs, write_header, IndexSink, Stage};
use crate::schema::PARSER_VERSION;

impl Batch<'_> {
    /// Parses one file. A resume appends to the indexed session inside a savepoint (a failure
    /// keeps it as it was). A whole parse is staged: written under a new sid, committing between
    /// blocks when it runs long, then swapped in by [`Batch::swap_in`]; a failure leaves the
    /// previous session as it was and its partial rows to the garbage collector. The outer
    /// `Result` is a database failure (fatal); the inner `Err` is the provider's message.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn parse_file(
        &mut self,
        source: &dyn Source,
        file: &SourceFile,
        row: Option<&FileRow>,
        resume: Option<&ResumePoint>,
        fp: (i64, i64, i64, i64),
        pieces: Option<Pieces>,
        report: &mut RefreshReport,
    ) -> Result<std::result::Result<ParseOutcome, String>> {
        if let (Some(rp), Some(r), Some(sid)) = (resume, row, row.and_then(|r| r.sid)) {
            // Queued candidate writes go in before the savepoint, the resume's own inside it.
            crate::gramq::apply(self.tx)?;
            self.tx
                .execute_batch("SAVEPOINT resume")
                .map_err(StoreError::db("begin session savepoint"))?;
            let (out, _) = write_parse(self.tx, source, file, sid, Some(rp), None)?;
            let ok = if let Ok((ParseOutcome::Done { .. }, new_resume, _)) = &out {
                write_fingerprint(self.tx, file, r.fid, sid, new_resume.clone(), fp, report)?;
                true
            } else {
                false
            };
            crate::gramq::apply(self.tx)?;
            self.tx
                .execute_batch(if ok {
                    "RELEASE resume"
                } else {
                    "ROLLBACK TO resume; RELEASE resume"
                })
                .map_err(StoreError::db("end session savepoint"))?;
            return Ok(out.map(|(outcome, _, _)| outcome));
        }
        if resume.is_some() {
            return Ok(Ok(ParseOutcome::ResumeRefused));
        }
        let fid = match row {
            Some(r) => r.fid,
            None => {
                let path = file.path.to_string_lossy().into_owned();
                let key = file.key.clone().unwrap_or_default();
                self.tx
                    .execute(
                        "INSERT INTO files(path, key, provider, size, mtime_ns, head_hash,
                                           related_sig, parser_version, did)
                         VALUES(?1, ?2, ?3, -1, 0, 0, 0, 0, ?4)",
                        params![path, key, file.provider.as_str(), file.id],
                    )
                    .map_err(StoreError::db("insert file"))?;
                self.tx.last_insert_rowid()
            }
        };
        let old = row.and_then(|r| r.sid);
        let sid = new_sid(self.tx)?;
        self.tx
            .execute(
                "INSERT INTO pending(sid, since) VALUES(?1, ?2)",
                params![sid, now_secs()],
            )
            .map_err(StoreError::db("stage session"))?;
        let stage = Stage {
            limits: self.limits,
            since: self.since,
            blocks: 0,
            commits: 0,
        };
        let (out, stage) = match pieces {
            Some(pieces) => write_piped(self.tx, pieces, sid, stage)?,
            None => write_parse(self.tx, source, file, sid, None, Some(stage))?,
        };
        if let Some(stage) = stage {
            if stage.commits > 0 {
                self.since = stage.since;
                self.restarted = true;
                report.staged_commits += stage.commits;
            }
        }
        match out {
            Ok((ParseOutcome::Done { events }, new_resume, Some(count_header))) => {
                self.swap_in(file, fid, old, sid, count_header, new_resume, fp, report)?;
                Ok(Ok(ParseOutcome::Done { events }))
            }
            Ok((other, _, _)) => {
                self.drop_staged(sid, row.is_none().then_some(fid))?;
                Ok(Ok(other))
            }
            Err(message) => {
                self.drop_staged(sid, row.is_none().then_some(fid))?;
                Ok(Err(message))
            }
        }
    }

    /// Makes the staged session `sid` the one indexed from file `fid`, in the open transaction:
    /// unless another writer replaced the file's session since this refresh read it (then that
    /// newer write stands and this one is dropped), the old session is retired, the new header
    /// written and the fingerprint updated.
    #[allow(clippy::too_many_arguments)]
    fn swap_in(
        &mut self,
        file: &SourceFile,
        fid: i64,
        old: Option<i64>,
        sid: i64,
        (header, count): (Header, u32),
        new_resume: Option<ResumePoint>,
        fp: (i64, i64, i64, i64),
        report: &mut RefreshReport,
    ) -> Result<()> {
        let current: Option<Option<i64>> = self
            .tx
            .prepare_cached("SELECT sid FROM files WHERE fid = ?1")
            .and_then(|mut st| st.query_row([fid], |r| r.get(0)).optional())
            .map_err(StoreError::db("read file session"))?;
        if current != Some(old) {
            return self.drop_staged(sid, None);
        }
        if let Some(old) = old {
            // An old session whose events the new parse lost or changed stays readable as an
            // earlier revision (issue 20); otherwise it is retired.
            let path = file.path.to_string_lossy();
            let key = file.key.as_deref().unwrap_or("");
            crate::revision::replace(self.tx, old, sid, &path, key)?;
        }
        write_header(self.tx, sid, &header, count, true, file)?;
        self.tx
            .prepare_cached("DELETE FROM pending WHERE sid = ?1")
            .and_then(|mut st| st.execute([sid]))
            .map_err(StoreError::db("unstage session"))?;
        write_fingerprint(self.tx, file, fid, sid, new_resume, fp, report)
    }

    /// Leaves a staged session to the garbage collector, and removes the file row a new source
    /// was given for it.
    fn drop_staged(&mut self, sid: i64, new_fid: Option<i64>) -> Result<()> {
        self.tx
            .execute("UPDATE pending SET since = 0 WHERE sid = ?1", [sid])
            .map_err(StoreError::db("drop staged session"))?;
        if let Some(fid) = new_fid {
            self.tx
                .execute("DELETE FROM files WHERE fid = ?1", [fid])
                .map_err(StoreError::db("remove failed file"))?;
        }
        Ok(())
    }
}

/// What a successful parse hands back: the outcome, the new resume point, and the header with
/// its event count.
type Written = (ParseOutcome, Option<ResumePoint>, Option<(Header, u32)>);

/// Streams one session into `conn` under `sid`: from `resume` on (appending to that session,
/// whose header is rewritten here), or whole into a staged sid (the header is returned for the
/// swap). On a provider error nothing after the deletions is written. The [`Stage`] comes back
/// with its commit count.
fn write_parse(
    conn: &Connection,
    source: &dyn Source,
    file: &SourceFile,
    sid: i64,
    resume: Option<&ResumePoint>,
    stage: Option<Stage>,
) -> Result<(std::result::Result<Written, String>, Option<Stage>)> {
    let (first_seq, first_warning) = match resume {
        Some(rp) => (rp.emitter.events, rp.emitter.warnings),
        None => (0, 0),
    };
    let kept = match resume {
        Some(_) => delete_tail(conn, sid, first_seq, first_warning)?,
        None => crate::block::BlockBuf::default(),
    };
    let mut sink = IndexSink::new(conn, sid, first_warning, kept);
    sink.stage = stage;
    let parsed = {
        let (out, res) = match resume {
            Some(rp) => {
                let mut out = Emitter::resumed(&mut sink, &rp.emitter);
                let res = source.parse_into_from(file, rp, &mut out);
                (out, res)
            }
            None => {
                let mut out = Emitter::new(&mut sink);
                let res = source.parse_into(file, &mut out);
                (out, res)
            }
        };
        match res {
            Ok(mut header) => {
                out.finish_header(&mut header);
                Ok((header, out.count()))
            }
            Err(e) => Err(e.to_string()),
        }
    };
    if let Some(e) = sink.error.take() {
        return Err(e);
    }
    let (header, count) = match parsed {
        Ok(x) => x,
        Err(message) => {
            let stage = sink.stage.take();
            drop(sink);
            let out = if resume.is_some() {
                Ok((ParseOutcome::ResumeRefused, None, None))
            } else {
                Err(message)
            };
            return Ok((out, stage));
        }
    };
    sink.finish()?;
    let new_resume = sink.resume.take().or_else(|| resume.cloned());
    let events = sink.written;
    let stage = sink.stage.take();
    drop(sink);
    if resume.is_some() {
        write_header(conn, sid, &header, count, true, file)?;
    }
    Ok((
        Ok((
            ParseOutcome::Done { events },
            new_resume,
            Some((header, count)),
        )),
        stage,
    ))
}

/// [`write_parse`] of a whole parse made on a parse thread ([`super::pipe`]): writes its pieces
/// under the staged `sid` as they arrive.
fn write_piped(
    conn: &Connection,
    mut pieces: Pieces,
    sid: i64,
    stage: Stage,
) -> Result<(std::result::Result<Written, String>, Option<Stage>)> {
    let mut sink = IndexSink::new(conn, sid, 0, crate::block::BlockBuf::default());
    sink.stage = Some(stage);
    let end = loop {
        match pieces.next() {
            Some(Piece::Block(b)) => {
                sink.put_block(&b)?;
                sink.written += u64::from(b.count);
            }
            Some(Piece::Doc(first, doc)) => sink.put_doc(first, &doc)?,
            Some(Piece::Warning(body)) => sink.put_warning(&body)?,
            Some(Piece::End(end)) => break *end,
            None => {
                return Err(StoreError::IndexBuild(
                    "a parse thread stopped before the end of its file".into(),
                ))
            }
        }
    };
    if let Some(e) = end.error {
        return Err(e);
    }
    let stage = sink.stage.take();
    let out = end.parsed.map(|(header, count)| {
        (
            ParseOutcome::Done {
                events: sink.written,
            },
            end.resume,
            Some((header, count)),
        )
    });
    Ok((out, stage))
}

/// Records the fingerprint of file `fid` after a successful write of session `sid`.
fn write_fingerprint(
    conn: &Connection,
    file: &SourceFile,
    fid: i64,
    sid: i64,
    new_resume: Option<ResumePoint>,
    fp: (i64, i64, i64, i64),
    report: &mut RefreshReport,
) -> Result<()> {
    let prefix = new_resume
        .as_ref()
        .and_then(|rp| prefix_hash(&file.path, rp.offset, &mut report.bytes_hashed));
    let resume_json = match (&new_resume, prefix) {
        (Some(rp), Some(_)) => serde_json::to_string(rp).ok(),
        _ => None,
    };
    conn.prepare_cached(
        "UPDATE files SET provider = ?1, size = ?2, mtime_ns = ?3, head_hash = ?4,
             related_sig = ?5, parser_version = ?6, resume = ?7, prefix_hash = ?8, live = 1,
             error = NULL, sid = ?9, did = ?11
         WHERE fid = ?10",
    )
    .and_then(|mut st| {
        st.execute(params![
            file.provider.as_str(),
            fp.0,
            fp.1,
            fp.2,
            fp.3,
            PARSER_VERSION,
            resume_json,
            prefix,
            sid,
            fid,
            file.id
        ])
    })
    .map_err(StoreError::db("update fingerprint"))?;
    Ok(())
}
