//! Confinement for the programs lancet runs over a tree a model wrote: test commands (whose
//! `conftest.py` or `package.json` scripts the model may have written) and language servers
//! (which read the tree's configuration and may start programs it names).
//!
//! On Linux, with the kernel's Landlock (as Codex CLI does for its commands) and a seccomp
//! filter:
//! - **writes** only where the policy allows: for tests, the root's top-level entries other
//!   than `.git` and lancet's state directory, a private temp directory (`TMPDIR`) and the
//!   harmless devices; for a language server, only the temp directory and the devices.
//!   Landlock only adds permissions, so each top-level entry is granted, never the root itself:
//!   a test cannot create a new top-level entry either.
//! - **no network**: `socket()` for anything but Unix sockets fails (seccomp), TCP bind and
//!   connect are denied by Landlock too (ABI 4+), `io_uring` is refused (it can open sockets
//!   past the filter), and so is every x32 system call (which the filter's numbers would not
//!   match); with Landlock ABI 6+, no signals to processes outside the sandbox and no abstract
//!   Unix sockets outside it. A language server, which talks over stdio, may not `connect` at
//!   all, open a datagram socket, nor write `/dev/shm`.
//! - for a language server, **no program under the root is executed**: execution is granted
//!   on every entry outside the root, none inside it.
//!
//! Reads are not limited: a test can read what the user can (and copy it into the root). Where
//! the kernel lacks Landlock the sandbox cannot be built, and the caller refuses (fails
//! closed). The rules are built in the parent; the child only calls `landlock_restrict_self`
//! and `seccomp` between fork and exec (no allocation there).

use std::path::{Path, PathBuf};
use std::process::Command;

/// What confines a sandboxed test command, as its report says.
pub const TESTS_CONFINEMENT: &str = "no network; writes only to the root's top-level entries other than .git and lancet's state, and a private temp directory";

/// Why a sandbox could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SandboxError(pub String);

/// What a sandboxed program may do.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Paths (files or directories, with everything beneath) it may write.
    pub writable: Vec<PathBuf>,
    /// A directory under which it may execute nothing (the root, for a language server).
    pub no_exec_under: Option<PathBuf>,
    /// It talks to lancet over stdio alone (a language server): no shared memory (`/dev/shm`),
    /// no `connect`, no datagram socket (which sends to a named socket without connecting), so
    /// nothing it runs reaches a local service.
    pub stdio_only: bool,
}

/// The devices every program may write (output thrown away); never a terminal: a sandboxed
/// program could type into it.
const DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// Shared memory, which programs that do not talk over stdio alone may write.
const SHARED_MEMORY: &str = "/dev/shm";

/// Files of the root a test may not write although they stand at its top: lancet's settings.
const SETTINGS: [&str; 2] = ["lancet.toml", "pyproject.toml"];

impl Policy {
    /// What a test command may write: the root's top-level entries but `.git`, what lancet's
    /// state puts off limits (`off_limits`, when it lies in the root: `.lancet`, or the git
    /// directory `GIT_DIR` names), lancet's settings and links; inside an entry that holds a
    /// repository of its own (a nested `.git`, a submodule's `.git` file), its entries but that
    /// `.git`, and so on down.
    pub fn for_tests(root: &Path, off_limits: &Path) -> std::io::Result<Policy> {
        let mut excluded = nested_git(root);
        excluded.push(off_limits.to_path_buf());
        excluded.extend(SETTINGS.iter().map(|s| root.join(s)));
        Ok(Policy {
            writable: grants(root, &excluded)?,
            no_exec_under: None,
            stdio_only: false,
        })
    }

    /// What a language server may do: write nothing but its temp directory, execute nothing
    /// under the root, talk over stdio alone.
    pub fn for_language_server(root: &Path) -> Policy {
        Policy {
            writable: Vec::new(),
            no_exec_under: Some(root.to_path_buf()),
            stdio_only: true,
        }
    }
}

