//! Fuzz target: the patch parser must never panic or hang, whatever the text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = lancet_core::format::patch::parse(text);
    }
});
