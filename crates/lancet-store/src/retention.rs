//! How many checkpoints are kept, and for how long: the retention rule, its record (a change
//! never prunes what came before it), and the tally that spares a batch listing the whole
//! checkpoint log when nothing can be due.
//!
//! The tally (`checkpoints.tally`) is a line written at each full listing — when it was made, how
//! many log entries it found, the oldest one's time, the rule it judged by — followed by one
//! byte per log entry recorded since, appended before the entry is saved. Its count is never
//! below the entries lancet recorded (an entry removed, or a crash between the byte and the
//! entry, only makes it higher), so a batch skips the listing only while the tally proves
//! nothing can be due: the count within the rule's slack, the oldest listed within its days,
//! the rule the one it judged by, and the listing less than a day old (an entry another program
//! put there is seen within a day). Whatever is dropped is decided from a full listing, as
//! before; a tally missing or unreadable means a full listing.

use crate::state::StateDir;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};

/// Checkpoints kept by default: the newest this many …
pub const KEEP_CHECKPOINTS: i64 = 500;
/// … and none older than this many days. Both are set per repository with `git config
/// lancet.keepCheckpoints N` and `git config lancet.keepDays N` (0: no limit).
pub const KEEP_DAYS: i64 = 30;

/// How many checkpoints to keep and for how long, when the project says (`lancet.toml`'s
/// `[checkpoints]`); `None` falls back to git config, then the defaults. 0 means no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retention {
    /// Most checkpoints kept.
    pub keep: Option<i64>,
    /// Oldest checkpoint kept, in days.
    pub keep_days: Option<i64>,
}

/// The state file recording each retention rule and when it took effect (JSON lines).
pub const RETENTION_LOG: &str = "retention.jsonl";

/// The state file counting the checkpoint log's entries since its last full listing.
pub const TALLY: &str = "checkpoints.tally";

/// A full listing at least this often, whatever the tally says (an entry lancet did not
/// record is seen within this long).
const LISTING_AT_LEAST_EVERY_MS: u128 = 86_400_000;

/// A retention rule with the time it took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Rule {
    since_ms: u128,
    keep: i64,
    keep_days: i64,
}

impl Rule {
    /// The rule before any was recorded: the defaults.
    const DEFAULT: Rule = Rule {
        since_ms: 0,
        keep: KEEP_CHECKPOINTS,
        keep_days: KEEP_DAYS,
    };

    /// Whether the rule lets the checkpoint of this rank (0: the newest) and time go.
    fn lets_go(&self, rank: usize, time_ms: u128) -> bool {
        let too_many = self.keep > 0 && rank as i64 >= self.keep;
        let too_old = self.cutoff_ms().is_some_and(|c| time_ms < c);
        too_many || too_old
    }

    /// Checkpoints older than this go (none with no limit of days).
    fn cutoff_ms(&self) -> Option<u128> {
        (self.keep_days > 0).then(|| now_ms().saturating_sub(self.keep_days as u128 * 86_400_000))
    }

    /// How many log entries may stand before pruning is due: the count plus a tenth (one
    /// batch in so many does the others' pruning); `None` with no limit.
    fn crowded_above(&self) -> Option<usize> {
        let keep = usize::try_from(self.keep).ok().filter(|k| *k > 0)?;
        Some(keep + keep / 10)
    }
}

/// What the last full listing found, and by which rule (the tally's first line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Listed {
    at_ms: u128,
    entries: usize,
    oldest_ms: Option<u128>,
    keep: i64,
    keep_days: i64,
}

impl Listed {
    /// Whether, with `recorded` entries tallied since, nothing can be due under `now`.
    fn nothing_due(&self, recorded: usize, now: Rule) -> bool {
        let same_rule = (self.keep, self.keep_days) == (now.keep, now.keep_days);
        let fresh = now_ms().saturating_sub(self.at_ms) < LISTING_AT_LEAST_EVERY_MS;
        let within_count = now
            .crowded_above()
            .is_none_or(|most| self.entries + recorded <= most);
        let within_days = match (now.cutoff_ms(), self.oldest_ms) {
            (Some(cutoff), Some(oldest)) => oldest >= cutoff,
            _ => true,
        };
        same_rule && fresh && within_count && within_days
    }
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default()
}

/// A checkpoint id's time: ids begin with it, in milliseconds, as 12 hex digits.
fn time_of(id: &str) -> Option<u128> {
    id.get(..12).and_then(|t| u128::from_str_radix(t, 16).ok())
}

