//! The language table, read once at build time: `grammars/languages.toml` (the form people edit)
//! becomes JSON in `OUT_DIR`, which the binary reads in a fraction of the time a TOML parse of
//! it takes on every call.

fn main() {
    let source = "grammars/languages.toml";
    println!("cargo:rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).expect("grammars/languages.toml is readable");
    let table: toml::Value =
        toml::from_str(&text).unwrap_or_else(|e| panic!("grammars/languages.toml is invalid: {e}"));
    let json = serde_json::to_string(&table).expect("the table as JSON");
    let out =
        std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("languages.json");
    std::fs::write(out, json).expect("OUT_DIR is writable");
}
