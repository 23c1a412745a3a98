//! `read_file`'s body: a window of a file, paged by default as hosts' own read tools are (a
//! 21 MB file is not one 58 MB answer), saying how to read on; what the session remembers of
//! it; and what a read made while a batch of the session is in flight must say.

use crate::LancetServer;
use crate::args::ReadFileArgs;
use crate::result::{refusal, report_result, with_notes};
use lancet::{ErrorKind, ReadError, ReadView, Report};
use rmcp::model::{CallToolResult, ContentBlock};

/// The most lines one read shows unless its `limit` says otherwise.
pub(crate) const READ_LINES: usize = 2000;

/// The most bytes of text one read shows, whatever its `limit` (at least one line).
pub(crate) const READ_BYTES: usize = 256 * 1024;

impl LancetServer {
    pub(crate) fn read_blocking(&self, args: &ReadFileArgs) -> CallToolResult {
        let root = match self.root() {
            Ok(root) => root,
            Err(refused) => return refused,
        };
        // A batch of this session in flight holds the journal: this read shows the disk as it
        // stands, and says so, instead of waiting for the batch's lock. Otherwise a batch a
        // crash left is finished first (another process's pending batch makes it wait, off the
        // runtime, at most the lock's wait).
        let in_flight = self.in_flight_note();
        if in_flight.is_none() {
            let _ = lancet::finish_interrupted(&root);
        }
        let limit = args.limit.unwrap_or(READ_LINES);
        let (view, bytes) =
            match lancet::read_only(&root, &args.path, args.offset.unwrap_or(1), Some(limit)) {
                Ok(read) => read,
                Err(e) => return read_refusal(&e),
            };
        // Exactly the bytes the view shows: what a later write is judged by.
        self.remember(&view.path, bytes);
        let view = page(view);
        let view = if args.anchors == Some(true) {
            view.with_anchors()
        } else {
            view
        };
        let mut text = view.render();
        if let Some(next) = view.next_offset {
            text.push_str(&format!(
                "[{} more line(s) after line {}: read on with offset {next}. One read shows at most {READ_LINES} lines or {} KiB unless limit asks for fewer lines]\n",
                view.total_lines - (next - 1),
                next - 1,
                READ_BYTES / 1024
            ));
        }
        let mut result =
            CallToolResult::structured(serde_json::to_value(&view).unwrap_or_default());
        result.content = vec![ContentBlock::text(text)];
        with_notes(result, &in_flight.into_iter().collect::<Vec<_>>())
    }
}

/// The view cut to [`READ_BYTES`] of text (at least one line).
fn page(view: ReadView) -> ReadView {
    let mut bytes = 0;
    let fitting = view
        .lines
        .iter()
        .take_while(|l| {
            // The number, the tab and the newline the text shows beside each line.
            bytes += l.text.len() + 8;
            bytes <= READ_BYTES
        })
        .count();
    view.truncated(fitting)
}

/// A read that failed, as a refusal carrying its kind.
fn read_refusal(e: &ReadError) -> CallToolResult {
    if let ReadError::Path(p) = e {
        return report_result(&Report::unsafe_path(p));
    }
    let next = match e.kind() {
        ErrorKind::Missing => {
            "Check the path (relative to the project root); create a new file with write_file."
        }
        ErrorKind::Usage => "Read from an offset within the file (offset 1 is its first line).",
        ErrorKind::NotUtf8 | ErrorKind::NotRegular => {
            "lancet reads and edits text files only; leave this one as it is."
        }
        _ => "Check that the file is readable, then read it again.",
    };
    refusal(e.kind(), e.to_string(), next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(lines: usize, width: usize) -> ReadView {
        let dir = std::env::temp_dir().join(format!(
            "lancet-mcp-page-{}-{lines}-{width}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let text: String = (0..lines).map(|_| "x".repeat(width) + "\n").collect();
        std::fs::write(dir.join("f.txt"), text).unwrap();
        let root = lancet::Root::new(&dir).unwrap();
        let (view, _) = lancet::read_only(&root, "f.txt", 1, Some(READ_LINES)).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        view
    }

    #[test]
    fn a_long_file_is_paged_by_lines_and_bytes() {
        let long = view(READ_LINES + 500, 10);
        assert_eq!(long.lines.len(), READ_LINES);
        assert_eq!(page(long).next_offset, Some(READ_LINES + 1));
        let wide = page(view(100, 10_000));
        assert_eq!(wide.lines.len(), READ_BYTES / 10_008);
        assert_eq!(wide.next_offset, Some(wide.lines.len() + 1));
        let huge_line = page(view(2, READ_BYTES * 2));
        assert_eq!(huge_line.lines.len(), 1, "at least one line");
        let short = page(view(3, 10));
        assert_eq!((short.lines.len(), short.next_offset), (3, None));
    }
}
