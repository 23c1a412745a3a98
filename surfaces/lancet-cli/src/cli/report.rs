//! `lancet report`: the JSON reports a fleet engine kept (one per repository, `--json
//! --provenance`) read back as a pull-request description (one report) or a summary table
//! (many).

use lancet::surfaces::StepReport;
use std::io::Write;
use std::path::PathBuf;

// Which reports to read and what to print. (A plain comment: clap would take a doc comment
// for the command's about, over the one `Command::Report` gives.)
#[derive(Debug, clap::Args)]
pub(super) struct ReportArgs {
    /// The reports (`lancet ... --json` output, one per file; `-` reads one from stdin).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print the summary table even for one report.
    #[arg(long)]
    summary: bool,
}

/// Prints one report as a pull-request description, many as a summary; a file that is no
/// lancet report is refused by name (exit 2) and nothing is printed.
pub(super) fn run_report(args: &ReportArgs) -> u8 {
    let mut reports = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let name = file.display().to_string();
        let text = if name == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map(|_| text)
        } else {
            std::fs::read_to_string(file)
        };
        let parsed = text
            .map_err(|e| format!("{name}: cannot read it ({e})"))
            .and_then(|text| StepReport::parse(&name, &text).map_err(|e| e.to_string()));
        match parsed {
            Ok(report) => reports.push(report),
            Err(why) => {
                eprintln!(
                    "lancet report: {why}\nPass the JSON reports lancet printed (lancet apply|mod|rename --json --provenance > FILE)."
                );
                return 2;
            }
        }
    }
    let text = match reports.as_slice() {
        [one] if !args.summary => one.pull_request(),
        many => StepReport::summary(many),
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    0
}
