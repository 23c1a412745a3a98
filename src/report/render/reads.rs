//! What an MCP session's reads stop, in words: a change to a file the model never read, and an
//! edit of a file that changed since it was read whose text is no longer there as sent.

use crate::report::{Report, Status, UnreadChange};
use lancet_core::kinds::ErrorKind;

impl Report {
    /// The refusal of a change to a file the session has not read (`sha256`: the file now):
    /// nothing is written, and the model is told to read it first.
    pub fn unread(path: &str, sha256: &str, change: UnreadChange) -> Report {
        let (detail, next) = match change {
            UnreadChange::WrittenWhole => (
                format!("{path} exists and you have not read it in this session"),
                format!(
                    "Read it first (read_file) or pass its sha256 ({sha256} now) as expected_sha256, so nothing you have not seen is overwritten."
                ),
            ),
            UnreadChange::Overwritten | UnreadChange::Deleted | UnreadChange::Moved => (
                format!(
                    "{path} exists and you have not read it in this session (sha256 now {sha256})"
                ),
                format!(
                    "Read it first (read_file), then resend, so nothing you have not seen is {}.",
                    match change {
                        UnreadChange::Deleted => "deleted",
                        UnreadChange::Moved => "moved",
                        _ => "overwritten",
                    }
                ),
            ),
        };
        Report::batch_error(Status::Refused, ErrorKind::Unread, detail, &next)
    }

    /// What the model reads when its edit's text is not there as sent and the file changed
    /// since it read it (`diff`: from what it read to what stands): what changed, and to read
    /// again. The refusal's report itself (its kind) stays as it was.
    pub fn changed_since_read_text(path: &str, diff: &str) -> String {
        format!(
            "{path} changed since you last read it, and the text to replace is not there as you sent it. What changed:\n{diff}\nRead it again (read_file) and resend the edit against the current text."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_unread_change_and_a_changed_file_say_what_to_send_next() {
        let write = Report::unread("a.py", "ab12", UnreadChange::WrittenWhole);
        assert_eq!(
            write.message,
            "Refused, nothing was written: a.py exists and you have not read it in this session\nRead it first (read_file) or pass its sha256 (ab12 now) as expected_sha256, so nothing you have not seen is overwritten."
        );
        assert_eq!(write.exit_code(), 1);
        let moved = Report::unread("a.py", "ab12", UnreadChange::Moved);
        assert_eq!(
            moved.message,
            "Refused, nothing was written: a.py exists and you have not read it in this session (sha256 now ab12)\nRead it first (read_file), then resend, so nothing you have not seen is moved."
        );
        assert_eq!(
            Report::changed_since_read_text("a.py", "-x\n+y\n"),
            "a.py changed since you last read it, and the text to replace is not there as you sent it. What changed:\n-x\n+y\n\nRead it again (read_file) and resend the edit against the current text."
        );
    }
}
