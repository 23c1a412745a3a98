#[derive(Debug)]
pub struct A {
    x: u8,
}

#[derive(Debug)]
pub struct B {
    y: u8,
}
