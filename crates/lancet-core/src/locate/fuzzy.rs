//! The anchor and fuzzy tiers: approximate matching at a bounded cost. A kept line that
//! defines another name than the edit's ([`definition_name`]) is another place, never drift.
//!
//! Every line is reduced once to a 256-bit sketch (the set of its byte bigrams, hashed), so the
//! similarity of two lines is a few popcounts. Windows are scored by sketches first; only the
//! few best are then scored exactly (normalised Levenshtein per line). There is no quadratic
//! scan of the file: cost is O(file bytes + lines × needle lines / 64 words).

/// A line reduced to the set of its byte bigrams (hashed into 256 bits).
pub type Sketch = [u64; 4];

/// The sketch of a line, ignoring surrounding whitespace.
pub fn sketch(line: &str) -> Sketch {
    let mut s = [0u64; 4];
    let b = line.trim().as_bytes();
    if b.len() == 1 {
        s[0] |= 1 << (b[0] & 63);
    }
    for w in b.windows(2) {
        let h =
            (u32::from(w[0]).wrapping_mul(31) ^ u32::from(w[1]).wrapping_mul(131)) as usize & 255;
        s[h >> 6] |= 1 << (h & 63);
    }
    s
}

/// Sketches of every line (in parallel chunks: a 200,000-line file is sketched in half the time
/// on two cores, and a small one in a single task).
pub fn sketch_all(lines: &[&str]) -> Vec<Sketch> {
    use rayon::prelude::*;
    lines
        .par_iter()
        .with_min_len(16 * 1024)
        .map(|l| sketch(l))
        .collect()
}

/// Dice similarity of two sketches, 0 to 1 (an estimate of the lines' bigram similarity).
pub fn sketch_similarity(a: &Sketch, b: &Sketch) -> f64 {
    let count = |s: &Sketch| s.iter().map(|w| w.count_ones()).sum::<u32>();
    let (ca, cb) = (count(a), count(b));
    if ca + cb == 0 {
        return 1.0;
    }
    let both: u32 = a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum();
    f64::from(2 * both) / f64::from(ca + cb)
}

/// Longest line compared by edit distance; longer lines fall back to their sketches.
const MAX_EDIT_DISTANCE_LINE: usize = 400;

/// Similarity of two lines, ignoring surrounding whitespace, 0 to 1.
pub fn line_similarity(file: &str, needle: &str) -> f64 {
    let (f, n) = (file.trim(), needle.trim());
    if f == n {
        return 1.0;
    }
    if f.len() > MAX_EDIT_DISTANCE_LINE || n.len() > MAX_EDIT_DISTANCE_LINE {
        return sketch_similarity(&sketch(f), &sketch(n));
    }
    super::levenshtein::normalized(f, n)
}

/// Mean line similarity of the window at `start`, or 0 when a line the hunk removes differs
/// from the file's in more than presentation (with `strict_removed`; otherwise when it falls
/// below [`FUZZY_MIN_LINE`]) or a kept (context) line falls below [`FUZZY_MIN_CONTEXT_LINE`].
fn fuzzy_window_score(
    lines: &[&str],
    start: usize,
    needle: &[String],
    kept: &[bool],
    strict_removed: bool,
) -> f64 {
    let mut sum = 0.0;
    let mut drifted = 0usize;
    for (j, (n, f)) in needle.iter().zip(&lines[start..]).enumerate() {
        let s = if is_kept(kept, j) {
            if same_but_presentation(f, n) {
                1.0
            } else {
                drifted += 1;
                let another_definition = defines_another_name(f, n);
                if strict_removed && (drifted > drift_allowance(kept) || another_definition) {
                    return 0.0;
                }
                let s = line_similarity(f, n);
                if s < FUZZY_MIN_CONTEXT_LINE {
                    return 0.0;
                }
                s
            }
        } else if strict_removed {
            if !same_but_presentation(f, n) {
                return 0.0;
            }
            1.0
        } else {
            let s = line_similarity(f, n);
            if s < FUZZY_MIN_LINE {
                return 0.0;
            }
            s
        };
        sum += s;
    }
    sum / needle.len() as f64
}

