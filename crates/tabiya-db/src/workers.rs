//! A question's work spread over the cores: the workers run on scoped threads, each under
//! the asking thread's deadline (`deadline`), and their results come back in order.

use crate::{Error, Result};

/// Below this many items one worker does it all (threads cost more than they save).
const ALONE_UP_TO: usize = 2048;

/// How many workers for `items` items: one per core (at most 8), one for a few.
pub(crate) fn for_items(items: usize) -> usize {
    if items < ALONE_UP_TO {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// The ids `from..to` cut into `n` consecutive shares: worker `i`'s is `share(i)` (empty
/// ones at the end when there are fewer ids than workers).
pub(crate) fn id_shares(from: u32, to: u32, n: usize) -> impl Fn(usize) -> (u32, u32) {
    let per = to.saturating_sub(from).div_ceil(n.max(1) as u32).max(1);
    move |i| {
        let a = from.saturating_add(per.saturating_mul(i as u32)).min(to);
        (a, a.saturating_add(per).min(to))
    }
}

/// Runs `work(i)` for every worker `i` of `n` on its own thread, under the calling thread's
/// deadline; the results in worker order (a worker that panicked is an error naming `what`).
pub(crate) fn run<T: Send>(
    n: usize,
    what: &str,
    work: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let deadline = crate::deadline::current();
    let work = &work;
    let results: Vec<Result<T>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                s.spawn(move || match deadline {
                    Some(d) => crate::deadline::within(d, || work(i)),
                    None => work(i),
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Corrupt(format!("a {what} worker failed"))))
            })
            .collect()
    });
    results.into_iter().collect()
}
