use std::fmt;

#[derive(Debug, Clone)]
pub struct User {
    pub id: u64,
    pub name: String,
}
