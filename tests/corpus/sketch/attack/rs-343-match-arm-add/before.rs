pub fn code(s: &str) -> u8 {
    match s {
        "a" => 1,
        "b" => 2,
        _ => 0,
    }
}
