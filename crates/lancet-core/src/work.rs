//! Steps counted where a cost must stay bounded (linear in the input, or within a budget), so
//! a test holds an algorithm to its bound by counting its steps, never by timing it. Counted per
//! thread in test builds (this crate's, or a crate's above with the `count-work` feature);
//! elsewhere [`tick`] is empty and compiles away.

#[cfg(any(test, feature = "count-work"))]
thread_local! {
    static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `n` steps of work on this thread (in test builds only).
#[inline(always)]
pub fn tick(n: usize) {
    #[cfg(any(test, feature = "count-work"))]
    STEPS.with(|s| s.set(s.get() + n));
    #[cfg(not(any(test, feature = "count-work")))]
    let _ = n;
}

/// Runs `f`, returning its result and the steps it counted on this thread.
#[cfg(any(test, feature = "count-work"))]
pub fn counted<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = STEPS.with(std::cell::Cell::get);
    let out = f();
    (out, STEPS.with(std::cell::Cell::get) - before)
}
