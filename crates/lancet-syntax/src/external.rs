//! The optional external checks: a language's own compiler or interpreter, run on changed files
//! (batched over `{files}` where the command takes many), found on a trusted `PATH` only, and
//! run contained ([`lancet_process`]): nothing a check starts outlives it.

use crate::job::Job;
use crate::languages::LanguageEntry;
use crate::options::GateOptions;
use crate::site::{Lines, Site};
use lancet_core::SyntaxError;
use rayon::prelude::*;
use std::process::Command;
use std::time::Duration;

/// Longest an external check may run.
const CHECK_BUDGET: Duration = Duration::from_secs(30);

/// How many files one run of a multi-file check command (`{files}`) takes at most.
const FILES_PER_CHECK: usize = 1024;

/// `language`'s external check command, when the configuration asks for it, its tool is
/// installed and it can run contained.
pub(crate) fn external_command<'l>(
    language: &'l LanguageEntry,
    opts: &GateOptions,
) -> Option<&'l Vec<String>> {
    language.check.as_ref().filter(|c| {
        opts.external_for(&language.name)
            && c.first().is_some_and(|tool| tool_installed(tool))
            && lancet_process::available().is_ok()
    })
}

/// Runs a compiler check over files tree-sitter found clean. A command taking `{files}` runs
/// once per chunk (one interpreter start for hundreds of files), chunks in parallel. When a
/// chunk fails, the files its output names are checked alone; see [`narrow_checks`]. Each error
/// found is returned with whether the edit introduced it (the old content passed) or not.
pub(crate) fn compile_checks(language: &LanguageEntry, jobs: &[&Job]) -> Vec<(bool, SyntaxError)> {
    let Some(command) = language.check.as_deref() else {
        return Vec::new();
    };
    let reports_all = language.check_reports_all;
    let batched = command.iter().any(|a| a == "{files}");
    let chunk = if batched {
        jobs.len()
            .div_ceil(rayon::current_num_threads())
            .clamp(1, FILES_PER_CHECK)
    } else {
        1
    };
    jobs.par_chunks(chunk)
        .flat_map_iter(|chunk| narrow_checks(command, reports_all, chunk))
        .collect()
}

/// The failures among `jobs`, from one run over all of them. When that run fails, the files its
/// output names are checked alone (for their error and their old content). With a command that
/// `reports_all` (checks every file and names each failure), the others passed; otherwise
/// those before the last one named passed (checkers go in argument order) and those after it
/// are checked again together, since the checker may have stopped at its first failure. A
/// failure naming no file is halved. So a failing file costs a few runs, not one per halving.
fn narrow_checks(command: &[String], reports_all: bool, jobs: &[&Job]) -> Vec<(bool, SyntaxError)> {
    if let [job] = jobs {
        return one_compile_check(command, job).into_iter().collect();
    }
    if jobs.is_empty() {
        return Vec::new();
    }
    match external_check_many(command, jobs) {
        Some(Checked::Passed) => Vec::new(),
        Some(Checked::Failed(named)) if !named.is_empty() => {
            let unchecked = match named.last() {
                Some(&last) if !reports_all => &jobs[last + 1..],
                _ => &[],
            };
            let failed: Vec<&Job> = named.iter().map(|&i| jobs[i]).collect();
            let (mut found, rest) = rayon::join(
                || {
                    failed
                        .par_iter()
                        .flat_map_iter(|job| one_compile_check(command, job))
                        .collect::<Vec<_>>()
                },
                || narrow_checks(command, reports_all, unchecked),
            );
            found.extend(rest);
            found
        }
        _ => {
            let (left, right) = jobs.split_at(jobs.len() / 2);
            let (mut a, b) = rayon::join(
                || narrow_checks(command, reports_all, left),
                || narrow_checks(command, reports_all, right),
            );
            a.extend(b);
            a
        }
    }
}

/// What one run of a check command over several files said.
enum Checked {
    Passed,
    /// It failed; the indexes (in argument order) of the files its output names.
    Failed(Vec<usize>),
}

