//! A step's reports in words: one repository's as a pull-request description (Markdown), many
//! as one summary table (`lancet report`).

use crate::report::{StepOutcome, StepReport};
use serde_json::Value;
use std::fmt::Write as _;

impl StepOutcome {
    /// Its column in the summary.
    pub fn label(self) -> &'static str {
        match self {
            StepOutcome::Changed => "changed",
            StepOutcome::WouldChange => "would change (dry run)",
            StepOutcome::AlreadyApplied => "already applied",
            StepOutcome::NothingMatched => "nothing matched",
            StepOutcome::HeldBack => "held back",
            StepOutcome::Refused => "refused",
            StepOutcome::TestsFailed => "tests failed",
            StepOutcome::Failed => "failed",
        }
    }
}

impl StepReport {
    /// Why it was refused, failed or held back, in a line: the error's kind and its first
    /// sentence, the first failing file's when the refusal is per file.
    pub fn reason(&self) -> Option<String> {
        match self.outcome {
            StepOutcome::Refused | StepOutcome::Failed => Some(self.first_error()),
            StepOutcome::TestsFailed => Some(format!(
                "`{}` failed",
                self.str_at("/test/command").unwrap_or("the tests")
            )),
            StepOutcome::HeldBack => Some(format!("held back: {}", self.held_back().join(", "))),
            _ => None,
        }
    }

    /// The batch's error, else the first failing file's (or chunk's), as `kind: what`.
    fn first_error(&self) -> String {
        if let Some(kind) = self.str_at("/error/kind") {
            let detail = self.str_at("/error/detail").unwrap_or_default();
            return format!("{kind}: {}", first_sentence(detail));
        }
        for file in self.files() {
            let path = file.get("path").and_then(Value::as_str).unwrap_or("?");
            let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
            let hunks = file.get("hunks").and_then(Value::as_array);
            for hunk in hunks.into_iter().flatten() {
                if let Some(error) = field(hunk, "error") {
                    let kind = field(hunk, "kind").unwrap_or_else(|| "failed".into());
                    let index = hunk.get("index").and_then(Value::as_u64).unwrap_or(1);
                    return format!("{kind}: {path} chunk {index}: {}", first_sentence(&error));
                }
            }
            if let Some(error) = field(file, "error") {
                let kind = field(file, "kind").unwrap_or_else(|| "failed".into());
                return format!("{kind}: {path}: {}", first_sentence(&error));
            }
        }
        first_sentence(self.str_at("/message").unwrap_or_default())
    }

    /// Why `--bisect` held a file back: the failing run it was found by, its exit code and the
    /// last line the tests printed.
    fn why_held_back(&self, path: &str) -> String {
        let culprits = self
            .json
            .pointer("/test/bisect/culprits")
            .and_then(Value::as_array);
        let culprit = culprits.into_iter().flatten().find(|c| {
            c.get("paths")
                .and_then(Value::as_array)
                .is_some_and(|p| p.iter().any(|p| p.as_str() == Some(path)))
        });
        let Some(culprit) = culprit else {
            return "the tests failed with it".into();
        };
        let exit = match culprit.get("exit_code").and_then(Value::as_i64) {
            Some(code) => format!("exit {code}"),
            None => "killed".into(),
        };
        let last = culprit
            .get("output")
            .and_then(Value::as_str)
            .and_then(|o| o.lines().rev().find(|l| !l.trim().is_empty()))
            .map(|l| format!(": `{}`", first_sentence(l.trim()).replace('`', "'")))
            .unwrap_or_default();
        format!("the tests failed with it ({exit}){last}")
    }

