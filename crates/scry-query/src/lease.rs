//! The read commands' side of the freshness lease (issue 16, [`scry_store::Lease`]): while a
//! live watcher holds the lease for the same roots and exclusions as this process, the index is
//! current and [`crate::indexed::refresh`] skips its freshness check. `--refresh` turns that off
//! for one command (the context's [`crate::Context::lease`] is `None`).
//!
//! The digest that must match covers every provider's roots in the environment (the paths,
//! whether they exist or not), the excluded providers, path globs and projects, and the config
//! file they came from.
//!
//! Under a covering lease `list` and search go further ([`leased`]): they skip discovery too
//! and take the discovered set from the index ([`spec`], [`crate::catalog::Catalog::from_index`]),
//! so they touch no source directory. The set is what the watcher keeps current: every
//! provider's roots *without* the directory the command runs in. Aider histories found only by
//! walking that directory (the watcher does not watch cwd subtrees) are therefore not listed
//! or searched under a lease unless `--provider aider` is asked (then discovery runs, the cwd
//! walk included, and a found history makes the command refresh) or `--refresh` is given.

use scry_model::{ProviderId, Timestamp};
use scry_source::Env;
use scry_sources::Exclusions;
use scry_store::{ListSpec, SessionIndex};
use xxhash_rust::xxh3::Xxh3;

use crate::Context;

/// The digest of the roots every provider searches in `env` and of `exclusions`: what a
/// watcher records in its lease and a command compares with its own.
pub fn digest(env: &Env, exclusions: &Exclusions) -> i64 {
    // The directory a process runs in is not part of what a watcher keeps current (Aider looks
    // in it): a watcher started anywhere covers commands run anywhere.
    let env = &env.clone().without_cwd();
    let mut h = Xxh3::new();
    for source in scry_sources::registry() {
        h.update(source.id().as_str().as_bytes());
        h.update(&[0]);
        for root in source.roots(env) {
            h.update(root.path.as_os_str().as_encoded_bytes());
            h.update(&[0]);
        }
        h.update(&[1]);
    }
    h.update(
        serde_json::to_string(&exclusions.summary())
            .unwrap_or_default()
            .as_bytes(),
    );
    h.digest() as i64
}

/// Whether a live lease in `store` covers `ctx`'s roots and exclusions, so its refresh may be
/// skipped. `false` when the context relies on no lease ([`crate::Context::lease`]: `--refresh`,
/// library users) or the lease cannot be read.
pub fn covers(ctx: &Context, store: &dyn SessionIndex) -> bool {
    let Some(mine) = ctx.lease else {
        return false;
    };
    let Ok(Some(lease)) = store.lease() else {
        return false;
    };
    lease.digest == mine && lease.is_live(scry_store::now_ms())
}

/// Whether a command asking for `asked` providers (all when empty) may take its discovered set
/// from `store` instead of discovering: a live lease [`covers`] this process, and Aider was not
/// asked for by name (its cwd walk is not what the watcher keeps current).
pub fn leased(ctx: &Context, store: &dyn SessionIndex, asked: &[ProviderId]) -> bool {
    !asked.contains(&ProviderId::Aider) && covers(ctx, store)
}

/// The discovered set under a lease as a [`ListSpec`]: the roots the watcher keeps current of
/// every provider in `asked` (all when empty) not excluded, with `scope` (directories, no
/// trailing `/`) and `since`. `None` when a root is not UTF-8 (SQL compares text).
pub fn spec(
    ctx: &Context,
    asked: &[ProviderId],
    scope: Option<Vec<String>>,
    since: Option<Timestamp>,
) -> Option<ListSpec> {
    let env = ctx.env.clone().without_cwd();
    let ex = &ctx.exclusions;
    let mut roots = Vec::new();
    let mut providers = Vec::new();
    for source in scry_sources::registry() {
        let id = source.id();
        if (!asked.is_empty() && !asked.contains(&id)) || ex.excludes_provider(id) {
            continue;
        }
        providers.push(id);
        for root in source.roots(&env) {
            roots.push(root.path.to_str()?.trim_end_matches('/').to_string());
        }
    }
    Some(ListSpec {
        roots,
        providers,
        scope,
        since,
    })
}
