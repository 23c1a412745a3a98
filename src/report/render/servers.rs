//! What a rename's language servers did, in words: why one refused or could not run, why none
//! runs for a file or a language, and what each did about the sites lancet left undecided.

use super::refused::{RefusalWords, refused};
use crate::report::{
    BadMessage, NotDecided, ServerMissing, ServerRefusal, ServerTrouble, Surface, UndecidedBy,
};
use lancet_core::kinds::ErrorKind;

/// The language server's refusal.
pub(super) fn server_words(refusal: &ServerRefusal) -> RefusalWords {
    match refusal {
        ServerRefusal::NoSandbox { why } => refused(
            ErrorKind::Sandbox,
            format!(
                "the language server must run in lancet's sandbox, which cannot be built here: {why}"
            ),
            "Nothing was written. Rename without lsp, or ask the user to run the server where Landlock is available.",
        ),
        ServerRefusal::NoServer { path, missing } => refused(
            ErrorKind::Usage,
            no_server(path, missing.as_ref()),
            "Install the language server outside the project (Python: `pip install basedpyright`; JavaScript/TypeScript: `npm install -g typescript-language-server typescript`; Rust: `rustup component add rust-analyzer`), or rename without --lsp.",
        ),
        ServerRefusal::Failed { trouble } => refused(
            ErrorKind::Io,
            server_trouble(trouble),
            "Nothing was written. Check the language server (it must index the project), or rename without --lsp.",
        ),
        ServerRefusal::Refuses {
            server,
            name,
            place,
        } => refused(
            ErrorKind::NoMatch,
            format!("{server} says `{name}` at {place} cannot be renamed"),
            "Point --at at a symbol the project defines.",
        ),
    }
}

/// What one language server did about the undecided sites, as a line of the refusal.
pub(super) fn server_said(s: &UndecidedBy, surface: Surface) -> String {
    match &s.why {
        NotDecided::Off => format!("\n{} would decide them; asking it is off", s.server),
        NotDecided::Missing(why) => format!(
            "\n{} would decide them: {}",
            s.server,
            why.as_ref().map_or_else(
                || "lancet knows no server for it".to_string(),
                server_missing
            )
        ),
        NotDecided::CannotAsk(ServerRefusal::NoServer { path, missing }) => format!(
            "\n{} would decide them: {}",
            s.server,
            no_server(path, missing.as_ref())
        ),
        NotDecided::CannotAsk(ServerRefusal::Failed { trouble }) => format!(
            "\n{} was asked and failed: {}",
            s.server,
            server_trouble(trouble)
        ),
        NotDecided::CannotAsk(ServerRefusal::NoSandbox { why }) => format!(
            "\n{} was asked and failed: lancet's sandbox cannot be built here ({why}), and the server runs only in it",
            s.server
        ),
        NotDecided::CannotAsk(refusal @ ServerRefusal::Refuses { .. }) => format!(
            "\n{} was asked and failed: {}",
            s.server,
            server_words(refusal).2
        ),
        NotDecided::CouldNotTell => {
            format!("\n{} was asked and could not tell for these", s.server)
        }
        NotDecided::NotAsked(at) => format!(
            "\n{} was not asked: {at} stays undecided and stops the rename already ({} asks about every site)",
            s.server,
            surface.switch("--leave-unresolved")
        ),
        NotDecided::Stopped { at, not_asked } => format!(
            "\n{} was asked and could not tell for {at}; one undecided site stops the rename, so the {not_asked} site(s) after it were not asked ({} asks about every site)",
            s.server,
            surface.switch("--leave-unresolved")
        ),
        NotDecided::NotItsSites(what) => format!(
            "\n{} does not rename {what}: lancet decides those sites, and could not decide these",
            s.server
        ),
        NotDecided::LeftThem => format!(
            "\n{}'s rename leaves the sites lancet's own resolver reads as this symbol: one of the two is wrong there, and lancet does not pick one ({} renames them, {} leaves them)",
            s.server,
            surface.switch("--include-unresolved"),
            surface.switch("--leave-unresolved")
        ),
    }
}

