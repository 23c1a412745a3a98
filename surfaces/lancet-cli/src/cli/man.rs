//! `lancet man`: one manual page holding every command — its synopsis, what it does and its
//! options — so the page cites no `lancet-apply(1)` page that is not installed (clap_mangen's
//! own page lists subcommands as such pages).

use std::io::Write;

/// The roff clap_mangen puts before every section it renders on its own (the apostrophe
/// preamble): kept once, at the top.
const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// Writes the page for `cmd` (the built top-level command) to `w`.
pub(super) fn render(cmd: clap::Command, w: &mut dyn Write) -> std::io::Result<()> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let top = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    let mut page = String::from_utf8_lossy(&page).into_owned();
    page.push_str(".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        page.push_str(&command_section(sub)?);
    }
    let mut version = Vec::new();
    top.render_version_section(&mut version)?;
    page.push_str(&String::from_utf8_lossy(&version));
    let body = page.replace(PREAMBLE, "");
    w.write_all(PREAMBLE.as_bytes())?;
    w.write_all(body.as_bytes())
}

/// One command's part of the page: a subsection named by its usage, what it does, and its
/// arguments and options.
fn command_section(sub: &clap::Command) -> std::io::Result<String> {
    let man = clap_mangen::Man::new(sub.clone());
    let (mut synopsis, mut description, mut options) = (Vec::new(), Vec::new(), Vec::new());
    man.render_synopsis_section(&mut synopsis)?;
    man.render_description_section(&mut description)?;
    man.render_options_section(&mut options)?;
    let text = |bytes: Vec<u8>, heading: &str| {
        String::from_utf8_lossy(&bytes)
            .replace(PREAMBLE, "")
            .replacen(heading, "", 1)
    };
    Ok(format!(
        ".SS \"lancet {}\"\n{}.PP\n{}{}",
        sub.get_name(),
        text(synopsis, ".SH SYNOPSIS\n"),
        text(description, ".SH DESCRIPTION\n"),
        text(options, ".SH OPTIONS\n"),
    ))
}
