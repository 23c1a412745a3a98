pub fn msg() -> String {
    let s = "first line \
second line \
third line";
    let t = s.to_lowercase();
    t
}

pub fn other() -> u8 {
    0
}
