//! A question's deadline: the server sets one for each request's work (its time limit), and
//! the long loops of the answers (the games of a position passed through a filter, a
//! repertoire walked, its games, a preparation, games judged for novelties) check it, so
//! that work whose request has timed out stops instead of running on unseen. Without one
//! set (the command line), a check never fails. Here, below every answer's loops;
//! `tabiya_service::deadline` gives the same check as a service error.

use std::cell::Cell;
use std::time::Instant;

use crate::error::{Error, Result};

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` on this thread with `until` as its deadline (the one before is restored after).
pub fn within<T>(until: Instant, f: impl FnOnce() -> T) -> T {
    let before = DEADLINE.with(|d| d.replace(Some(until)));
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEADLINE.with(|d| d.set(self.0));
        }
    }
    let _restore = Restore(before);
    f()
}

/// What a check says once the deadline has passed.
/// The deadline this thread works under, if any: what a worker thread it starts is given
/// ([`within`]) so that the work it shares stops in time too.
pub fn current() -> Option<Instant> {
    DEADLINE.with(Cell::get)
}

pub const PASSED: &str = "stopped: the request's time limit passed (tabiya serve --timeout)";

/// Whether this thread's deadline has passed.
pub fn passed() -> bool {
    DEADLINE
        .with(Cell::get)
        .is_some_and(|until| Instant::now() >= until)
}

/// [`Error::Cancelled`] once this thread's deadline has passed.
pub fn check() -> Result<()> {
    if passed() {
        return Err(Error::Cancelled(PASSED.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_deadline_holds_within_and_is_restored_after() {
        assert!(check().is_ok(), "no deadline: never fails");
        let past = Instant::now() - Duration::from_millis(1);
        let far = Instant::now() + Duration::from_secs(3600);
        within(far, || {
            assert!(check().is_ok());
            within(past, || {
                let e = check().unwrap_err();
                assert!(matches!(e, Error::Cancelled(_)), "{e}");
                assert!(e.to_string().contains("time limit"), "{e}");
            });
            assert!(check().is_ok(), "the outer deadline again");
        });
        assert!(check().is_ok());
    }
}
