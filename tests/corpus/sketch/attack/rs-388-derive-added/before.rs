#[derive(Debug)]
pub struct A {
    x: u8,
}

pub struct B {
    y: u8,
}
