use std::io;

pub fn banner() -> String {
    let text = r#"
Welcome
=======
"#;
    let out = text.trim().to_string();
    out
}

pub fn other() -> u32 {
    1
}
