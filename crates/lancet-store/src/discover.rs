//! Which repository holds a root, found as git finds it from there, so lancet's state and
//! checkpoints go where the person's git looks.
//!
//! git's rules: `GIT_DIR` names the git directory outright (no search); else git searches
//! upwards from the directory, stopping at `GIT_CEILING_DIRECTORIES` and, unless
//! `GIT_DISCOVERY_ACROSS_FILESYSTEM` says otherwise, at a file system boundary. The work tree
//! is `GIT_WORK_TREE` (relative to the current directory), else `core.worktree` (relative to the
//! git directory), else the directory holding a discovered `.git`; with `GIT_DIR` and neither,
//! a bare repository has none and any other has the current directory. So a bare "dotfiles"
//! repository (`GIT_DIR=~/.dotfiles GIT_WORK_TREE=~`) holds every root under `~`.
//!
//! libgit2 applies only part of this: given a start path it does not read `GIT_DIR` nor the
//! ceilings, and it gives a bare repository no work tree whatever `GIT_WORK_TREE` says. So the
//! rules are written here, and libgit2 only opens what they name.

use git2::{Repository, RepositoryOpenFlags};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment git reads to find a repository, taken once so the rules can be tested
/// without touching the process's own.
#[derive(Debug, Clone, Default)]
pub(crate) struct GitEnv {
    /// `GIT_DIR`: the git directory, no search.
    pub git_dir: Option<OsString>,
    /// `GIT_WORK_TREE`: the work tree, whatever the repository says.
    pub work_tree: Option<OsString>,
    /// `GIT_CEILING_DIRECTORIES`: directories the search never goes above.
    pub ceilings: Vec<PathBuf>,
    /// `GIT_DISCOVERY_ACROSS_FILESYSTEM`: whether the search crosses a file system boundary.
    pub across_filesystems: bool,
    /// The current directory, which relative `GIT_DIR` and `GIT_WORK_TREE` start from.
    pub cwd: PathBuf,
}

impl GitEnv {
    /// The process's environment (an empty variable counts as unset).
    pub(crate) fn of_process() -> GitEnv {
        let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        GitEnv {
            git_dir: set("GIT_DIR"),
            work_tree: set("GIT_WORK_TREE"),
            ceilings: set("GIT_CEILING_DIRECTORIES")
                .map(|v| std::env::split_paths(&v).collect())
                .unwrap_or_default(),
            across_filesystems: set("GIT_DISCOVERY_ACROSS_FILESYSTEM")
                .and_then(|v| git2::Config::parse_bool(v.to_string_lossy().as_ref()).ok())
                .unwrap_or(false),
            cwd: std::env::current_dir().unwrap_or_default(),
        }
    }

    fn absolute(&self, path: &OsString) -> PathBuf {
        self.cwd.join(path)
    }
}

/// What git finds for a root.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// No repository, or one whose work tree does not hold the root.
    Nothing,
    /// The repository holding the root: its git directory and its work tree, both canonical.
    Repository {
        /// The git directory.
        git_dir: PathBuf,
        /// The work tree, the root at or below it.
        work_tree: PathBuf,
    },
    /// A setup git itself refuses to work in: lancet cannot tell which repository is meant.
    Refused {
        /// The git directory `GIT_DIR` names, as named.
        git_dir: PathBuf,
        /// Why, in a sentence.
        why: String,
    },
}

/// The repository holding `root` (canonical) as git finds it with `env`.
#[cfg(test)]
pub(crate) fn repository_for(root: &Path, env: &GitEnv) -> Found {
    found_and_opened(root, env).0
}

