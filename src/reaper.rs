//! Ending everything a program lancet started has started: its process group, and what left
//! the group (`setsid`, a daemon's double fork), which lancet adopts as the subreaper and kills
//! too. Lancet runs model-written code (tests) and programs that read model-written trees
//! (language servers); none of it may outlive its turn and keep acting while lancet writes.

/// Sends SIGKILL to a process group (a system call: no program looked up on `PATH`, where a
/// model may have put one).
pub(crate) fn kill_group(pgid: u32) {
    // SAFETY: kill(2) on the group lancet created for the command.
    unsafe {
        libc::kill(-(pgid as i32), libc::SIGKILL);
    }
}

/// Makes lancet the reaper of whatever the command leaves behind: a process that leaves the
/// command's group and session (`setsid`, a daemon's double fork) is re-parented to lancet
/// instead of init, so [`kill_orphans`] finds it.
pub(crate) fn adopt_orphans() {
    // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER only changes who reaps orphans.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kills and reaps every process re-parented to lancet (what the test command left running
/// outside its group), so nothing it started outlives the verdict: no model code runs while
/// lancet keeps or rolls back the batch. Rounds repeat while killing reveals more. (Test runs
/// take turns, and lancet starts no other process while one runs.)
pub(crate) fn kill_orphans() {
    for _ in 0..16 {
        let orphans = children_of(std::process::id());
        if orphans.is_empty() {
            return;
        }
        for &pid in &orphans {
            // SAFETY: kill(2) and waitpid(2) on processes whose parent is lancet.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        for &pid in &orphans {
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// The processes whose parent is `parent`, from `/proc`.
fn children_of(parent: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
                    let rest = &stat[stat.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}
