//! The `lancet` binary: a thin shell around [`lancet::cli::run`].

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(lancet::cli::run())
}
