use std::fmt;

#[derive(Debug, Clone)]
pub struct User {
    pub id: u64,
    pub name: String,
}

#[derive(Debug, Clone)]
pub struct Group {
    pub id: u64,
    pub members: Vec<u64>,
}
