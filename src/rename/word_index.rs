//! A language's files by the words they spell, built once when a subclass is first looked
//! for: each search then reads only the files that spell a known class's name (or its module's),
//! where reading every file for each class made a rename over the standard library's mixins
//! read it hundreds of times. A word is kept as its 64-bit hash: two words of one hash only add
//! a file to parse and look at, never hide one.

use super::words::is_word_byte;
use std::collections::{BTreeSet, HashMap};

/// The files by the words they spell.
pub(crate) struct WordIndex {
    /// The files, in the order given.
    paths: Vec<String>,
    /// Each word's hash, the files spelling it (indexes into `paths`).
    files: HashMap<u64, Vec<u32>>,
}

/// A word's hash for the index (FNV-1a: short keys, no allocation, no per-process seed).
fn word_hash(word: &[u8]) -> u64 {
    word.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A text's distinct words' hashes, sorted.
fn words_of(text: &str) -> Vec<u64> {
    let mut words: Vec<u64> = text
        .as_bytes()
        .split(|b| !is_word_byte(*b))
        .filter(|w| !w.is_empty() && !w[0].is_ascii_digit())
        .map(word_hash)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

impl WordIndex {
    /// Each of `paths` read once through `text_of`, each file's distinct words found on one
    /// scoped thread per core. Not on rayon's: the index is built inside a `OnceLock` that
    /// rayon's other workers block on, so they could not help and a rayon build ran on one
    /// core (a stdlib rename's index: 138 ms, a twentieth of it).
    pub(crate) fn new(
        paths: Vec<String>,
        text_of: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Self {
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        let mut words: Vec<Vec<u64>> = vec![Vec::new(); paths.len()];
        std::thread::scope(|scope| {
            let paths = &paths;
            let handles: Vec<_> = (0..workers)
                .map(|worker| {
                    scope.spawn(move || {
                        let mine = paths.iter().enumerate().skip(worker).step_by(workers);
                        mine.map(|(at, path)| {
                            (at, text_of(path).map_or_else(Vec::new, |t| words_of(&t)))
                        })
                        .collect::<Vec<_>>()
                    })
                })
                .collect();
            for handle in handles {
                match handle.join() {
                    Ok(done) => done.into_iter().for_each(|(at, w)| words[at] = w),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
        let mut files: HashMap<u64, Vec<u32>> = HashMap::new();
        for (at, words) in words.into_iter().enumerate() {
            for word in words {
                files.entry(word).or_default().push(at as u32);
            }
        }
        WordIndex { paths, files }
    }

    /// The files that spell one of `names` as a whole word (and, rarely, a few more), in the
    /// index's order.
    pub(crate) fn spelling_any<'i>(&'i self, names: &BTreeSet<String>) -> Vec<&'i str> {
        let mut found: Vec<u32> = names
            .iter()
            .filter_map(|n| self.files.get(&word_hash(n.as_bytes())))
            .flatten()
            .copied()
            .collect();
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .map(|at| self.paths[at as usize].as_str())
            .collect()
    }
}
