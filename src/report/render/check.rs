//! A check's findings in words: each syntax error with its place and excerpt, the notes, and
//! one line of totals.

use super::InWords;
use lancet_core::verdicts::SyntaxReport;

impl InWords for SyntaxReport {
    /// The findings as `lancet check` prints them for a person.
    fn render_human(&self) -> String {
        let mut out = String::new();
        for e in &self.errors {
            out.push_str(&format!(
                "{}:{}:{}: {} ({})\n{}",
                e.path, e.line, e.column, e.kind, e.checker, e.excerpt
            ));
        }
        for note in &self.notes {
            out.push_str(&format!("note: {note}\n"));
        }
        let mut paths: Vec<&str> = self.errors.iter().map(|e| e.path.as_str()).collect();
        paths.dedup();
        out.push_str(&format!(
            "{} file(s) checked, {} unchecked, {} with syntax errors ({} error(s)).\n",
            self.checked.len(),
            self.unchecked.len(),
            paths.len(),
            self.errors.len()
        ));
        out
    }

    /// The findings as they are: the report's fields are already what a program reads.
    fn render_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}
