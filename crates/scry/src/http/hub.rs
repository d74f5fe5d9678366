//! The list-change poller of one server ([`Hub`]): `/v1/stream`'s clients subscribe to it, the
//! first one starts it (the poll itself is [`super::stream`]'s).

use std::sync::Mutex;

use axum::body::Bytes;
use tokio::sync::broadcast;

/// The list poller of one server, started by its first `/v1/stream` client.
#[derive(Debug, Default)]
pub struct Hub {
    tx: Mutex<Option<broadcast::Sender<Bytes>>>,
}

impl Hub {
    /// A receiver of the list changes; on first use `start` is given the sender to start the
    /// poller with (when it cannot, the next subscriber tries again).
    pub fn subscribe(
        &self,
        start: impl FnOnce(broadcast::Sender<Bytes>) -> std::io::Result<()>,
    ) -> broadcast::Receiver<Bytes> {
        let mut slot = match self.tx.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some(tx) = slot.as_ref() {
            return tx.subscribe();
        }
        let (tx, rx) = broadcast::channel(256);
        if start(tx.clone()).is_ok() {
            *slot = Some(tx);
        }
        rx
    }
}
