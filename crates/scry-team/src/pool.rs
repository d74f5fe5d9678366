//! A small pool of open team stores for a long-running reader (`serve --store`, `web
//! --store`): a request takes an idle connection (checked alive with one round trip) or opens
//! one, and gives it back when done, so requests do not pay a connection, authentication and
//! schema check each. At most [`Pool::new`]'s `idle` connections are kept; a broken one is
//! dropped.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use scry_query::QueryResult;

use crate::read::Store;

/// Open stores of one URL, shared by a server's requests.
#[derive(Debug)]
pub struct Pool {
    url: String,
    idle: Mutex<Vec<Store>>,
    keep: usize,
}

/// A store taken from a [`Pool`]; given back when dropped.
#[derive(Debug)]
pub struct Pooled {
    store: Option<Store>,
    pool: Arc<Pool>,
}

impl Pool {
    /// A pool of the store at `url` keeping at most `idle` connections open between requests.
    pub fn new(url: &str, idle: usize) -> Arc<Pool> {
        Arc::new(Pool {
            url: url.to_string(),
            idle: Mutex::new(Vec::new()),
            keep: idle,
        })
    }

    /// An open store: an idle one still alive, else a new connection ([`Store::open`]).
    pub fn get(self: &Arc<Self>) -> QueryResult<Pooled> {
        loop {
            let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
            let Some(mut store) = idle else { break };
            if store.client.is_valid(Duration::from_secs(5)).is_ok() {
                return Ok(self.pooled(store));
            }
        }
        Ok(self.pooled(Store::open(&self.url)?))
    }

    fn pooled(self: &Arc<Self>, store: Store) -> Pooled {
        Pooled {
            store: Some(store),
            pool: self.clone(),
        }
    }

    /// Connections kept open now.
    pub fn idle(&self) -> usize {
        self.idle.lock().map(|v| v.len()).unwrap_or(0)
    }
}

impl Deref for Pooled {
    type Target = Store;
    fn deref(&self) -> &Store {
        self.store.as_ref().expect("a pooled store until dropped")
    }
}

impl DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Store {
        self.store.as_mut().expect("a pooled store until dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(store) = self.store.take() else {
            return;
        };
        if store.client.is_closed() {
            return;
        }
        if let Ok(mut idle) = self.pool.idle.lock() {
            if idle.len() < self.pool.keep {
                idle.push(store);
            }
        }
    }
}