/// A needle long enough for approximate matching to mean something.
pub fn is_substantial(needle: &[String]) -> bool {
    let significant: usize = needle
        .iter()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).count())
        .sum();
    needle.iter().filter(|l| !l.trim().is_empty()).count() >= 3 || significant >= 40
}

/// The best window must score at least this (mean line similarity).
pub const FUZZY_THRESHOLD: f64 = 0.85;
/// Only in a near miss (see [`near_miss`]): how similar a removed line must be to be shown as
/// "the line you meant" rather than as unrelated text.
const FUZZY_MIN_LINE: f64 = 0.6;
/// Context lines are kept from the file, never rewritten, so they may drift further.
pub const FUZZY_MIN_CONTEXT_LINE: f64 = 0.5;
/// ... and beat every non-overlapping rival by at least this much.
pub const FUZZY_MARGIN: f64 = 0.05;
/// Windows whose sketch score is below this are not scored exactly.
const PREFILTER: f64 = 0.6;
/// How many windows are scored exactly.
const SHORTLIST: usize = 8;
/// The anchor tier's middle lines must be at least this similar.
const ANCHOR_MIDDLE: f64 = 0.5;
/// Needle lines used to prefilter windows (spread evenly over a long needle).
const MAX_PREFILTER_LINES: usize = 64;

/// What an approximate tier found.
#[derive(Debug, Clone, PartialEq)]
pub enum Approx {
    /// One clear winner: start line and score.
    One(usize, f64),
    /// Several windows score too close to each other (start lines, best first).
    Several(Vec<usize>),
    /// Nothing good enough.
    None,
}

/// Whether a file line and an edit line are the same up to presentation: whitespace,
/// indentation, typographic punctuation and special spaces. A line an edit removes or replaces
/// must pass this; anything else (a digit, a name, a string) is code the model never saw.
pub fn same_but_presentation(file: &str, needle: &str) -> bool {
    super::Tier::Unicode.line_eq(file, needle)
}

/// Whether needle line `j` is context the hunk keeps (`kept` may be shorter than the needle:
/// missing entries are lines the hunk removes, the safe reading).
fn is_kept(kept: &[bool], j: usize) -> bool {
    kept.get(j) == Some(&true)
}

/// Whether a file line and the edit's version of it define different names (`def a():` and
/// `def b():`): a look-alike place, not the model's place misremembered.
fn defines_another_name(file: &str, needle: &str) -> bool {
    definition_name(file).is_some_and(|f| definition_name(needle) != Some(f))
}

/// How many kept context lines may drift beyond presentation in one window: one, or a quarter
/// of them in a long hunk. More drift means another place that merely looks alike (a twin
/// test function, a sibling method), not the model's place misremembered.
fn drift_allowance(kept: &[bool]) -> usize {
    (kept.iter().filter(|&&k| k).count() / 4).max(1)
}

/// Most line-similarity work (see [`similarity_cost`]) the anchor tier spends on one needle:
/// its first and last lines can stand at thousands of places, each asking for the similarity
/// of every middle line. Ordinary hunks spend a few thousand; past the budget the tier stops
/// instead of comparing long lines for minutes.
pub const ANCHOR_BUDGET: usize = 400_000_000;

/// What one approximate tier found, for the ladder to scope and decide on.
pub(super) enum Candidates {
    /// The anchor tier's windows (start lines).
    Anchored(Vec<usize>),
    /// The fuzzy tier's verdict.
    Fuzzy(Approx),
}

/// The approximate tiers' candidates in ladder order, the anchor tier's then the fuzzy tier's,
/// each computed only when the ladder asks for it: the fuzzy tier sketches the whole file, several
/// times the anchor tier's cost on a large one. Ends early when the anchor tier's work would
/// pass [`ANCHOR_BUDGET`], or after the anchor tier when the fuzzy tier cannot be asked.
pub(super) struct Approximations<'a> {
    hay: &'a super::Haystack<'a>,
    starts: &'a [usize],
    needle: &'a [String],
    kept: &'a [bool],
    next: Option<super::Tier>,
    fuzzy_too: bool,
}

