mod bad_input;
mod cli;
mod confinement;
mod fixtures;
mod props;
mod rename;
mod syntax;
mod transactions;
pub mod tree;
