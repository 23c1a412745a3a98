//! Short runs read whole: a gate's external check, a question to rustup. The program runs
//! contained, its stdout and stderr read while it runs (a full pipe never stalls it), within a
//! time budget.

use crate::{ContainError, Contained};
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How a short run ended, and what it wrote.
#[derive(Debug)]
pub struct Finished {
    /// How the program exited.
    pub status: ExitStatus,
    /// Its stdout, whole.
    pub stdout: Vec<u8>,
    /// Its stderr, whole.
    pub stderr: Vec<u8>,
}

/// Runs `command` contained (stdin empty, stdout and stderr read whole) for at most `budget`:
/// `Ok(None)` when it ran out of time. Either way nothing it started is left when this returns.
pub fn output(mut command: Command, budget: Duration) -> Result<Option<Finished>, ContainError> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut program = Contained::spawn(command, |_| {})?;
    let stdout = read_whole(program.take_stdout());
    let stderr = read_whole(program.take_stderr());
    let started = Instant::now();
    let exited = loop {
        match program.try_wait()? {
            Some(_) => break true,
            None if started.elapsed() < budget => std::thread::sleep(Duration::from_millis(2)),
            None => break false,
        }
    };
    let status = program.end()?;
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(exited.then_some(Finished {
        status,
        stdout,
        stderr,
    }))
}

/// Reads a pipe to its end on a thread of its own.
fn read_whole(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}