impl<'a> Approximations<'a> {
    /// The approximate tiers for `needle` in `hay`, from `starts` (the positions whose line
    /// loosely matches its first line); `fuzzy_too`: whether the fuzzy tier may follow the
    /// anchor tier (it only ever places one hunk).
    pub(super) fn new(
        hay: &'a super::Haystack<'a>,
        starts: &'a [usize],
        needle: &'a [String],
        kept: &'a [bool],
        fuzzy_too: bool,
    ) -> Self {
        Approximations {
            hay,
            starts,
            needle,
            kept,
            next: Some(super::Tier::Anchor),
            fuzzy_too,
        }
    }
}

impl Iterator for Approximations<'_> {
    type Item = Candidates;

    fn next(&mut self) -> Option<Candidates> {
        let (hay, needle, kept) = (self.hay, self.needle, self.kept);
        match self.next.take()? {
            super::Tier::Anchor => {
                let anchored = anchor(&hay.lines, self.starts, needle, kept)?;
                self.next = self.fuzzy_too.then_some(super::Tier::Fuzzy);
                Some(Candidates::Anchored(anchored))
            }
            super::Tier::Fuzzy => Some(Candidates::Fuzzy(fuzzy(
                &hay.lines,
                hay.sketches(),
                needle,
                kept,
            ))),
            // Only the two approximate tiers are ever next.
            _ => None,
        }
    }
}

/// Anchor tier: the first and last lines match once trimmed, every line the hunk removes
/// matches up to presentation, and the kept middle lines are similar enough.
/// `starts` are the positions whose line loosely matches the needle's first line. `None` when
/// deciding would cost more than [`ANCHOR_BUDGET`].
pub fn anchor(
    lines: &[&str],
    starts: &[usize],
    needle: &[String],
    kept: &[bool],
) -> Option<Vec<usize>> {
    anchor_with(lines, starts, needle, kept, true, ANCHOR_BUDGET)
}

fn anchor_with(
    lines: &[&str],
    starts: &[usize],
    needle: &[String],
    kept: &[bool],
    strict_removed: bool,
    budget: usize,
) -> Option<Vec<usize>> {
    let k = needle.len();
    let significant = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3;
    if k < 3 || k > lines.len() || !significant(&needle[0]) || !significant(&needle[k - 1]) {
        return Some(Vec::new());
    }
    let (first, last) = (needle[0].trim(), needle[k - 1].trim());
    let allowance = drift_allowance(kept);
    let mut spent = 0usize;
    let mut found = Vec::new();
    'start: for &s in starts {
        if s + k > lines.len() || lines[s].trim() != first || lines[s + k - 1].trim() != last {
            continue;
        }
        let mut sum = 0.0;
        let mut count = 0usize;
        let mut drifted = 0usize;
        for j in 1..k - 1 {
            let (f, n) = (lines[s + j], &needle[j]);
            let same = same_but_presentation(f, n);
            if strict_removed && !is_kept(kept, j) {
                if !same {
                    continue 'start;
                }
                continue;
            }
            if strict_removed && !same && defines_another_name(f, n) {
                // Another function's header: another place, not drift.
                continue 'start;
            }
            drifted += usize::from(!same);
            if strict_removed && drifted > allowance {
                continue 'start;
            }
            spent += similarity_cost(f, n);
            if spent > budget {
                return None;
            }
            sum += line_similarity(f, n);
            count += 1;
        }
        if count == 0 || sum / count as f64 >= ANCHOR_MIDDLE {
            found.push(s);
        }
    }
    Some(found)
}

/// An upper bound on the work [`line_similarity`] does for two lines: 64-cell words of the
/// edit distance, or one pass over each line.
fn similarity_cost(file: &str, needle: &str) -> usize {
    let (a, b) = (file.len(), needle.len());
    if a.max(b) > MAX_EDIT_DISTANCE_LINE {
        a + b
    } else {
        (a.min(b) / 64 + 1) * a.max(b) + 16
    }
}

/// Fuzzy tier: the most similar window, above the threshold and clearly ahead of rivals.
/// `kept[j]` says needle line `j` is context the hunk keeps; only such lines may drift, every
/// other line must match up to presentation.
pub fn fuzzy(lines: &[&str], file: &[Sketch], needle: &[String], kept: &[bool]) -> Approx {
    fuzzy_with(lines, file, needle, kept, true)
}

