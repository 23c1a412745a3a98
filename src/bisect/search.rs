//! The search behind `--bisect`, pure: which files the next test run writes, and what the
//! runs so far say. No disk and no process here, so the number of runs it takes is tested
//! against every placement of culprits.
//!
//! The batch's files (units: a move's two paths are one) keep their order. `g(i)` names the
//! run over the first `i` units minus those held back; more files can only fail more, so the
//! search looks for the shortest failing prefix: `lo` passed (or is empty), `hi` failed, and a
//! run in between halves the gap. When `hi = lo + 1`, unit `lo` is a culprit: the tests failed
//! with it on top of the files before it and passed without it. It is held back, which leaves
//! `g` unchanged below it, so `lo` carries over; then the run over every unit not held back
//! says whether the search is over (passed) or goes on above `lo` (failed). A combination of
//! files failing together is found the same way: the later one is held back, and the earlier
//! one, which passes without it, is written.
//!
//! Runs: with k culprits among n units, at most `⌈log2 n⌉` per culprit to find it and one
//! run of the rest after each; every gap is split so that the early places, which leave the
//! most units unknown for the search after them, take the shorter paths. One culprit takes at
//! most `⌈log2 n⌉ + 2` runs with the first one; k take at most `k·(⌈log2 n⌉ + 1) + 1`, and
//! `k·⌈log2 n⌉ + 2` when n leaves slack below a power of two (the tests below count the
//! placements of two that take more). No order of runs meets that bound for every number and
//! placement of culprits at once: among four files, an exhaustive search over strategies finds
//! none.

/// What to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Run the tests with these units written (their indices, ascending).
    Run(Vec<usize>),
    /// The units not held back passed the tests in the latest run (`run`, as the caller numbered
    /// it): that run's files are the outcome.
    Passed {
        /// The passing run.
        run: usize,
    },
    /// Every unit is held back: no part of the batch passes.
    NothingPasses,
    /// The tests failed on units they had passed on (in `run`): their result varies.
    Inconsistent {
        /// The failing run.
        run: usize,
    },
}

/// A held-back unit and the failing run that showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The unit.
    pub unit: usize,
    /// The run that failed with it on top of the units before it.
    pub run: usize,
    /// How many units that run wrote beside it.
    pub alongside: usize,
}

/// The search's state between runs.
#[derive(Debug)]
pub(crate) struct Search {
    held: Vec<bool>,
    /// `g(lo)` passed, in this run; `None` while the prefix is empty.
    lo: usize,
    lo_run: Option<usize>,
    /// `g(hi)` failed, in this run, when known.
    hi: Option<(usize, usize)>,
    /// The prefix the run asked for covers.
    asked: Option<usize>,
    /// The latest run recorded.
    last_run: Option<usize>,
    inconsistent: Option<usize>,
    found: Vec<Found>,
}

impl Search {
    /// A search over `units` units, after the run over all of them (`run`) failed.
    pub(crate) fn new(units: usize, run: usize) -> Search {
        Search {
            held: vec![false; units],
            lo: 0,
            lo_run: None,
            hi: Some((units, run)),
            asked: None,
            last_run: Some(run),
            inconsistent: None,
            found: Vec::new(),
        }
    }

    /// The next step; ask it again after recording the run it asked for.
    pub(crate) fn next(&mut self) -> Step {
        if let Some(run) = self.inconsistent {
            return Step::Inconsistent { run };
        }
        let n = self.held.len();
        loop {
            match self.hi {
                Some((hi, run)) if hi <= self.lo + 1 => {
                    // hi == lo + 1: unit lo fails on top of the passing units before it.
                    let unit = hi - 1;
                    self.found.push(Found {
                        unit,
                        run,
                        alongside: self.prefix(unit).len(),
                    });
                    self.held[unit] = true;
                    self.lo = hi;
                    self.hi = None;
                }
                Some((hi, _)) => {
                    let mid = self.lo + left_part(hi - self.lo);
                    return self.ask(mid);
                }
                None if self.prefix(n).is_empty() => return Step::NothingPasses,
                None if self.lo == n && self.lo_run == self.last_run => {
                    if let Some(run) = self.lo_run {
                        return Step::Passed { run };
                    }
                    return Step::NothingPasses;
                }
                // Every unit above the last culprit is held back too: what passed in an
                // earlier run is run again, so what stands is what the latest run passed.
                None => return self.ask(n),
            }
        }
    }