impl StateDir {
    /// Counts a log entry about to be recorded (before it is saved, so the tally is never
    /// below the entries recorded). A missing tally is left missing: the next pruning lists.
    pub(crate) fn tally_checkpoint(&self) {
        if let Ok(state) = self.handle() {
            let _ = state
                .open_with(TALLY, cap_std::fs::OpenOptions::new().append(true))
                .and_then(|mut f| f.write_all(b"+"));
        }
    }

    /// What the tally says: the last listing and the entries recorded since (`None`: missing
    /// or unreadable, so a listing is needed).
    fn tally(&self) -> Option<(Listed, usize)> {
        let mut text = Vec::new();
        self.handle()
            .ok()?
            .open(TALLY)
            .and_then(|mut f| f.read_to_end(&mut text))
            .ok()?;
        let end = text.iter().position(|b| *b == b'\n')?;
        let listed = serde_json::from_slice(&text[..end]).ok()?;
        Some((listed, text.len() - end - 1))
    }

    /// Writes the tally after a full listing (in place: a torn one is unreadable, which means
    /// a listing next time).
    fn write_tally(&self, listed: &Listed) {
        let Ok(state) = self.handle() else {
            return;
        };
        let Ok(mut line) = serde_json::to_vec(listed) else {
            return;
        };
        line.push(b'\n');
        let _ = state
            .open_with(
                TALLY,
                cap_std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true),
            )
            .and_then(|mut f| f.write_all(&line));
    }

    /// Applies the retention rule (keep 500 checkpoints and 30 days by default), so refs and log entries do
    /// not grow without bound. Ids begin with their time in milliseconds, so no entry is read;
    /// and while the tally proves nothing can be due, not even the listing is made.
    /// `retention` (from lancet's settings) wins over git config's `lancet.keepCheckpoints` and
    /// `lancet.keepDays`, which win over the defaults.
    ///
    /// A change of the rule never prunes what existed before it: each rule in force is recorded
    /// with the time it took effect (`retention.jsonl`), and a checkpoint goes only when both the
    /// rule of its own time and the rule now let it go. Returns how many were dropped.
    pub fn prune_checkpoints(&self, retention: Retention) -> usize {
        let Ok(repo) = self.checkpoint_repository(false) else {
            return 0;
        };
        let setting = |given: Option<i64>, name: &str, default: i64| {
            given.unwrap_or_else(|| {
                repo.config()
                    .and_then(|c| c.get_i64(name))
                    .unwrap_or(default)
            })
        };
        let keep = setting(retention.keep, "lancet.keepCheckpoints", KEEP_CHECKPOINTS);
        let keep_days = setting(retention.keep_days, "lancet.keepDays", KEEP_DAYS);
        let judged_by = Rule {
            since_ms: 0,
            keep,
            keep_days,
        };
        if self
            .tally()
            .is_some_and(|(listed, recorded)| listed.nothing_due(recorded, judged_by))
        {
            return 0;
        }
        let Ok(listing) = self.subdir("checkpoints").and_then(|d| d.entries()) else {
            return 0;
        };
        let mut ids: Vec<String> = listing
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_suffix(".json").map(str::to_string)
            })
            .collect();
        ids.sort_by(|a, b| b.cmp(a));
        // The rule took effect with the batch just recorded under it (the newest).
        let now = Rule {
            since_ms: ids
                .first()
                .and_then(|id| time_of(id))
                .unwrap_or_else(now_ms),
            ..judged_by
        };
        let rules = self.retention_rules(now);
        // Pruned in steps: past the count, checkpoints go once a tenth more have gathered (one
        // batch in so many does the others' pruning; until then nothing is dropped).
        let crowded = now.crowded_above().is_some_and(|most| ids.len() > most);
        let aged = ids
            .last()
            .and_then(|id| time_of(id))
            .is_some_and(|oldest| Rule { keep: 0, ..now }.lets_go(0, oldest));
        let mut kept = Vec::with_capacity(ids.len());
        for (rank, id) in ids.iter().enumerate() {
            let due = (crowded || aged)
                && time_of(id).is_some_and(|time| {
                    let then = rules
                        .iter()
                        .rev()
                        .find(|r| r.since_ms <= time)
                        .copied()
                        .unwrap_or(Rule::DEFAULT);
                    now.lets_go(rank, time) && then.lets_go(rank, time)
                });
            if due {
                self.drop_checkpoint(&repo, id);
            } else {
                kept.push(id);
            }
        }
        self.write_tally(&Listed {
            at_ms: now_ms(),
            entries: kept.len(),
            oldest_ms: kept.iter().filter_map(|id| time_of(id)).min(),
            keep,
            keep_days,
        });
        ids.len() - kept.len()
    }

    /// The retention rules recorded so far, oldest first, with `now` appended (and recorded)
    /// when it differs from the last.
    fn retention_rules(&self, now: Rule) -> Vec<Rule> {
        let Ok(state) = self.handle() else {
            return vec![now];
        };
        let mut rules: Vec<Rule> = state
            .read_to_string(RETENTION_LOG)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if rules
            .last()
            .is_none_or(|last| (last.keep, last.keep_days) != (now.keep, now.keep_days))
        {
            if let Ok(line) = serde_json::to_string(&now) {
                let _ = state
                    .open_with(
                        RETENTION_LOG,
                        cap_std::fs::OpenOptions::new().create(true).append(true),
                    )
                    .and_then(|mut f| writeln!(f, "{line}"));
            }
            rules.push(now);
        }
        rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lancet_core::Root;

    /// A repository's state, and a way to record a log entry of a given time as a batch does
    /// (tallied, then saved).
    fn repository() -> (tempfile::TempDir, StateDir) {
        let tmp = tempfile::tempdir().unwrap();
        git2::Repository::init(tmp.path()).unwrap();
        let root = Root::new(tmp.path()).unwrap();
        let state = StateDir::locate(&root);
        (tmp, state)
    }

    fn id_at(ms: u128, n: u16) -> String {
        format!("{ms:012x}{n:04x}")
    }

    fn plant(state: &StateDir, id: &str) {
        state
            .subdir("checkpoints")
            .unwrap()
            .write(format!("{id}.json"), "{}")
            .unwrap();
    }

    fn record(state: &StateDir, id: &str) {
        state.tally_checkpoint();
        plant(state, id);
    }

    fn entries(state: &StateDir) -> usize {
        state
            .subdir("checkpoints")
            .unwrap()
            .entries()
            .unwrap()
            .count()
    }

    #[test]
    fn the_tally_never_lets_the_log_grow_past_the_rule() {
        let (_tmp, state) = repository();
        let rule = Retention {
            keep: Some(20),
            keep_days: None,
        };
        for n in 0..100 {
            record(&state, &id_at(now_ms(), n));
            // A crash between the tally's byte and the entry only counts one too many.
            if n % 7 == 0 {
                state.tally_checkpoint();
            }
            state.prune_checkpoints(rule);
            assert!(
                entries(&state) <= 22,
                "{} entries after {n}",
                entries(&state)
            );
        }
        // A tally lost or torn means a full listing, never a skipped one.
        record(&state, &id_at(now_ms(), 100));
        record(&state, &id_at(now_ms(), 101));
        std::fs::write(state.dir.join(TALLY), "{\"at_ms\":").unwrap();
        plant(&state, &id_at(now_ms(), 102));
        state.prune_checkpoints(rule);
        let (listed, recorded) = state.tally().expect("written again by the listing");
        assert_eq!((listed.entries, recorded), (entries(&state), 0));
    }

    #[test]
    fn an_entry_the_tally_did_not_count_goes_within_a_day_and_a_new_rule_is_judged_at_once() {
        let (_tmp, state) = repository();
        let rule = Retention {
            keep: Some(0),
            keep_days: Some(30),
        };
        record(&state, &id_at(now_ms(), 0));
        assert_eq!(state.prune_checkpoints(rule), 0);
        // Planted by another program, 31 days old: the tally proves nothing due, so no listing.
        let old = id_at(now_ms() - 31 * 86_400_000, 1);
        plant(&state, &old);
        record(&state, &id_at(now_ms(), 2));
        assert_eq!(
            state.prune_checkpoints(rule),
            0,
            "listed although nothing was due"
        );
        // A day after the last listing, the next batch lists and drops it.
        let (mut listed, _) = state.tally().unwrap();
        listed.at_ms -= LISTING_AT_LEAST_EVERY_MS;
        state.write_tally(&listed);
        assert_eq!(state.prune_checkpoints(rule), 1);
        assert_eq!(entries(&state), 2);
        // A changed rule is recorded (and judged by) on the very next batch.
        record(&state, &id_at(now_ms(), 3));
        state.prune_checkpoints(Retention {
            keep: Some(1),
            keep_days: Some(30),
        });
        let rules = std::fs::read_to_string(state.dir.join(RETENTION_LOG)).unwrap();
        assert_eq!(rules.lines().count(), 2, "{rules}");
    }
}
