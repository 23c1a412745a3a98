mod bad_input;
mod cli;
mod fixtures;
pub mod tree;