/// [`repository_for`], with the repository as opened when one holds the root (kept for the
/// checkpoints: opening it again reads its configuration again).
pub(crate) fn found_and_opened(root: &Path, env: &GitEnv) -> (Found, Option<Repository>) {
    let (repo, named) = match &env.git_dir {
        Some(named) => {
            let git_dir = env.absolute(named);
            let flags = RepositoryOpenFlags::NO_SEARCH | RepositoryOpenFlags::NO_DOTGIT;
            match Repository::open_ext(&git_dir, flags, std::iter::empty::<&Path>()) {
                Ok(repo) => (repo, Some(git_dir)),
                Err(e) => {
                    let why = format!(
                        "GIT_DIR names {}, which git cannot open as a repository ({}), so git refuses to run here too",
                        git_dir.display(),
                        e.message()
                    );
                    return (Found::Refused { git_dir, why }, None);
                }
            }
        }
        None => {
            let flags = if env.across_filesystems {
                RepositoryOpenFlags::CROSS_FS
            } else {
                RepositoryOpenFlags::empty()
            };
            match Repository::open_ext(root, flags, &env.ceilings) {
                Ok(repo) => (repo, None),
                // Not found, or a repository libgit2 will not open (another user's, a format
                // it does not read): as before, lancet keeps its state at the root.
                Err(_) => return (Found::Nothing, None),
            }
        }
    };
    let work_tree = match work_tree(&repo, named.as_deref(), env) {
        Ok(Some(work_tree)) => work_tree,
        Ok(None) => return (Found::Nothing, None),
        Err(why) => {
            let git_dir = named.unwrap_or_else(|| repo.path().to_path_buf());
            return (Found::Refused { git_dir, why }, None);
        }
    };
    match (repo.path().canonicalize(), work_tree.canonicalize()) {
        (Ok(git_dir), Ok(work_tree)) if root.starts_with(&work_tree) => {
            (Found::Repository { git_dir, work_tree }, Some(repo))
        }
        _ => (Found::Nothing, None),
    }
}

