//! Levenshtein distance by bit vectors (Myers 1999, in the block form edlib uses): the same
//! distance the textbook dynamic program gives, 64 cells a step. Comparing two 400-character
//! lines costs a few thousand word operations instead of 160,000 cells, which is what keeps the
//! approximate tiers and the sketch alignment, which compare many long lines, within seconds.

use crate::work;
use std::collections::HashMap;

/// The Levenshtein distance between `a` and `b`, counted in chars.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // The shorter string is the pattern: its length sets the number of words per step.
    let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = pattern.len();
    if m == 0 {
        return text.len();
    }
    let words = m.div_ceil(64);
    work::tick(words * text.len());
    let peq = Peq::new(&pattern, words);
    // Vertical deltas of the current column: +1 (`plus`) or -1 (`minus`) per pattern row.
    let mut plus = vec![!0u64; words];
    let mut minus = vec![0u64; words];
    let last_row = 1u64 << ((m - 1) % 64);
    let mut score = m;
    for &c in &text {
        let eq = peq.of(c);
        // The horizontal delta entering the top of the block: the first row grows by 1 a
        // column, as the distance to an empty pattern does.
        let mut carry: i8 = 1;
        for w in 0..words {
            let out_bit = if w + 1 == words { last_row } else { 1 << 63 };
            carry = advance(&mut plus[w], &mut minus[w], eq[w], carry, out_bit);
        }
        score = score
            .checked_add_signed(isize::from(carry))
            .expect("a distance");
    }
    score
}

/// One 64-row block of a column: updates its vertical deltas from the block's match bits and
/// the horizontal delta entering at its top; returns the horizontal delta at `out_bit`'s row.
fn advance(plus: &mut u64, minus: &mut u64, eq: u64, carry: i8, out_bit: u64) -> i8 {
    let (p, m) = (*plus, *minus);
    let negative = u64::from(carry < 0);
    let xv = eq | m;
    let eq = eq | negative;
    let xh = ((eq & p).wrapping_add(p) ^ p) | eq;
    let mut ph = m | !(xh | p);
    let mut mh = p & xh;
    let out = i8::from(ph & out_bit != 0) - i8::from(mh & out_bit != 0);
    ph = (ph << 1) | u64::from(carry > 0);
    mh = (mh << 1) | negative;
    *plus = mh | !(xv | ph);
    *minus = ph & xv;
    out
}

/// Which pattern positions hold each char, a bit per position (a table for ASCII, a map for
/// the rest).
struct Peq {
    words: usize,
    ascii: Vec<u64>,
    other: HashMap<char, Vec<u64>>,
    none: Vec<u64>,
}

impl Peq {
    fn new(pattern: &[char], words: usize) -> Self {
        let mut peq = Peq {
            words,
            ascii: vec![0; 128 * words],
            other: HashMap::new(),
            none: vec![0; words],
        };
        for (i, &c) in pattern.iter().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            match u8::try_from(c).ok().filter(u8::is_ascii) {
                Some(b) => peq.ascii[usize::from(b) * words + w] |= bit,
                None => peq.other.entry(c).or_insert_with(|| vec![0; words])[w] |= bit,
            }
        }
        peq
    }

    fn of(&self, c: char) -> &[u64] {
        match u8::try_from(c).ok().filter(u8::is_ascii) {
            Some(b) => &self.ascii[usize::from(b) * self.words..][..self.words],
            None => self.other.get(&c).unwrap_or(&self.none),
        }
    }
}

/// 1 minus the distance over the longer length, in chars: 1 for equal strings (two empty ones
/// too), 0 for strings with nothing in common.
pub(crate) fn normalized(a: &str, b: &str) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let longer = a.chars().count().max(b.chars().count());
    1.0 - distance(a, b) as f64 / longer as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_distances() {
        for (a, b, d) in [
            ("", "", 0),
            ("", "abc", 3),
            ("kitten", "sitting", 3),
            ("flaw", "lawn", 2),
            ("\u{201c}hi\u{201d}", "\"hi\"", 2),
            ("caf\u{e9}", "cafe", 1),
        ] {
            assert_eq!(distance(a, b), d, "{a:?} {b:?}");
            assert_eq!(distance(b, a), d, "{b:?} {a:?}");
        }
        // Across several 64-row blocks.
        let long = "x = compute(alpha, beta) + ".repeat(12);
        let other = long.replacen("beta", "gamma", 3).replace("alpha", "a");
        assert_eq!(distance(&long, &other), strsim::levenshtein(&long, &other));
    }

    proptest! {
        #[test]
        fn the_same_distance_as_the_dynamic_program(
            a in "[ab\u{e9}\u{201c} ]{0,150}",
            b in "[abc\u{e9} ]{0,150}",
        ) {
            prop_assert_eq!(distance(&a, &b), strsim::levenshtein(&a, &b));
            prop_assert_eq!(normalized(&a, &b), strsim::normalized_levenshtein(&a, &b));
        }
    }

    #[test]
    fn two_long_lines_cost_a_step_per_word_and_char() {
        let (a, b) = ("a".repeat(400), "b".repeat(380));
        let (d, steps) = work::counted(|| distance(&a, &b));
        assert_eq!(d, 400);
        assert!(steps <= 7 * 400, "{steps}");
    }
}
