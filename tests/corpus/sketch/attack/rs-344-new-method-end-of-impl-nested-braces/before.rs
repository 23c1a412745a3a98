impl A {
    pub fn one(&self) -> u32 {
        if self.x {
            1
        } else {
            2
        }
    }
}

impl B {
    pub fn two(&self) -> u32 {
        2
    }
}
