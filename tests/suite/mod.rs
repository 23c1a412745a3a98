mod bad_input;
mod cli;
mod fixtures;
mod props;
pub mod tree;
