//! Panic guards: a bug (a panic) in one rule, file or reporter costs only that part of the
//! run. The run still reports everything else, prints one internal-error line per failure and
//! exits 2 (never 101 with nothing printed).
//!
//! Rust's default panic hook would also print "thread 'main' panicked at ..." (and, with
//! `RUST_BACKTRACE`, a backtrace) for a panic the guard then catches: noise around the one line
//! that matters. [`install_hook`] (the binary calls it once at start) keeps the default hook for
//! panics outside a guard and, inside one, only records where the panic happened, which the
//! internal-error line then names. The hook is process-wide state, so it is installed once and
//! never swapped around each guarded call (worker threads load files concurrently). Fuzz targets
//! do not install it: libFuzzer's hook aborts on every panic, guarded or not, as it should.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use crate::text::escape::{escape, Keep};

thread_local! {
    /// How many guards this thread is inside.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// Where this thread's last guarded panic happened (set by the hook).
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A caught panic: its message and, when the hook was installed, where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash {
    pub message: String,
    pub location: Option<String>,
}

impl fmt::Display for Crash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(location) = &self.location {
            write!(f, " at {location}")?;
        }
        Ok(())
    }
}

/// A part of the run that crashed; shown as one line on stderr, and the run exits 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalError {
    /// What crashed, e.g. "rule K8S002 (annotation-value-not-string)".
    pub what: String,
    /// What is missing from the output because of it.
    pub lost: &'static str,
    pub crash: Crash,
}

impl fmt::Display for InternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line whatever the panic message holds.
        let crash = self.crash.to_string().replace(['\n', '\r'], " ");
        write!(
            f,
            "internal error: {} crashed ({}); {}. This is a bug in lblint: please report it",
            self.what,
            escape(&crash, Keep::Nothing),
            self.lost
        )
    }
}

/// Installs the panic hook described in the module docs; later calls do nothing.
pub fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) > 0 {
                let location = info.location().map(ToString::to_string);
                LOCATION.with(|l| *l.borrow_mut() = location);
            } else {
                default(info);
            }
        }));
    });
}

/// Runs `f`; a panic in it comes back as a [`Crash`] instead of unwinding further.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Crash> {
    /// Leaves the guard even when `f` unwinds.
    struct Inside;
    impl Drop for Inside {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    LOCATION.with(|l| l.borrow_mut().take());
    let result = {
        let _inside = Inside;
        panic::catch_unwind(AssertUnwindSafe(f))
    };
    result.map_err(|payload| Crash {
        message: panic_message(payload.as_ref()),
        location: LOCATION.with(|l| l.borrow_mut().take()),
    })
}

/// The text of a panic payload (`panic!` with a literal or with a format string).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catch_returns_the_value_or_the_panic_message() {
        install_hook();
        assert_eq!(catch(|| 7), Ok(7));
        let crash = catch(|| -> u8 { panic!("bad {}", "input") }).unwrap_err();
        assert_eq!(crash.message, "bad input");
        assert!(crash
            .location
            .is_some_and(|l| l.starts_with("src/panic.rs:")));
        // Nested guards each see their own crash; the outer one goes on.
        let outer = catch(|| {
            let inner = catch(|| -> () { panic!("inner") });
            assert_eq!(inner.unwrap_err().message, "inner");
            5
        });
        assert_eq!(outer, Ok(5));
        assert_eq!(DEPTH.with(Cell::get), 0, "every guard was left");
    }

    #[test]
    fn an_internal_error_is_one_escaped_line() {
        let error = InternalError {
            what: "the human reporter".to_string(),
            lost: "no report was written",
            crash: Crash {
                message: "bad\nvalue \u{1b}[2J".to_string(),
                location: None,
            },
        };
        assert_eq!(
            error.to_string(),
            "internal error: the human reporter crashed (bad value \\u{1b}[2J); no report was \
             written. This is a bug in lblint: please report it"
        );
    }
}
