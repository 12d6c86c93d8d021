//! The server's clock: what every timestamp it writes reads (`metadata.creationTimestamp`,
//! conditions' `lastTransitionTime`, the ages in Tables, a token's `iat`). A plain server's
//! clock is the real time; a simulating server's can be frozen and advanced by the test,
//! so a CronJob, a readiness delay or a grace period passes when the test says.
//!
//! The code that writes a timestamp has no server at hand (it is a rule about an object),
//! so the server's clock is entered for the thread while the server works
//! ([`Clock::enter`]: each request, each step of the simulation), and [`now`] reads the
//! clock entered, or the real time when none is.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

/// A clock a test can freeze and move forward; clones share it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Clock(Arc<Mutex<Setting>>);

#[derive(Debug, Default)]
struct Setting {
    /// How far ahead of the real time the clock runs.
    ahead: SignedDuration,
    /// The time it stands still at, when frozen.
    frozen: Option<Timestamp>,
}

impl Clock {
    fn setting(&self) -> std::sync::MutexGuard<'_, Setting> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The time now, by this clock.
    pub(crate) fn now(&self) -> Timestamp {
        let setting = self.setting();
        setting.frozen.unwrap_or_else(|| {
            Timestamp::now()
                .checked_add(setting.ahead)
                .unwrap_or(Timestamp::MAX)
        })
    }

    /// Moves the clock `by` forward (frozen or not).
    pub(crate) fn advance(&self, by: Duration) {
        let by = SignedDuration::try_from(by).unwrap_or(SignedDuration::MAX);
        let mut setting = self.setting();
        match &mut setting.frozen {
            Some(at) => *at = at.checked_add(by).unwrap_or(Timestamp::MAX),
            None => setting.ahead = setting.ahead.saturating_add(by),
        }
    }

    /// Stops the clock where it is: it moves only when advanced.
    pub(crate) fn freeze(&self) {
        let now = self.now();
        self.setting().frozen = Some(now);
    }

    /// Lets a frozen clock run again, from where it stands.
    pub(crate) fn resume(&self) {
        let mut setting = self.setting();
        if let Some(at) = setting.frozen.take() {
            setting.ahead = at.duration_since(Timestamp::now());
        }
    }

    /// Whether the clock stands still.
    pub(crate) fn frozen(&self) -> bool {
        self.setting().frozen.is_some()
    }

    /// Makes this the clock [`now`] reads on this thread until the guard drops.
    pub(crate) fn enter(&self) -> Entered {
        let previous = CURRENT.with(|current| current.replace(Some(self.clone())));
        Entered { previous }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Clock>> = const { RefCell::new(None) };
}

/// The clock entered on this thread until it drops, then the one before.
pub(crate) struct Entered {
    previous: Option<Clock>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| current.replace(previous));
    }
}

/// The time by the clock entered on this thread, or the real time.
pub(crate) fn now() -> Timestamp {
    CURRENT
        .with(|current| current.borrow().as_ref().map(Clock::now))
        .unwrap_or_else(Timestamp::now)
}

/// `time` as `meta/v1.Time` writes it.
pub(crate) fn format(time: Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frozen_clock_moves_only_when_advanced() {
        let clock = Clock::default();
        clock.freeze();
        let at = clock.now();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(clock.now(), at);
        clock.advance(Duration::from_secs(300));
        assert_eq!(clock.now(), at + SignedDuration::from_secs(300));
        let _entered = clock.enter();
        assert_eq!(now(), at + SignedDuration::from_secs(300));
    }
}
