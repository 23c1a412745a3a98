pub fn a() -> u8 {
    1
}

pub fn b() -> u8 {
    let x = 3;
    x
}