/// The repository's work tree as git takes it: `GIT_WORK_TREE`, else (for a repository
/// `GIT_DIR` named) `core.worktree` or the current directory, else what libgit2 found (the
/// directory holding `.git`, `core.worktree`, a linked worktree's own). `None`: a bare
/// repository without one; an error: a setup git refuses.
fn work_tree(
    repo: &Repository,
    named: Option<&Path>,
    env: &GitEnv,
) -> Result<Option<PathBuf>, String> {
    if let Some(work_tree) = &env.work_tree {
        return Ok(Some(env.absolute(work_tree)));
    }
    let Some(named) = named else {
        return Ok(repo.workdir().map(Path::to_path_buf));
    };
    let configured = repo
        .config()
        .and_then(|c| c.get_string("core.worktree"))
        .is_ok();
    if repo.is_bare() {
        return if configured {
            Err(format!(
                "the repository GIT_DIR names ({}) is bare (core.bare) yet names a work tree (core.worktree), which git refuses as an invalid setup",
                named.display()
            ))
        } else {
            Ok(None)
        };
    }
    if configured || repo.is_worktree() {
        return Ok(repo.workdir().map(Path::to_path_buf));
    }
    Ok(Some(env.cwd.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit-less repository: `git init` (bare or not) is all discovery needs.
    fn init(path: &Path, bare: bool) -> Repository {
        if bare {
            Repository::init_bare(path).unwrap()
        } else {
            Repository::init(path).unwrap()
        }
    }

    fn canonical(path: &Path) -> PathBuf {
        path.canonicalize().unwrap()
    }

    #[test]
    fn a_bare_repository_named_by_git_dir_holds_the_work_tree_git_work_tree_names() {
        let home = tempfile::tempdir().unwrap();
        let home = canonical(home.path());
        init(&home.join(".dotfiles"), true);
        std::fs::create_dir(home.join("src")).unwrap();
        let env = GitEnv {
            git_dir: Some(home.join(".dotfiles").into()),
            work_tree: Some(home.clone().into()),
            cwd: PathBuf::from("/"),
            ..GitEnv::default()
        };
        let found = Found::Repository {
            git_dir: home.join(".dotfiles"),
            work_tree: home.clone(),
        };
        assert_eq!(repository_for(&home, &env), found);
        assert_eq!(repository_for(&home.join("src"), &env), found);
        // Without the variables nothing is found: `~` holds no `.git`.
        assert_eq!(repository_for(&home, &GitEnv::default()), Found::Nothing);
        // Relative variables start from the current directory.
        let relative = GitEnv {
            git_dir: Some(".dotfiles".into()),
            work_tree: Some(".".into()),
            cwd: home.clone(),
            ..GitEnv::default()
        };
        assert_eq!(repository_for(&home.join("src"), &relative), found);
        // A root outside the work tree is not the repository's.
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(
            repository_for(&canonical(elsewhere.path()), &env),
            Found::Nothing
        );
    }

    #[test]
    fn core_worktree_gives_a_repository_named_by_git_dir_its_work_tree() {
        let home = tempfile::tempdir().unwrap();
        let home = canonical(home.path());
        let repo = init(&home.join(".dotfiles"), true);
        let named = GitEnv {
            git_dir: Some(home.join(".dotfiles").into()),
            cwd: PathBuf::from("/"),
            ..GitEnv::default()
        };
        // Bare, no work tree named: none (git: "must be run in a work tree").
        assert_eq!(repository_for(&home, &named), Found::Nothing);
        // Bare with core.worktree: git refuses, and so does lancet.
        let mut config = repo.config().unwrap();
        config.set_str("core.worktree", "..").unwrap();
        assert!(matches!(
            repository_for(&home, &named),
            Found::Refused { why, .. } if why.contains("core.worktree")
        ));
        // Not bare: core.worktree, relative to the git directory.
        config.set_bool("core.bare", false).unwrap();
        assert_eq!(
            repository_for(&home, &named),
            Found::Repository {
                git_dir: home.join(".dotfiles"),
                work_tree: home.clone(),
            }
        );
        // Not bare and no work tree named: the current directory, as git takes it.
        config.remove("core.worktree").unwrap();
        let from_home = GitEnv {
            cwd: home.clone(),
            ..named.clone()
        };
        assert_eq!(
            repository_for(&home, &from_home),
            Found::Repository {
                git_dir: home.join(".dotfiles"),
                work_tree: home.clone(),
            }
        );
    }

    #[test]
    fn git_dir_naming_no_repository_is_refused_not_searched_past() {
        let tmp = tempfile::tempdir().unwrap();
        let root = canonical(tmp.path());
        init(&root, false);
        let env = GitEnv {
            git_dir: Some(root.join("nowhere").into()),
            ..GitEnv::default()
        };
        assert!(matches!(
            repository_for(&root, &env),
            Found::Refused { why, .. } if why.contains("GIT_DIR names")
        ));
    }

    #[test]
    fn discovery_stops_at_a_ceiling() {
        let tmp = tempfile::tempdir().unwrap();
        let top = canonical(tmp.path());
        init(&top, false);
        std::fs::create_dir(top.join("sub")).unwrap();
        let found = Found::Repository {
            git_dir: top.join(".git"),
            work_tree: top.clone(),
        };
        assert_eq!(repository_for(&top.join("sub"), &GitEnv::default()), found);
        let ceiling = GitEnv {
            ceilings: vec![top.clone()],
            ..GitEnv::default()
        };
        assert_eq!(repository_for(&top.join("sub"), &ceiling), Found::Nothing);
        // A variable naming the work tree applies to a repository found by searching too.
        let work_tree = GitEnv {
            work_tree: Some(top.join("sub").into()),
            ..GitEnv::default()
        };
        assert_eq!(
            repository_for(&top.join("sub"), &work_tree),
            Found::Repository {
                git_dir: top.join(".git"),
                work_tree: top.join("sub"),
            }
        );
        assert_eq!(repository_for(&top, &work_tree), Found::Nothing);
    }
}