/// One file's compiler check: the error, and whether the edit introduced it.
fn one_compile_check(command: &[String], job: &Job) -> Option<(bool, SyntaxError)> {
    let Some(Err(site)) = external_check(command, job.path, job.after) else {
        return None;
    };
    let also_before = job
        .before
        .and_then(|b| external_check(command, job.path, b))
        .is_some_and(|r| r.is_err());
    let checker = command.first().cloned().unwrap_or_default();
    Some((
        !also_before,
        site.into_error(job.path, &Lines::new(job.after), &checker),
    ))
}

/// Runs a `{files}` check command once over several files' new content; `None` when it could
/// not run.
fn external_check_many(command: &[String], jobs: &[&Job]) -> Option<Checked> {
    let dir = tempfile::tempdir().ok()?;
    let mut files = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let sub = dir.path().join(i.to_string());
        std::fs::create_dir(&sub).ok()?;
        let file = sub.join(job.path.rsplit('/').next().unwrap_or("file"));
        std::fs::write(&file, job.after).ok()?;
        files.push(file.to_string_lossy().into_owned());
    }
    let args: Vec<String> = command[1..]
        .iter()
        .flat_map(|a| match a.as_str() {
            "{files}" => files.clone(),
            _ => vec![a.clone()],
        })
        .collect();
    let (status, output) = run_bounded(&command[0], &args, dir.path())?;
    if status.success() {
        return Some(Checked::Passed);
    }
    // Each temp file sits alone in a directory named by its index, so no path is a prefix of
    // another's.
    Some(Checked::Failed(
        files
            .iter()
            .enumerate()
            .filter(|(_, f)| output.contains(f.as_str()))
            .map(|(i, _)| i)
            .collect(),
    ))
}

/// Runs a check program in `dir` within the check budget, contained (nothing it starts outlives
/// it); its status and combined output, `None` when it could not run or ran out of time.
fn run_bounded(
    program: &str,
    args: &[String],
    dir: &std::path::Path,
) -> Option<(std::process::ExitStatus, String)> {
    let mut command = Command::new(find_program(program)?);
    command.args(args).current_dir(dir);
    let finished = lancet_process::output(command, CHECK_BUDGET).ok()??;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&finished.stdout),
        String::from_utf8_lossy(&finished.stderr)
    );
    Some((finished.status, text))
}

/// Whether a program can be run (found on PATH).
pub(crate) fn tool_installed(tool: &str) -> bool {
    find_program(tool).is_some()
}

/// Directories whose programs are never run as checks: roots a model may write (an activated
/// `.venv/bin` on `PATH` must not make the model's `python3` the judge, unsandboxed).
static DISTRUSTED: std::sync::RwLock<Vec<std::path::PathBuf>> = std::sync::RwLock::new(Vec::new());

/// Never runs a check program found under `dir`: `PATH` entries inside it are skipped.
pub fn distrust_programs_under(dir: &std::path::Path) {
    if let Ok(mut d) = DISTRUSTED.write()
        && !d.iter().any(|x| x == dir)
    {
        d.push(dir.to_path_buf());
    }
}

