//! Fuzz target: the unified parser must never panic or hang, whatever the text.
#![no_main]

use lancet_core::ParseOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let opts = ParseOptions {
            default_path: Some("f.txt".into()),
            ..ParseOptions::default()
        };
        let _ = lancet_core::format::unified::parse(text, &opts);
    }
});
