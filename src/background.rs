//! Work whose result nobody waits for.

/// Frees `value` on a thread of its own: the parsed trees of a big rename or mod take a
/// noticeable share of a run to free (0.3 s of 4.7 s on the standard library), and the report
/// need not wait for it. A command-line run exits without waiting either. Where no thread can
/// be started, the value is freed at once, as it would have been.
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("lancet-drop".into())
        .spawn(move || drop(value));
}
