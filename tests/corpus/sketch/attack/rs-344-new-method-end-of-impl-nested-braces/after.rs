impl A {
    pub fn one(&self) -> u32 {
        if self.x {
            1
        } else {
            2
        }
    }

    pub fn three(&self) -> u32 {
        3
    }
}

impl B {
    pub fn two(&self) -> u32 {
        2
    }
}