/// Every `.git` (directory or file) under `dir`, links not followed, `.git` directories not
/// entered.
fn nested_git(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().eq_ignore_ascii_case(".git") {
                found.push(path);
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    found
}

/// The entries of `dir` a test may write, as paths to grant: each entry but the excluded ones
/// and links, an entry above an excluded path replaced by its own entries.
fn grants(dir: &Path, excluded: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if excluded.contains(&path) || entry.file_type()?.is_symlink() {
            continue;
        }
        if excluded.iter().any(|e| e.starts_with(&path)) && entry.file_type()?.is_dir() {
            out.extend(grants(&path, excluded)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

/// A sandbox ready to confine one command: the kernel rules and the private temp directory
/// (removed when the sandbox is dropped, after the command).
pub struct Sandbox {
    #[cfg(target_os = "linux")]
    inner: linux::Prepared,
    temp: tempfile::TempDir,
}

impl Sandbox {
    /// The private temp directory the confined program may write (its `TMPDIR`).
    pub fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    /// Builds the rules of `policy`; fails when the kernel cannot enforce them.
    pub fn new(policy: &Policy) -> Result<Sandbox, SandboxError> {
        let temp = tempfile::Builder::new()
            .prefix("lancet-sandbox-")
            .tempdir()
            .map_err(|e| SandboxError(format!("cannot make the sandbox's temp directory: {e}")))?;
        #[cfg(target_os = "linux")]
        {
            let inner = linux::Prepared::new(policy, temp.path())?;
            Ok(Sandbox { inner, temp })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (policy, temp);
            Err(SandboxError(
                "sandboxing needs Linux's Landlock; this system has none".into(),
            ))
        }
    }

    /// Confines `command` once spawned: the rules are applied in the child before it runs,
    /// and `TMPDIR` names the private temp directory.
    pub fn confine(&mut self, command: &mut Command) {
        command.env("TMPDIR", self.temp.path());
        #[cfg(target_os = "linux")]
        self.inner.confine(command);
    }
}

/// Whether the kernel has Landlock: what a fail-closed caller checks before writing anything
/// that a sandboxed program will then run on. `LANCET_FAILPOINT=no-landlock:1` says no, for the
/// tests of that path.
pub fn available() -> Result<(), SandboxError> {
    if lancet_core::failpoint::check("no-landlock").is_err() {
        return Err(SandboxError(
            "this kernel has no Landlock (LANCET_FAILPOINT=no-landlock)".into(),
        ));
    }
    #[cfg(target_os = "linux")]
    {
        linux::abi().map(|_| ())
    }
    #[cfg(not(target_os = "linux"))]
    {
        Err(SandboxError(
            "sandboxing needs Linux's Landlock; this system has none".into(),
        ))
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::{DEVICES, Policy, SHARED_MEMORY, SandboxError};
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, RestrictionStatus, Ruleset,
        RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
    };
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, sock_filter,
    };
    use std::os::unix::process::CommandExt;
    use std::path::Path;
    use std::process::Command;

    /// The rules, built in the parent.
    pub(super) struct Prepared {
        ruleset: Option<RulesetCreated>,
        filter: BpfProgram,
    }

    /// The kernel's Landlock ABI, or why there is none.
    pub(super) fn abi() -> Result<ABI, SandboxError> {
        // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
        let version = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            )
        };
        match ABI::from(version as i32) {
            ABI::Unsupported => Err(SandboxError(
                "this kernel has no Landlock (it needs Linux 5.13 or newer with landlock in its LSM list)".into(),
            )),
            abi => Ok(abi),
        }
    }

    fn error(what: &str, e: impl std::fmt::Display) -> SandboxError {
        SandboxError(format!("cannot build the sandbox ({what}): {e}"))
    }

    impl Prepared {
        pub(super) fn new(policy: &Policy, temp: &Path) -> Result<Prepared, SandboxError> {
            let abi = abi()?;
            // Writing files and directories; never making device nodes, nor device ioctls.
            let write = AccessFs::from_write(abi)
                & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev);
            let handled_write = AccessFs::from_write(abi);
            let mut handled = handled_write;
            if policy.no_exec_under.is_some() {
                handled |= AccessFs::Execute;
            }
            let mut ruleset = Ruleset::default()
                .set_compatibility(CompatLevel::BestEffort)
                .handle_access(handled)
                .map_err(|e| error("file rights", e))?
                .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
                .map_err(|e| error("network rights", e))?;
            if !Scope::from_all(abi).is_empty() {
                ruleset = ruleset
                    .scope(Scope::from_all(abi))
                    .map_err(|e| error("scopes", e))?;
            }
            let mut created = ruleset
                .create()
                .map_err(|e| error("ruleset", e))?
                .add_rules(path_beneath_rules(&policy.writable, write))
                .map_err(|e| error("writable paths", e))?
                .add_rules(path_beneath_rules([temp], write))
                .map_err(|e| error("temp directory", e))?
                .add_rules(path_beneath_rules(DEVICES, write))
                .map_err(|e| error("devices", e))?;
            if !policy.stdio_only {
                created = created
                    .add_rules(path_beneath_rules([SHARED_MEMORY], write))
                    .map_err(|e| error("shared memory", e))?;
            }
            if let Some(root) = &policy.no_exec_under {
                created = created
                    .add_rules(path_beneath_rules(outside(root), AccessFs::Execute))
                    .map_err(|e| error("executable paths", e))?;
            }
            Ok(Prepared {
                ruleset: Some(created),
                filter: filter(policy.stdio_only)?,
            })
        }

        pub(super) fn confine(&mut self, command: &mut Command) {
            let mut ruleset = self.ruleset.take();
            let filter = self.filter.clone();
            // SAFETY: between fork and exec only system calls run: landlock_restrict_self
            // and prctl through the landlock crate (no allocation on its success path),
            // seccomp through seccompiler's apply_filter (none at all); errors are raw OS
            // errors, which allocate nothing.
            unsafe {
                command.pre_exec(move || {
                    let Some(ruleset) = ruleset.take() else {
                        return Err(std::io::Error::from_raw_os_error(libc::EPERM));
                    };
                    match ruleset.restrict_self() {
                        Ok(RestrictionStatus {
                            ruleset: RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced,
                            ..
                        }) => {}
                        _ => return Err(std::io::Error::from_raw_os_error(libc::EPERM)),
                    }
                    seccompiler::apply_filter(&filter)
                        .map_err(|_| std::io::Error::from_raw_os_error(libc::EPERM))
                });
            }
        }
    }

    /// Every entry outside `root`: for each directory from `/` down to the root's parent, its
    /// entries but the one leading to the root (a link whose target lies in the root left out).
    fn outside(root: &Path) -> Vec<std::path::PathBuf> {
        let mut granted = Vec::new();
        let mut ancestors: Vec<&Path> = root.ancestors().collect();
        ancestors.reverse();
        for pair in ancestors.windows(2) {
            let (dir, toward_root) = (pair[0], pair[1]);
            let Ok(listing) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in listing.flatten() {
                let path = entry.path();
                if path == toward_root {
                    continue;
                }
                match path.canonicalize() {
                    Ok(real) if real.starts_with(root) || root.starts_with(&real) => {}
                    Ok(real) => granted.push(real),
                    Err(_) => {}
                }
            }
        }
        granted
    }

    /// seccomp: `socket()` only for Unix sockets, no `io_uring`, no x32 system calls; with
    /// `stdio_only`, no `connect` and no datagram socket either; everything else allowed.
    fn filter(stdio_only: bool) -> Result<BpfProgram, SandboxError> {
        let rule = |arg: u8, op: SeccompCmpOp, value: u64| {
            SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
                .map_err(|e| error("seccomp condition", e))
                .and_then(|c| SeccompRule::new(vec![c]).map_err(|e| error("seccomp rule", e)))
        };
        let mut sockets = vec![rule(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?];
        let mut rules = vec![(libc::SYS_io_uring_setup, vec![])];
        if stdio_only {
            // The type's low bits (SOCK_NONBLOCK and SOCK_CLOEXEC are flags above them).
            sockets.push(rule(
                1,
                SeccompCmpOp::MaskedEq(0xf),
                libc::SOCK_DGRAM as u64,
            )?);
            rules.push((libc::SYS_connect, vec![]));
        }
        rules.push((libc::SYS_socket, sockets));
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|e| error("seccomp architecture", e))?;
        let mut program = SeccompFilter::new(
            rules.into_iter().collect(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EACCES as u32),
            arch,
        )
        .and_then(BpfProgram::try_from)
        .map_err(|e| error("seccomp filter", e))?;
        deny_x32(&mut program)?;
        Ok(program)
    }

    /// Denies every x32 system call (`nr >= 0x40000000`): x32 shares x86_64's architecture
    /// value, so the architecture check lets them in, and a rule on x86_64's `socket` number
    /// does not hold for x32's. The check goes right after that architecture check (the
    /// program's first three instructions), which it verifies.
    fn deny_x32(program: &mut BpfProgram) -> Result<(), SandboxError> {
        if !cfg!(target_arch = "x86_64") {
            return Ok(());
        }
        const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
        const JUMP_GE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
        const RETURN: u16 = 0x06; // BPF_RET | BPF_K
        const ARCH_OFFSET: u32 = 4; // seccomp_data.arch
        let instruction = |code, jt, jf, k| sock_filter { code, jt, jf, k };
        if program.len() < 3 || program[0] != instruction(LOAD_WORD, 0, 0, ARCH_OFFSET) {
            return Err(error(
                "seccomp filter",
                "the architecture check is not where lancet expects it",
            ));
        }
        let x32 = [
            instruction(LOAD_WORD, 0, 0, 0),
            instruction(JUMP_GE, 0, 1, 0x4000_0000),
            instruction(RETURN, 0, 0, libc::SECCOMP_RET_ERRNO | libc::EACCES as u32),
        ];
        program.splice(3..3, x32);
        Ok(())
    }
}
