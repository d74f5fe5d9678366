//! Integration tests of the index, one binary with themed modules: the round-trip law over the
//! corpus (S-I4), search against the direct scan (S-S), incremental refresh and resuming
//! (S-I2, S-I6), concurrent readers (S-I5), exact text round-trips (S-I3).

mod append_real;
mod bulk_sources;
mod concurrency;
mod corpus;
mod facts;
mod groups;
mod incremental;
mod lease;
mod ledger;
mod lines;
mod list_cache;
mod list_columns;
mod list_page;
mod ownership;
mod revisions;
mod search;
mod search_count;
mod staged;
mod vanish_bulk;