    /// Records the result of the run [`Search::next`] asked for.
    pub(crate) fn record(&mut self, run: usize, passed: bool) {
        let Some(at) = self.asked.take() else {
            return;
        };
        self.last_run = Some(run);
        if passed {
            self.lo = at;
            self.lo_run = Some(run);
        } else if at <= self.lo {
            self.inconsistent = Some(run);
        } else {
            self.hi = Some((at, run));
        }
    }

    /// The culprits found so far, in the order found.
    pub(crate) fn found(&self) -> &[Found] {
        &self.found
    }

    fn ask(&mut self, prefix: usize) -> Step {
        self.asked = Some(prefix);
        Step::Run(self.prefix(prefix))
    }

    /// The units of `g(i)`: the first `i` minus those held back.
    fn prefix(&self, i: usize) -> Vec<usize> {
        (0..i).filter(|&u| !self.held[u]).collect()
    }
}

/// How many of `m ≥ 2` candidate places go to the left of a split: as few as keep every path
/// within `⌈log2 m⌉` runs, so the early places, which leave the most files unknown for the
/// search after them, take the shorter paths.
fn left_part(m: usize) -> usize {
    if m < 2 {
        return 1;
    }
    let depth = usize::BITS - (m - 1).leading_zeros(); // ⌈log2 m⌉
    let shallow = (1usize << depth) - m;
    let shallow_left = if depth >= 2 {
        shallow.min(1 << (depth - 2))
    } else {
        0
    };
    ((1usize << (depth - 1)) - shallow_left).clamp(1, m - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a search to its end against `fails` (does this set of units fail the tests?),
    /// checking every step: the run count and the outcome.
    fn search(n: usize, fails: impl Fn(&[usize]) -> bool) -> (Step, Vec<usize>, usize) {
        let mut s = Search::new(n, 0);
        let mut runs = 1;
        let mut last: Vec<usize> = (0..n).collect();
        loop {
            match s.next() {
                Step::Run(units) => {
                    assert!(!units.is_empty());
                    let failed = fails(&units);
                    s.record(runs, !failed);
                    last = units;
                    runs += 1;
                    assert!(runs < 10 * n + 10, "the search does not end");
                }
                Step::Passed { run } => {
                    assert_eq!(run, runs - 1, "what stands is what the latest run passed");
                    assert!(!fails(&last));
                    let held: Vec<usize> = s.found().iter().map(|f| f.unit).collect();
                    return (Step::Passed { run }, held, runs);
                }
                end => return (end, s.found().iter().map(|f| f.unit).collect(), runs),
            }
        }
    }

    fn log2_ceil(n: usize) -> usize {
        (usize::BITS - (n - 1).leading_zeros()) as usize
    }

    #[test]
    fn the_left_part_keeps_every_path_within_the_depth() {
        for m in 2..300 {
            let left = left_part(m);
            assert!(left >= 1 && left < m, "{m}: {left}");
            let half = 1 << (log2_ceil(m) - 1);
            assert!(left <= half && m - left <= half, "{m}: {left}");
        }
        assert_eq!(left_part(2), 1);
        assert_eq!(left_part(12), 4);
        assert_eq!(left_part(100), 36);
    }

    /// One culprit anywhere among n: found within ⌈log2 n⌉ + 2 runs, the first included.
    #[test]
    fn one_culprit_is_found_within_the_bound() {
        for n in 1..70 {
            for c in 0..n {
                let (end, held, runs) = search(n, |s| s.contains(&c));
                if n == 1 {
                    assert_eq!(end, Step::NothingPasses);
                    continue;
                }
                assert!(matches!(end, Step::Passed { .. }), "{n} {c}: {end:?}");
                assert_eq!(held, vec![c]);
                assert!(runs <= log2_ceil(n) + 2, "n {n} culprit {c}: {runs} runs");
            }
        }
    }

    /// Two and three culprits: exactly them, always within k·(⌈log2 n⌉ + 1) + 1 runs. Two
    /// take at most 2·⌈log2 n⌉ + 2 for every placement among 12, 20, 40 or 166 files; among
    /// 128 (a power of two: no slack to give the early places) about half the placements
    /// take one more, as the README says.
    #[test]
    fn several_culprits_are_found_exactly() {
        for (n, over_at_most) in [(12, 0.0), (20, 0.0), (40, 0.0), (166, 0.0), (128, 0.5)] {
            let (mut placements, mut over) = (0, 0);
            for a in 0..n {
                for b in a + 1..n {
                    let (end, mut held, runs) = search(n, |s| s.contains(&a) || s.contains(&b));
                    held.sort();
                    assert!(matches!(end, Step::Passed { .. }));
                    assert_eq!(held, vec![a, b]);
                    assert!(runs <= 2 * (log2_ceil(n) + 1) + 1);
                    placements += 1;
                    over += usize::from(runs > 2 * log2_ceil(n) + 2);
                }
            }
            assert!(
                over as f64 <= over_at_most * placements as f64,
                "n {n}: {over} of {placements} over the bound"
            );
        }
        for n in [12, 20] {
            for a in 0..n {
                for b in a + 1..n {
                    for c in b + 1..n {
                        let set = [a, b, c];
                        let (_, mut held, runs) = search(n, |s| set.iter().any(|x| s.contains(x)));
                        held.sort();
                        assert_eq!(held, set);
                        assert!(runs <= 3 * (log2_ceil(n) + 1) + 1);
                    }
                }
            }
        }
    }

    /// Two files failing only together: the later one is held back, the earlier one written,
    /// and what is written passed.
    #[test]
    fn a_pair_failing_together_holds_back_one_of_them() {
        for n in 2..24 {
            for a in 0..n {
                for b in a + 1..n {
                    let (end, held, _) = search(n, |s| s.contains(&a) && s.contains(&b));
                    assert!(matches!(end, Step::Passed { .. }), "{n} {a} {b}");
                    assert_eq!(held, vec![b]);
                }
            }
        }
    }

    /// Tests that fail whatever is written hold back everything: nothing passes.
    #[test]
    fn tests_failing_without_the_batch_hold_back_everything() {
        let (end, held, runs) = search(5, |_| true);
        assert_eq!(end, Step::NothingPasses);
        assert_eq!(held, vec![0, 1, 2, 3, 4]);
        assert!(runs <= 5 * (log2_ceil(5) + 1) + 1);
    }

    /// The last two units both culprits: the units written passed in an earlier run, so they
    /// are run again, and what stands is what that latest run passed; a result that changes
    /// between runs on the same files is reported, not trusted.
    #[test]
    fn the_outcome_is_run_again_when_an_earlier_run_passed_it() {
        let culprits = |s: &[usize]| s.contains(&1) || s.contains(&2);
        let (end, held, runs) = search(3, culprits);
        assert!(matches!(end, Step::Passed { run: 4 }), "{end:?}");
        assert_eq!((held, runs), (vec![1, 2], 5));
        let calls = std::cell::Cell::new(0);
        let flaky = |s: &[usize]| {
            calls.set(calls.get() + 1);
            calls.get() == 4 || culprits(s)
        };
        let (end, _, _) = search(3, flaky);
        assert_eq!(end, Step::Inconsistent { run: 4 });
    }
}
