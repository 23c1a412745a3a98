//! The single integration-test binary: fixture scenarios, CLI behaviour, bad input.

pub mod security;
mod suite;
