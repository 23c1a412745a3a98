//! stdout, written by one task: the SDK's messages and lancet's own answers to lines the SDK
//! never sees (`limit.rs`: a line that is not JSON), each a whole line, never interleaved.
//!
//! The SDK writes its messages into a pipe instead of stdout; [`Lines::forward`] copies them to
//! stdout line by line and writes lancet's answers between two of them. A client reads every
//! message whole, whoever wrote it.

use std::io;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// How many bytes of the SDK's output the pipe holds before the SDK waits for stdout.
const PIPE_BYTES: usize = 64 * 1024;

/// Where lancet's own answers go: each one JSON-RPC message, written to stdout whole.
#[derive(Clone)]
pub(crate) struct Answers(UnboundedSender<Vec<u8>>);

impl Answers {
    /// Queues `message` for stdout (dropped when stdout is closed already: nobody reads it).
    pub(crate) fn send(&self, message: &serde_json::Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let _ = self.0.send(line);
    }
}

/// The two sources of stdout's lines, until [`Lines::forward`] writes them.
pub(crate) struct Lines {
    sdk: DuplexStream,
    own: UnboundedReceiver<Vec<u8>>,
}

/// The pipe the SDK writes its messages into, the queue of lancet's answers, and what joins
/// them on stdout.
pub(crate) fn lines() -> (DuplexStream, Answers, Lines) {
    let (sdk_end, our_end) = tokio::io::duplex(PIPE_BYTES);
    let (send, own) = unbounded_channel();
    (sdk_end, Answers(send), Lines { sdk: our_end, own })
}

impl Lines {
    /// Writes every line of both sources to `out` as it comes, lancet's answers first when
    /// both are ready, until the SDK closes its pipe (its session is over); then the answers
    /// still queued. A write that fails ends it, which closes the pipe: the SDK's next write
    /// fails and its session ends, as it would on stdout itself. A client that closed its end
    /// (a broken pipe) has left, which is no error of lancet's.
    pub(crate) async fn forward(self, out: impl AsyncWrite + Unpin) -> io::Result<()> {
        match self.copy(out).await {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            done => done,
        }
    }

    async fn copy(self, mut out: impl AsyncWrite + Unpin) -> io::Result<()> {
        let Lines { sdk, mut own } = self;
        let mut sdk = BufReader::new(sdk);
        // Kept across turns: a read interrupted by an answer keeps what it had read.
        let mut line = Vec::new();
        let mut own_open = true;
        loop {
            tokio::select! {
                biased;
                answer = own.recv(), if own_open => match answer {
                    Some(answer) => write_line(&mut out, &answer).await?,
                    None => own_open = false,
                },
                read = sdk.read_until(b'\n', &mut line) => {
                    if read? == 0 {
                        break;
                    }
                    write_line(&mut out, &line).await?;
                    line.clear();
                }
            }
        }
        while let Ok(answer) = own.try_recv() {
            write_line(&mut out, &answer).await?;
        }
        Ok(())
    }
}

async fn write_line(out: &mut (impl AsyncWrite + Unpin), line: &[u8]) -> io::Result<()> {
    out.write_all(line).await?;
    out.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn answers_go_between_whole_lines_of_the_sdk() {
        let (mut sdk, answers, lines) = lines();
        let mut out = Vec::new();
        let writer = async move {
            sdk.write_all(b"{\"id\":1,").await.unwrap();
            answers.send(&serde_json::json!({"id": null}));
            tokio::task::yield_now().await;
            sdk.write_all(b"\"result\":{}}\n{\"id\":2}\n")
                .await
                .unwrap();
            drop(sdk);
            answers.send(&serde_json::json!({"id": 3}));
        };
        let (_, forwarded) = tokio::join!(writer, lines.forward(&mut out));
        forwarded.unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut got: Vec<&str> = text.lines().collect();
        got.sort();
        assert_eq!(
            got,
            [
                "{\"id\":1,\"result\":{}}",
                "{\"id\":2}",
                "{\"id\":3}",
                "{\"id\":null}"
            ]
        );
    }

    /// stdout whose reader has gone.
    struct Closed;

    impl AsyncWrite for Closed {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            _: &[u8],
        ) -> std::task::Poll<io::Result<usize>> {
            std::task::Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()))
        }

        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }

        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_client_gone_ends_the_session_quietly_and_the_sdk_sees_it() {
        let (mut sdk, _answers, lines) = lines();
        sdk.write_all(b"{\"id\":1}\n").await.unwrap();
        lines.forward(Closed).await.unwrap();
        assert!(sdk.write_all(b"{\"id\":2}\n").await.is_err());
    }
}