/// Where the hunk would have matched if the lines it removes could differ in content, and the
/// first such line that differs: `(window start, needle line index)`. For the refusal message
/// only ("you sent X, the file has Y"): nothing is ever applied from it.
pub fn near_miss(
    lines: &[&str],
    file: &[Sketch],
    starts: &[usize],
    needle: &[String],
    kept: &[bool],
) -> Option<(usize, usize)> {
    let start = match anchor_with(lines, starts, needle, kept, false, ANCHOR_BUDGET).as_deref() {
        Some([one]) => *one,
        _ => match fuzzy_with(lines, file, needle, kept, false) {
            Approx::One(s, _) => s,
            _ => return None,
        },
    };
    let j = (0..needle.len())
        .find(|&j| !is_kept(kept, j) && !same_but_presentation(lines[start + j], &needle[j]))?;
    Some((start, j))
}

fn fuzzy_with(
    lines: &[&str],
    file: &[Sketch],
    needle: &[String],
    kept: &[bool],
    strict_removed: bool,
) -> Approx {
    let k = needle.len();
    if k == 0 || k > lines.len() || !is_substantial(needle) {
        return Approx::None;
    }
    let step = k.div_ceil(MAX_PREFILTER_LINES).max(1);
    let probe: Vec<(usize, Sketch)> = (0..k)
        .step_by(step)
        .map(|j| (j, sketch(&needle[j])))
        .collect();
    let mut scored: Vec<(usize, f64)> = (0..=lines.len() - k)
        .filter_map(|s| {
            let score = probe
                .iter()
                .map(|(j, sk)| sketch_similarity(&file[s + j], sk))
                .sum::<f64>()
                / probe.len() as f64;
            (score >= PREFILTER).then_some((s, score))
        })
        .collect();
    // Only the best few windows matter; select them without sorting every window.
    let keep = SHORTLIST * 8 * k.min(64);
    let by_score = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scored.len() > keep {
        scored.select_nth_unstable_by(keep, by_score);
        scored.truncate(keep);
    }
    scored.sort_by(by_score);
    // Keep the best window of each cluster of overlapping windows.
    let mut shortlist: Vec<usize> = Vec::new();
    for (s, _) in scored {
        if shortlist.iter().all(|&t| s.abs_diff(t) >= k) {
            shortlist.push(s);
            if shortlist.len() == SHORTLIST {
                break;
            }
        }
    }
    let mut exact: Vec<(usize, f64)> = shortlist
        .into_iter()
        .map(|s| {
            (
                s,
                fuzzy_window_score(lines, s, needle, kept, strict_removed),
            )
        })
        .collect();
    exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    match exact.as_slice() {
        [] => Approx::None,
        [(s, best), rest @ ..] if *best >= FUZZY_THRESHOLD => {
            let close: Vec<usize> = rest
                .iter()
                .filter(|(_, score)| best - score < FUZZY_MARGIN)
                .map(|(t, _)| *t)
                .collect();
            if close.is_empty() {
                Approx::One(*s, *best)
            } else {
                Approx::Several(std::iter::once(*s).chain(close).collect())
            }
        }
        _ => Approx::None,
    }
}