    /// A pull-request description for this repository, in Markdown: what changed, the sites,
    /// the tests run and their verdict, the files held back and why.
    pub fn pull_request(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "## {}", self.title());
        let _ = writeln!(out);
        let written = self.written();
        if !written.is_empty() {
            let _ = writeln!(out, "### Files changed ({})", written.len());
            for (action, path) in written.iter().take(50) {
                let _ = writeln!(out, "- `{path}` ({action})");
            }
            if written.len() > 50 {
                let _ = writeln!(out, "- … and {} more", written.len() - 50);
            }
            let _ = writeln!(out);
        }
        if let Some(sites) = self.json.pointer("/mod/sites").and_then(Value::as_array) {
            let _ = writeln!(out, "### Sites rewritten ({})", sites.len());
            for site in sites.iter().take(20) {
                // A string as it is (not its JSON spelling, whose `\"` a code span shows).
                let at = |k: &str| {
                    site.get(k)
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                        .unwrap_or_default()
                };
                let _ = writeln!(
                    out,
                    "- {}: {} → {}",
                    code_span(&format!("{}:{}", at("path"), at("line"))),
                    code_span(&at("before")),
                    code_span(&at("after"))
                );
            }
            if sites.len() > 20 {
                let _ = writeln!(out, "- … and {} more", sites.len() - 20);
            }
            let _ = writeln!(out);
        }
        if let Some(test) = self.json.get("test") {
            let passed = test.get("passed").and_then(Value::as_bool) == Some(true);
            let _ = writeln!(out, "### Tests");
            let _ = writeln!(
                out,
                "`{}`: {}",
                test.get("command").and_then(Value::as_str).unwrap_or("?"),
                if passed { "passed" } else { "failed" }
            );
            let _ = writeln!(out);
        }
        let held = self.held_back();
        if !held.is_empty() && self.outcome == StepOutcome::HeldBack {
            let _ = writeln!(out, "### Held back ({})", held.len());
            for path in &held {
                let _ = writeln!(out, "- `{path}`: {}", self.why_held_back(path));
            }
            let _ = writeln!(out);
        }
        if let Some(reason) = self
            .reason()
            .filter(|_| self.outcome != StepOutcome::HeldBack)
        {
            let _ = writeln!(out, "### Why\n{reason}\n");
        }
        if let Some(p) = self.json.get("provenance") {
            let field = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            // Only a checkpoint can be undone: a dry run or a refusal wrote none.
            let checkpoint = match self.str_at("/checkpoint") {
                Some(id) => format!("checkpoint {id}: `lancet undo {id}` takes it back"),
                None => "no checkpoint".to_string(),
            };
            let _ = writeln!(
                out,
                "<sub>lancet {} on {} (base {}), edit sha256 {}, {} ms; {checkpoint}.</sub>",
                field("lancet_version"),
                field("repository"),
                field("base_commit"),
                &field("edit_sha256")[..12.min(field("edit_sha256").len())],
                p.get("duration_ms")
                    .and_then(Value::as_u64)
                    .unwrap_or_default(),
            );
        }
        out
    }

    fn title(&self) -> String {
        match self.outcome {
            StepOutcome::Changed => format!("lancet: {}", self.summary_line()),
            StepOutcome::HeldBack => format!("[draft] lancet: {}", self.summary_line()),
            other => format!("lancet: {} in {}", other.label(), self.repository),
        }
    }

    fn summary_line(&self) -> String {
        let n = self.written().len();
        format!("{n} file(s) changed in {}", self.repository)
    }

    /// The summary of many repositories' reports, in Markdown: how many each outcome, and a line
    /// per repository that was not simply changed or already done, with why.
    pub fn summary(reports: &[StepReport]) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| outcome | repositories |");
        let _ = writeln!(out, "|---|---|");
        for outcome in StepOutcome::ALL {
            let n = reports.iter().filter(|r| r.outcome == outcome).count();
            let _ = writeln!(out, "| {} | {n} |", outcome.label());
        }
        let _ = writeln!(out, "| **total** | {} |", reports.len());
        let attention: Vec<&StepReport> = reports
            .iter()
            .filter(|r| r.outcome.needs_attention())
            .collect();
        if !attention.is_empty() {
            let _ = writeln!(out);
            let _ = writeln!(out, "| repository | outcome | why |");
            let _ = writeln!(out, "|---|---|---|");
            for r in attention {
                let reason = r.reason().unwrap_or_default().replace('|', "\\|");
                let _ = writeln!(
                    out,
                    "| {} | {} | {reason} |",
                    r.repository,
                    r.outcome.label()
                );
            }
        }
        out
    }
}

/// The first sentence of a text (up to its first line end or `. `), at most 160 characters.
fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let end = line.find(". ").map_or(line.len(), |at| at + 1);
    let sentence = &line[..end];
    match sentence.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &sentence[..at]),
        None => sentence.to_string(),
    }
}

/// `text` as a Markdown code span: fenced by more backticks than it holds in a row, with a
/// space inside when it starts or ends with one.
fn code_span(text: &str) -> String {
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

#[cfg(test)]
mod tests {
    use crate::report::{StepOutcome, StepReport};

    const PARTIAL: &str = r#"{
        "status": "partial",
        "files": [
            {"path": "a.py", "action": "update", "status": "applied"},
            {"path": "b.py", "action": "update", "status": "held_back"}
        ],
        "test": {
            "command": "pytest -q",
            "passed": true,
            "bisect": {"culprits": [
                {"paths": ["b.py"], "exit_code": 1, "output": "x\nFAILED test_b.py::test_one\n\n"}
            ]}
        },
        "message": "Applied in part.",
        "provenance": {"lancet_version": "0.1.0", "root": "/r", "repository": "acme/r",
            "base_commit": "abc", "edit_sha256": "0123456789abcdef", "duration_ms": 7}
    }"#;

    #[test]
    fn a_partial_report_is_a_draft_naming_what_was_held_back_and_why() {
        let r = StepReport::parse("r.json", PARTIAL).unwrap();
        assert_eq!(r.outcome, StepOutcome::HeldBack);
        let pr = r.pull_request();
        assert!(
            pr.starts_with("## [draft] lancet: 1 file(s) changed in acme/r"),
            "{pr}"
        );
        assert!(pr.contains("- `a.py` (update)"), "{pr}");
        assert!(pr.contains("### Tests\n`pytest -q`: passed"), "{pr}");
        assert!(pr.contains(", 7 ms; no checkpoint.</sub>"), "{pr}");
        assert!(
            pr.contains(
                "- `b.py`: the tests failed with it (exit 1): `FAILED test_b.py::test_one`"
            ),
            "{pr}"
        );
        let summary = StepReport::summary(&[r]);
        assert!(summary.contains("| held back | 1 |"), "{summary}");
        assert!(
            summary.contains("| acme/r | held back | held back: b.py |"),
            "{summary}"
        );
    }

    #[test]
    fn a_mod_s_sites_are_shown_as_written_in_code_spans() {
        let json = r#"{
            "status": "applied",
            "files": [{"path": "app.ts", "action": "update", "status": "applied"}],
            "mod": {"sites": [
                {"path": "app.ts", "line": 5, "before": "log(\"a\", b)", "after": "info(`a`, b)"}
            ]},
            "message": "Applied."
        }"#;
        let pr = StepReport::parse("r.json", json).unwrap().pull_request();
        assert!(
            pr.contains("- `app.ts:5`: `log(\"a\", b)` → `` info(`a`, b) ``"),
            "{pr}"
        );
    }
}
