//! `lancet trust`: the root's lancet settings trusted as they are now (or the trust revoked).

use clap::Args;
use lancet::Root;
use std::io::Write;

#[derive(Debug, Args)]
pub(super) struct TrustArgs {
    /// Forget the trust instead: the settings' guarded keys are ignored again.
    #[arg(long)]
    pub(super) revoke: bool,
}

/// `lancet trust`: shows the person the settings' guarded keys and records their trust (or
/// forgets it).
pub(super) fn run_trust(root: &Root, revoke: bool) -> u8 {
    let person = lancet::surfaces::PersonFiles::locate(Some(root));
    if revoke {
        return match person.revoke(root) {
            Ok(true) => {
                println!(
                    "Trust in the settings of {} revoked: their guarded keys are ignored again.",
                    root.path().display()
                );
                0
            }
            Ok(false) => {
                println!("{} had no trusted settings.", root.path().display());
                0
            }
            Err(e) => {
                eprintln!("lancet trust: {e}");
                4
            }
        };
    }
    let settings = match lancet::surfaces::RepositorySettings::read(root) {
        Ok((Some(settings), _)) => settings,
        Ok((None, _)) => {
            println!(
                "{} has no lancet settings (lancet.toml, or [tool.lancet] in pyproject.toml): nothing to trust.",
                root.path().display()
            );
            return 0;
        }
        Err(e) => {
            eprintln!("lancet trust: {e}");
            return 2;
        }
    };
    match person.record(root, settings.source, &settings.digest) {
        Ok(at) => {
            let guarded = settings.config.guarded_values();
            let mut out = format!(
                "Trusted {} of {} as it is now (sha256 {}).
",
                settings.source,
                root.path().display(),
                &settings.digest[..16]
            );
            if guarded.is_empty() {
                out.push_str(
                    "It sets none of the keys that run commands or weaken safety.
",
                );
            } else {
                out.push_str(
                    "These keys, which run commands or weaken safety, now apply:
",
                );
                for (key, value) in guarded {
                    out.push_str(&format!(
                        "  {key} = {value}
"
                    ));
                }
            }
            out.push_str(&format!(
                "Recorded in {}. Any change to the settings makes them untrusted again.
",
                at.display()
            ));
            let _ = std::io::stdout().write_all(out.as_bytes());
            0
        }
        Err(e) => {
            eprintln!("lancet trust: {e}");
            4
        }
    }
}