/// The name a definition line defines (`load` of `def load(path):`), if it opens one (`def`,
/// `class`, `fn`, `function`, `struct`, …). The name is the identity of a place: a kept line
/// that defines another name is another place, while a changed signature is drift.
pub fn definition_name(line: &str) -> Option<&str> {
    const MODIFIERS: [&str; 9] = [
        "pub ",
        "pub(crate) ",
        "export ",
        "default ",
        "async ",
        "static ",
        "public ",
        "private ",
        "protected ",
    ];
    const OPENERS: [&str; 14] = [
        "def ",
        "class ",
        "fn ",
        "function ",
        "function* ",
        "func ",
        "struct ",
        "enum ",
        "trait ",
        "impl ",
        "interface ",
        "type ",
        "module ",
        "namespace ",
    ];
    let mut rest = line.trim_start();
    while let Some(m) = MODIFIERS.iter().find(|m| rest.starts_with(**m)) {
        rest = &rest[m.len()..];
    }
    let opener = OPENERS.iter().find(|o| rest.starts_with(**o))?;
    let rest = rest[opener.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::locate::owned_lines as v;

    #[test]
    fn fuzzy_forgives_drift_in_kept_lines_only() {
        let lines = vec![
            "def load(path):",
            "    with open(path) as f:",
            "        data = json.load(f)",
            "    return data",
            "",
            "def save(path, data):",
            "    with open(path, 'w') as f:",
            "        json.dump(data, f)",
        ];
        let needle = v(&[
            "def load(path):",
            "    with open(path) as fh:",
            "        data = json.load(f)",
            "    return data",
        ]);
        let sk = sketch_all(&lines);
        // The drifted line is context the hunk keeps: forgiven.
        let kept = [false, true, true, false];
        assert!(matches!(fuzzy(&lines, &sk, &needle, &kept), Approx::One(0, s) if s > 0.85));
        // Two of two kept lines drifting is another place that looks alike, not drift.
        let twice = v(&[
            "def load(path):",
            "    with open(path) as fh:",
            "        data = json.load(fh)",
            "    return data",
        ]);
        assert_eq!(fuzzy(&lines, &sk, &twice, &kept), Approx::None);
        // The same lines removed by the hunk: code the model never saw, refused.
        assert_eq!(fuzzy(&lines, &sk, &needle, &[]), Approx::None);
        assert_eq!(
            near_miss(&lines, &sk, &[0], &needle, &[]),
            Some((0, 1)),
            "the near miss names the first differing removed line"
        );
        assert_eq!(fuzzy(&lines, &sk, &v(&["x = 1"]), &[true]), Approx::None);
        let twins = vec![
            "alpha beta gamma delta",
            "one",
            "alpha beta gamma delta",
            "two",
        ];
        assert!(matches!(
            fuzzy(
                &twins,
                &sketch_all(&twins),
                &v(&[
                    "alpha beta gamma delts",
                    "alpha beta gamma delts",
                    "alpha beta gamma delts"
                ]),
                &[true, true, true]
            ),
            Approx::None | Approx::Several(_)
        ));
    }

    #[test]
    fn a_removed_line_differing_in_one_digit_or_name_is_never_matched() {
        let lines = vec![
            "def check(mask):",
            "    if mask < 1 or mask > 32:",
            "        raise ValueError(mask)",
            "    return mask",
        ];
        let sk = sketch_all(&lines);
        for wrong in [
            "    if mask < 1 or mask > 64:",
            "    if mask < 1 or bits > 32:",
        ] {
            let needle = v(&[
                "def check(mask):",
                wrong,
                "        raise ValueError(mask)",
                "    return mask",
            ]);
            let kept = [true, false, true, true];
            assert_eq!(fuzzy(&lines, &sk, &needle, &kept), Approx::None, "{wrong}");
            assert_eq!(
                anchor(&lines, &[0], &needle, &kept),
                Some(vec![]),
                "{wrong}"
            );
        }
        // Presentation only (spacing, curly quotes) is not content.
        assert!(same_but_presentation(lines[1], "  if mask<1 or mask>32 :"));
        assert!(same_but_presentation(
            "    x = \u{201c}a\u{201d}",
            "x = \"a\""
        ));
    }

    #[test]
    fn a_kept_line_defining_another_name_is_another_place() {
        assert_eq!(definition_name("    async def load(path):"), Some("load"));
        assert_eq!(
            definition_name("export default function* gen() {"),
            Some("gen")
        );
        assert_eq!(definition_name("pub(crate) fn run<T>() {"), Some("run"));
        assert_eq!(definition_name("x = define(1)"), None);
        // A twin test function: one kept line differs, and it names another function.
        let lines = vec![
            "    @pytest.mark.parametrize(\"cls\", data)",
            "    def test_ge_different_type(self, cls):",
            "        assert cls(1) >= cls(2)",
            "        return None",
        ];
        let needle = v(&[
            "    @pytest.mark.parametrize(\"cls\", data)",
            "    def test_lt_same_type(self, cls):",
            "        assert cls(1) >= cls(2)",
            "        return None",
        ]);
        let kept = [false, true, true, true];
        assert_eq!(anchor(&lines, &[0], &needle, &kept), Some(vec![]));
        assert_eq!(
            fuzzy(&lines, &sketch_all(&lines), &needle, &kept),
            Approx::None
        );
        // A changed signature of the same function is drift.
        let needle = v(&[
            "    @pytest.mark.parametrize(\"cls\", data)",
            "    def test_ge_different_type(self, cls, extra):",
            "        assert cls(1) >= cls(2)",
            "        return None",
        ]);
        assert_eq!(anchor(&lines, &[0], &needle, &kept), Some(vec![0]));
    }

    /// A line of about 380 characters, the `variant`-th spelling of line `i`.
    fn long_line(i: usize, variant: usize) -> String {
        let words: Vec<String> = (0..60).map(|k| format!("w{}", (i * 7 + k) % 997)).collect();
        format!("    call_{i}_{variant}({})", words.join(" "))
    }

    #[test]
    fn a_long_near_miss_costs_steps_linear_in_the_needle() {
        // Four near-copies of a 300-line block of long lines; the needle changes every line
        // of it a little, so it is near every copy and equal to none.
        let file: Vec<String> = (0..4)
            .flat_map(|copy| (0..300).map(move |i| long_line(i, usize::from(i == copy))))
            .collect();
        let lines: Vec<&str> = file.iter().map(String::as_str).collect();
        let needle: Vec<String> = (0..300).map(|i| long_line(i, 9)).collect();
        let sketches = sketch_all(&lines);
        let (miss, steps) =
            crate::work::counted(|| near_miss(&lines, &sketches, &[], &needle, &[]));
        // No window is clearly ahead of the others: no near miss to show.
        assert_eq!(miss, None);
        // Each window scored exactly costs about a 64-cell word per line character: 8 windows
        // of 300 lines of 7 words each. (A cell at a time, it was 380 x 380 per line.)
        let bound = SHORTLIST * 300 * 7 * 400;
        assert!(steps <= bound, "{steps} steps, bound {bound}");
    }

    #[test]
    fn the_anchor_tier_stops_at_its_budget() {
        // The needle's first and last line stand at every other line of the file, with a long
        // line of its own between them each time: every start asks for the middle lines'
        // similarity.
        let mut file = Vec::new();
        for i in 0..2_000 {
            file.push("    shared_first_and_last_line(x)".to_string());
            file.push(long_line(i, 0));
        }
        let lines: Vec<&str> = file.iter().map(String::as_str).collect();
        let mut needle = vec![lines[0].to_string()];
        for i in 0..19 {
            needle.push(long_line(i, 1));
            needle.push(lines[0].to_string());
        }
        let starts: Vec<usize> = (0..lines.len()).step_by(2).collect();
        let kept = vec![true; needle.len()];
        let (found, steps) = crate::work::counted(|| {
            anchor_with(&lines, &starts, &needle, &kept, false, 20_000_000)
        });
        assert_eq!(found, None);
        assert!(steps <= 20_000_000, "{steps}");
        // Within a budget large enough, the same question is answered.
        let answered = anchor_with(
            &lines[..200],
            &starts[..100],
            &needle,
            &kept,
            false,
            1 << 40,
        );
        assert!(answered.is_some());
    }

    #[test]
    fn anchor_needs_both_ends_and_a_similar_kept_middle() {
        let lines = vec![
            "fn main() {",
            "    let a = compute(1);",
            "    print(a);",
            "}",
            "// end of main",
        ];
        let needle = v(&[
            "fn main() {",
            "    let a = compute(2);",
            "    print(a);",
            "}",
            "// end of main",
        ]);
        let all: Vec<usize> = (0..lines.len()).collect();
        let kept = [true; 5];
        assert_eq!(anchor(&lines, &all, &needle, &kept), Some(vec![0]));
        let two_drifts = v(&[
            "fn main() {",
            "    let a = compute(2);",
            "    println(a);",
            "}",
            "// end of main",
        ]);
        assert_eq!(anchor(&lines, &all, &two_drifts, &kept), Some(vec![]));
        // The same middle removed by the hunk: refused.
        assert_eq!(
            anchor(&lines, &all, &needle, &[true, false, false, true, true]),
            Some(vec![])
        );
        let wrong_middle = v(&[
            "fn main() {",
            "    completely different",
            "    text here",
            "}",
            "// end of main",
        ]);
        assert_eq!(anchor(&lines, &all, &wrong_middle, &kept), Some(vec![]));
    }

    #[test]
    fn an_import_defines_no_name() {
        assert_eq!(definition_name("import os"), None);
        assert_eq!(definition_name("pub(crate) async fn run<T>("), Some("run"));
    }
}