/// A program by name on `PATH` (absolute entries only, none under a distrusted directory), as
/// an absolute path.
fn find_program(name: &str) -> Option<std::path::PathBuf> {
    let distrusted = DISTRUSTED.read().map(|d| d.clone()).unwrap_or_default();
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .filter(|dir| dir.is_absolute())
        .filter(|dir| {
            let real = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            !distrusted
                .iter()
                .any(|d| real.starts_with(d) || dir.starts_with(d))
        })
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Runs a language's check command on `content` (written to a temp file named like the
/// original). `None` when the tool is missing or cannot run; `Some(Err)` with where it failed.
pub(crate) fn external_check(
    command: &[String],
    path: &str,
    content: &[u8],
) -> Option<Result<(), Site>> {
    let program = command.first()?;
    if !tool_installed(program) {
        return None;
    }
    let dir = tempfile::tempdir().ok()?;
    let name = path.rsplit('/').next().unwrap_or("file");
    let file = dir.path().join(name);
    std::fs::write(&file, content).ok()?;
    let args: Vec<String> = command[1..]
        .iter()
        .map(|a| {
            a.replace("{files}", &file.to_string_lossy())
                .replace("{file}", &file.to_string_lossy())
        })
        .collect();
    let (status, output) = run_bounded(program, &args, dir.path())?;
    if status.success() {
        return Some(Ok(()));
    }
    let text = output.replace(&file.to_string_lossy().into_owned(), path);
    let line = text
        .split("line ")
        .skip(1)
        .find_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<usize>().ok()
        })
        .unwrap_or(1);
    let verdict = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("failed")
        .trim()
        .to_string();
    Some(Err(Site {
        line: line.saturating_sub(1),
        column: 0,
        end: (line, 0),
        kind: verdict,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A language whose check command is a shell script over `{files}` that counts its runs.
    fn scripted_check(script: &str, reports_all: bool) -> LanguageEntry {
        LanguageEntry {
            name: "fake".into(),
            grammar: "none".into(),
            extensions: Vec::new(),
            file_names: Vec::new(),
            shebangs: Vec::new(),
            check: Some(
                ["sh", "-c", script, "sh", "{files}"]
                    .map(String::from)
                    .to_vec(),
            ),
            check_reports_all: reports_all,
            queries: Vec::new(),
            keywords: Vec::new(),
            unconfirmed: None,
        }
    }

    #[test]
    fn failing_files_are_found_from_what_the_checker_names() {
        let counter = tempfile::NamedTempFile::new().unwrap();
        let count = counter.path().display().to_string();
        let runs = || std::fs::read_to_string(&count).unwrap().lines().count();
        let name = |f: &str| format!("echo \"  File \\\"{f}\\\", line 1\"");
        // Stops at its first failure, naming it; checks and names every failure; names none.
        let first_only = format!(
            "echo run >> {count}; for f; do if grep -q BAD \"$f\"; then {}; exit 1; fi; done",
            name("$f")
        );
        let every = format!(
            "echo run >> {count}; r=0; for f; do if grep -q BAD \"$f\"; then {}; r=1; fi; done; exit $r",
            name("$f")
        );
        let silent =
            format!("echo run >> {count}; for f; do grep -q BAD \"$f\" && exit 1; done; exit 0");
        let paths: Vec<String> = (0..6).map(|i| format!("f{i}.txt")).collect();
        let jobs: Vec<Job> = paths
            .iter()
            .enumerate()
            .map(|(i, path)| Job {
                path,
                before: Some(if i == 4 { b"BAD" } else { b"ok" }),
                after: match i {
                    1 => b"BAD new",
                    4 => b"BAD old",
                    _ => b"ok",
                },
                prechecked: None,
            })
            .collect();
        let refs: Vec<&Job> = jobs.iter().collect();
        // (script, reports_all, runs: the chunk, each failure alone twice (new and old
        // content), and for the stopping checker the files after each failure again)
        for (script, reports_all, expected_runs) in [
            (&every, true, Some(5)),
            (&first_only, false, Some(7)),
            (&silent, false, None),
        ] {
            std::fs::write(&count, "").unwrap();
            let command = scripted_check(script, reports_all);
            let mut found: Vec<(bool, String, usize)> =
                narrow_checks(command.check.as_deref().unwrap(), reports_all, &refs)
                    .into_iter()
                    .map(|(new, e)| (new, e.path, e.line))
                    .collect();
            found.sort_by(|a, b| a.1.cmp(&b.1));
            assert_eq!(
                found,
                [
                    (true, "f1.txt".to_string(), 1),
                    (false, "f4.txt".to_string(), 1)
                ],
                "{script}"
            );
            if let Some(expected) = expected_runs {
                assert_eq!(runs(), expected, "{script}");
            }
        }
    }
}
