pub fn a() -> u8 {
    1
}

pub fn b() -> u8 {
    let x = 2;
    x
}