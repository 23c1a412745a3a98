pub struct A;
pub struct B;

impl A {
    pub fn name(&self) -> &str {
        "x"
    }
}

impl B {
    pub fn name(&self) -> &str {
        "x"
    }
}
