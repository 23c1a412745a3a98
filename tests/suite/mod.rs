mod bad_input;
mod cli;
mod confinement;
mod props;
mod rename;
mod resend;
mod syntax;
mod transactions;
pub mod tree;
