//! The single integration-test binary: fixture scenarios, CLI behaviour, bad input.

mod security;
mod suite;
