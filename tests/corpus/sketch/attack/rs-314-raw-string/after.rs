use std::io;

pub fn banner() -> String {
    let text = r#"
Welcome
=======
"#;
    let out = text.trim_end().to_string();
    out
}

pub fn other() -> u32 {
    1
}
