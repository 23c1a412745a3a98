mod bad_input;
mod cli;
mod fixtures;
mod props;
mod syntax;
pub mod tree;
