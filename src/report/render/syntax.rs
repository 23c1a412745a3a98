//! The syntax gate's refusals in words: the errors a batch would introduce (each with its place
//! and excerpt), and the files the gate had not judged when the batch's time was up.

use crate::report::{BatchError, MAX_LISTED, Report, Status};
use lancet_core::kinds::ErrorKind;
use lancet_core::verdicts::SyntaxReport;
use std::fmt::Write as _;

impl Report {
    /// Attaches the syntax gate's findings; a refusal for syntax errors says what and where,
    /// one for files the gate did not judge in time names them.
    pub fn with_syntax(mut self, syntax: Option<SyntaxReport>) -> Report {
        if let Some(s) = &syntax
            && !s.errors.is_empty()
        {
            self.status = Status::Refused;
            let mut msg = format!(
                "Refused, nothing was written: the edit would introduce {} syntax error(s).",
                s.errors.len()
            );
            for e in &s.errors {
                let _ = write!(
                    msg,
                    "\n- {}:{}:{}: {} ({})\n{}",
                    e.path,
                    e.line,
                    e.column,
                    e.kind,
                    e.checker,
                    e.excerpt.trim_end()
                );
            }
            msg.push_str(
                "\nFix the edit so the file still parses and resend the whole edit; none of it was applied. (Files with errors before the edit are judged only on the errors the edit adds.)",
            );
            if !s.unjudged.is_empty() {
                let _ = write!(
                    msg,
                    "\nThe gate also ran out of time before it judged {}.",
                    listed(&s.unjudged)
                );
            }
            self.message = msg;
            let first = &s.errors[0];
            self.error = Some(BatchError {
                kind: ErrorKind::SyntaxError,
                line: None,
                found: None,
                expected: None,
                detail: format!(
                    "{} syntax error(s) introduced, the first in {} at line {}",
                    s.errors.len(),
                    first.path,
                    first.line
                ),
            });
        } else if let Some(s) = &syntax
            && !s.unjudged.is_empty()
        {
            self.status = Status::Refused;
            self.message = format!(
                "Refused, nothing was written: the syntax gate ran out of time before it judged {}, and lancet never writes a file it has not checked. Send these files in smaller batches, or leave them out of the gate (`gate.skip` in lancet.toml) if they cannot be parsed in time; none of the edit was applied.",
                listed(&s.unjudged)
            );
            self.error = Some(BatchError {
                kind: ErrorKind::GateTimeout,
                line: None,
                found: None,
                expected: None,
                detail: format!(
                    "{} file(s) not judged in time, the first {}",
                    s.unjudged.len(),
                    s.unjudged[0]
                ),
            });
        }
        self.syntax = syntax;
        self
    }
}

/// Paths in a sentence: `a.html`, or `3 files: a.html, b.html, c.html` (at most [`MAX_LISTED`],
/// then how many more).
fn listed(paths: &[String]) -> String {
    match paths {
        [one] => one.clone(),
        _ => {
            let shown: Vec<&str> = paths.iter().take(MAX_LISTED).map(String::as_str).collect();
            let more = paths.len() - shown.len();
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("{} files: {}{tail}", paths.len(), shown.join(", "))
        }
    }
}
