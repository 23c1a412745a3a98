//! The `lancet` binary: the command line over the lancet facade (clap arguments, input
//! decoding, output and colours, the progress bar); `lancet mcp` hands over to lancet-mcp.

mod cli;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli::run())
}