/// What went wrong with a language server, in words: a rename's refusal, or why the server did
/// not decide a site.
pub(super) fn server_trouble(trouble: &ServerTrouble) -> String {
    match trouble {
        ServerTrouble::CannotStart { program, error } => format!("cannot start {program}: {error}"),
        ServerTrouble::StoppedReading(error) => {
            format!("the language server stopped reading: {error}")
        }
        ServerTrouble::Refused {
            server,
            method,
            message,
            loading,
        } => format!(
            "{server} refused {method}: {message}{}",
            if *loading { " (still loading)" } else { "" }
        ),
        ServerTrouble::Silent {
            server,
            during,
            seconds,
        } => format!("{server} did not answer {during} within {seconds} s"),
        ServerTrouble::Exited { server, during } => format!("{server} exited during {during}"),
        ServerTrouble::Unreadable { server, message } => match message {
            BadMessage::Unframed => format!("{server} sent a message without a Content-Length"),
            BadMessage::TooLarge { bytes, cap_mib } => format!(
                "{server} sent a message of {bytes} bytes, over lancet's cap of {cap_mib} MiB"
            ),
            BadMessage::NotJson(error) => {
                format!("{server} sent a message that is not JSON: {error}")
            }
        },
        ServerTrouble::StartUnnamed(why) => why.clone(),
        ServerTrouble::StartUnreadable(path) => format!("{path} cannot be read"),
        ServerTrouble::ChangesFiles { kind, uri } => format!(
            "the language server's rename {kind}s a file ({uri}); lancet renames identifiers only"
        ),
        ServerTrouble::EditsNonFile(uri) => {
            format!("the language server edits {uri}, which is not a file")
        }
        ServerTrouble::EditsOutside(path) => {
            format!("the language server edits {path}, outside the root")
        }
        ServerTrouble::EditsUnnamed { path, error } => {
            format!("the language server edits {path}: {error}")
        }
        ServerTrouble::EditedUnreadable(path) => {
            format!("{path} (edited by the language server) cannot be read")
        }
        ServerTrouble::EditedNotUtf8(path) => {
            format!("{path} (edited by the language server) is not UTF-8")
        }
        ServerTrouble::EditOutsideFile(path) => {
            format!("the language server's edit of {path} is outside the file")
        }
        ServerTrouble::NotARename {
            path,
            put,
            replaced,
            old,
            new,
        } => format!(
            "the language server's edit of {path} puts {put:?} in place of {replaced:?}, which is not renaming `{old}` to `{new}`"
        ),
    }
}

/// Why no language server runs for `path`, in words.
pub(super) fn no_server(path: &str, missing: Option<&ServerMissing>) -> String {
    match missing {
        None => format!("lancet knows no language server for {path}"),
        Some(why) => format!("{}, for {path}", server_missing(why)),
    }
}

/// Why no language server can run for a language here, in words.
pub(super) fn server_missing(why: &ServerMissing) -> String {
    match why {
        ServerMissing::NotOnPath(names) => {
            format!("no {} on PATH (outside the project)", names.join(" or "))
        }
        ServerMissing::NoPython(server) => format!(
            "{server} runs a Python interpreter, and there is no python3 or python on PATH outside the project (it would look for one in the project)"
        ),
        ServerMissing::NoTypeScript { server, program } => format!(
            "{server} ({program}) has no TypeScript installed beside it, and lancet never lets it use one under the project (install it beside the server: `npm install -g typescript`)"
        ),
        ServerMissing::NoGo(server) => {
            format!("{server} runs the go command, and there is no go on PATH outside the project")
        }
        ServerMissing::RustupUnrunnable(error) => format!("cannot run rustup: {error}"),
        ServerMissing::RustupSilent(seconds) => {
            format!("rustup did not answer within {seconds} s")
        }
        ServerMissing::RustupNoToolchain => "rustup has no default toolchain".to_string(),
        ServerMissing::ProxyWithoutToolchain(server) => format!(
            "{server} on PATH is rustup's proxy, and rustup has no default toolchain to resolve it in"
        ),
        ServerMissing::NoRustAnalyzer(toolchain) => format!(
            "rust-analyzer on PATH is rustup's proxy, and the toolchain {toolchain} has no rust-analyzer (`rustup component add rust-analyzer`)"
        ),
        ServerMissing::Unresolvable(error) => error.clone(),
        ServerMissing::UnderProject => {
            "rust-analyzer resolves to a program under the project".to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_s_trouble_is_worded_with_what_it_said() {
        let refused = |loading| ServerTrouble::Refused {
            server: "pyright".into(),
            method: "textDocument/rename".into(),
            message: "no symbol".into(),
            loading,
        };
        assert_eq!(
            server_trouble(&refused(false)),
            "pyright refused textDocument/rename: no symbol"
        );
        assert_eq!(
            server_trouble(&refused(true)),
            "pyright refused textDocument/rename: no symbol (still loading)"
        );
        let huge = ServerTrouble::Unreadable {
            server: "gopls".into(),
            message: BadMessage::TooLarge {
                bytes: 70_000_000,
                cap_mib: 64,
            },
        };
        assert_eq!(
            server_trouble(&huge),
            "gopls sent a message of 70000000 bytes, over lancet's cap of 64 MiB"
        );
        let wrong = ServerTrouble::NotARename {
            path: "a.py".into(),
            put: "y".into(),
            replaced: "xx".into(),
            old: "x".into(),
            new: "y".into(),
        };
        assert_eq!(
            server_trouble(&wrong),
            "the language server's edit of a.py puts \"y\" in place of \"xx\", which is not renaming `x` to `y`"
        );
    }

    #[test]
    fn a_missing_server_is_worded_for_the_file_it_was_wanted_for() {
        assert_eq!(
            no_server("a.ex", None),
            "lancet knows no language server for a.ex"
        );
        let path = ServerMissing::NotOnPath(vec![
            "basedpyright-langserver".into(),
            "pyright-langserver".into(),
        ]);
        assert_eq!(
            no_server("a.py", Some(&path)),
            "no basedpyright-langserver or pyright-langserver on PATH (outside the project), for a.py"
        );
        assert_eq!(
            server_missing(&ServerMissing::RustupSilent(120)),
            "rustup did not answer within 120 s"
        );
    }
}
