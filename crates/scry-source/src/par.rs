//! Discovery's directories on more than one thread: listing a directory and stat'ing its
//! files is system-call bound (on 20,000 pi files two thirds of a no-watcher `list` is
//! `getdents64` and one `statx` per file), so a second thread takes most of the wall time
//! off. The answers keep the order of the input, so discovery's output is the same.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Items below this are mapped on the calling thread alone (a thread costs more than a few
/// directories take).
const MIN_PARALLEL: usize = 8;
/// At most this many threads, the calling one included.
const MAX_THREADS: usize = 4;

/// `items.iter().map(f).collect()`, with the items taken one by one by up to
/// [`MAX_THREADS`] threads (the caller's one of them) when there are enough of them and more
/// than one CPU. A panic in `f` panics the caller.
pub fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(items.len() / (MIN_PARALLEL / 2).max(1));
    if items.len() < MIN_PARALLEL || threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let others: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut parts = vec![work()];
        for h in others {
            match h.join() {
                Ok(p) => parts.push(p),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        parts
    });
    let mut out: Vec<Option<R>> = Vec::with_capacity(items.len());
    out.resize_with(items.len(), || None);
    for (i, r) in parts.drain(..).flatten() {
        out[i] = Some(r);
    }
    out.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_keep_the_order_of_the_items() {
        for n in [0usize, 1, 7, 8, 9, 100, 1000] {
            let items: Vec<usize> = (0..n).collect();
            let got = map_in_order(&items, |&i| {
                // Uneven work, so threads finish out of order.
                if i % 7 == 0 {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                i * 2
            });
            assert_eq!(got, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{n}");
        }
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<usize> = (0..64).collect();
        let r = std::panic::catch_unwind(|| {
            map_in_order(&items, |&i| {
                assert!(i != 40, "item forty");
                i
            })
        });
        let text = crate::guard::panic_text(r.unwrap_err().as_ref());
        assert!(text.contains("item forty"), "{text}");
    }
}
