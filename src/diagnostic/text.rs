//! The texts of findings (messages, help, related-location messages), sharing what one
//! rule's texts have in common.
//!
//! A rule writes each finding's message and help from one template, with a name or two
//! filled in: on a stream of 917,446 TKE001 findings, 300 and 550 bytes each, alike but for
//! the Service's name. Each text is kept as the part that differs from a recent text of
//! the same rule and place (its base, shared by reference count) plus where that part goes,
//! so a finding holds its names, not its template, and the text reads back byte for byte
//! as the rule wrote it. No rule has to say what its template is.

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use compact_str::CompactString;

/// A finding's text: `base[..head]`, then `middle`, then `base[tail..]`. Compares, prints
/// and serializes as that one string.
#[derive(Clone, Default)]
pub struct Text {
    /// The shared text this one differs from; `None` when `middle` is all of it. A thin
    /// pointer: a text is 40 bytes, not 48, and a finding holds two or three.
    base: Option<Base>,
    head: u32,
    tail: u32,
    /// Inline up to 24 bytes, so a name or two costs no allocation.
    middle: CompactString,
}

/// A shared text: one allocation more for each of a rule's few bases, 8 bytes less for
/// each of its many texts.
type Base = Arc<Box<str>>;

/// Where a text goes in a finding: a rule's messages are alike, and so are its help texts,
/// but a message is not like a help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Place {
    Message,
    Help,
    Related,
}

/// Texts up to this long are kept whole, inline.
const INLINE: usize = 24;

/// Recent bases kept per rule and place: a rule with a few wordings (an error and a warning,
/// one per provider) finds each one's base among them.
const BASES: usize = 4;

/// Recent bases by rule and place, most recently used first.
type Bases = HashMap<(&'static str, Place), Vec<Base>>;

thread_local! {
    /// A cache only: which base a text is cut from changes what memory it shares, never
    /// what it says.
    static RECENT: RefCell<Bases> = RefCell::new(HashMap::new());
}

impl Text {
    /// A text that shares nothing.
    pub(crate) fn new(text: impl Into<String>) -> Text {
        Text {
            base: None,
            head: 0,
            tail: 0,
            middle: CompactString::from(text.into()),
        }
    }

    /// `text`, written by `rule` at `place`: cut from a recent text of the same rule and
    /// place when at least half of it is the same (the start and the end), else kept as
    /// the next such text's base.
    pub(crate) fn shared(rule: &'static str, place: Place, text: String) -> Text {
        if text.len() <= INLINE {
            return Text {
                base: None,
                head: 0,
                tail: 0,
                middle: CompactString::new(&text),
            };
        }
        RECENT.with(|recent| {
            let mut recent = recent.borrow_mut();
            let bases = recent.entry((rule, place)).or_default();
            // The most recently used base first; one that shares three quarters is taken.
            let mut best: Option<(usize, (usize, usize))> = None;
            for (i, base) in bases.iter().enumerate() {
                let (head, end) = common_ends(base, &text);
                if best.is_none_or(|(_, (h, e))| head + end > h + e) {
                    best = Some((i, (head, end)));
                }
                if 4 * (head + end) >= 3 * text.len() {
                    break;
                }
            }
            match best {
                Some((i, (head, end))) if 2 * (head + end) >= text.len() => {
                    bases[..=i].rotate_right(1);
                    let base = bases[0].clone();
                    Text {
                        head: offset(head),
                        tail: offset(base.len() - end),
                        middle: CompactString::new(&text[head..text.len() - end]),
                        base: Some(base),
                    }
                }
                _ => {
                    let base: Base = Arc::new(text.into_boxed_str());
                    bases.insert(0, base.clone());
                    bases.truncate(BASES);
                    Text {
                        head: offset(base.len()),
                        tail: offset(base.len()),
                        middle: CompactString::default(),
                        base: Some(base),
                    }
                }
            }
        })
    }

    /// The text in its three parts, in order.
    pub(crate) fn parts(&self) -> [&str; 3] {
        match &self.base {
            None => ["", &self.middle, ""],
            Some(base) => [
                base.get(..self.head as usize).unwrap_or_default(),
                &self.middle,
                base.get(self.tail as usize..).unwrap_or_default(),
            ],
        }
    }

    /// The text as one string: borrowed when it is one part, else put together.
    pub(crate) fn as_cow(&self) -> Cow<'_, str> {
        match self.parts() {
            [only, "", ""] | ["", only, ""] | ["", "", only] => Cow::Borrowed(only),
            parts => Cow::Owned(parts.concat()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.parts().iter().map(|p| p.len()).sum()
    }

    /// Whether both share one base (tests: the sharing is there).
    #[cfg(test)]
    pub(crate) fn shares_base_with(&self, other: &Text) -> bool {
        match (&self.base, &other.base) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Bytes `text` shares with `base` at its start and, after that, at its end, each cut back
/// to a character boundary.
fn common_ends(base: &str, text: &str) -> (usize, usize) {
    let (a, b) = (base.as_bytes(), text.as_bytes());
    let mut head = same_from_start(a, b);
    while !(text.is_char_boundary(head) && base.is_char_boundary(head)) {
        head -= 1;
    }
    let (a, b) = (&a[head..], &b[head..]);
    let n = a.len().min(b.len());
    let mut end = same_from_start_rev(&a[a.len() - n..], &b[b.len() - n..]);
    while !(text.is_char_boundary(text.len() - end) && base.is_char_boundary(base.len() - end)) {
        end -= 1;
    }
    (head, end)
}

/// Compared 32 bytes at a time: every finding's message and help go through here.
const STEP: usize = 32;

/// How many bytes `a` and `b` share from their start.
fn same_from_start(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + STEP <= n && a[i..i + STEP] == b[i..i + STEP] {
        i += STEP;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b`, of one length, share at their end.
fn same_from_start_rev(a: &[u8], b: &[u8]) -> usize {
    let n = a.len();
    let mut i = 0;
    while i + STEP <= n && a[n - i - STEP..n - i] == b[n - i - STEP..n - i] {
        i += STEP;
    }
    let (a, b) = (&a[..n - i], &b[..n - i]);
    i + a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// A finding's text is far below 4 GiB (it is built in memory from a file under that).
fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// Compares two texts given in parts, as the strings they make.
fn compare(a: [&str; 3], b: [&str; 3]) -> Ordering {
    let mut a = a.into_iter().flat_map(|p| p.as_bytes().chunks(64));
    let mut b = b.into_iter().flat_map(|p| p.as_bytes().chunks(64));
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        if x.is_empty() {
            x = a.next().unwrap_or_default();
        }
        if y.is_empty() {
            y = b.next().unwrap_or_default();
        }
        if x.is_empty() || y.is_empty() {
            return x.len().cmp(&y.len());
        }
        let n = x.len().min(y.len());
        match x[..n].cmp(&y[..n]) {
            Ordering::Equal => (x, y) = (&x[n..], &y[n..]),
            unequal => return unequal,
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.len() == other.len() && compare(self.parts(), other.parts()).is_eq()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> Ordering {
        compare(self.parts(), other.parts())
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        compare(self.parts(), [other, "", ""]).is_eq()
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_some() || f.precision().is_some() {
            return f.pad(&self.as_cow());
        }
        self.parts().iter().try_for_each(|p| f.write_str(p))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.as_cow(), f)
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // serde_json escapes each part as it comes: the same bytes as the whole string.
        serializer.collect_str(self)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text::new(text)
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::new(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(name: &str) -> String {
        format!("Private-network CLB Service `{name}` may loop back in-cluster calls to its own address.")
    }

    #[test]
    fn texts_of_one_rule_share_their_template_and_read_back_as_written() {
        let first = Text::shared("TST001", Place::Message, message("ledger"));
        let texts: Vec<Text> = [
            "a",
            "ledger-1",
            "ledger-123456789012345678901234567890",
            "é",
        ]
        .iter()
        .map(|name| Text::shared("TST001", Place::Message, message(name)))
        .collect();
        for (text, name) in texts.iter().zip([
            "a",
            "ledger-1",
            "ledger-123456789012345678901234567890",
            "é",
        ]) {
            assert_eq!(text.to_string(), message(name));
            assert_eq!(text.as_cow(), message(name));
            assert_eq!(*text, *message(name));
            assert!(text.shares_base_with(&first), "{text:?}");
        }
        // Another place, or another rule, has bases of its own.
        let help = Text::shared("TST001", Place::Help, message("x"));
        assert!(!help.shares_base_with(&first));
        let other = Text::shared("TST002", Place::Message, message("x"));
        assert!(!other.shares_base_with(&first));
    }

    #[test]
    fn a_text_unlike_the_recent_ones_becomes_a_base() {
        let one = Text::shared("TST003", Place::Help, "x".repeat(40) + &"y".repeat(40));
        let two = Text::shared("TST003", Place::Help, "z".repeat(80));
        assert!(!two.shares_base_with(&one));
        let three = Text::shared("TST003", Place::Help, "x".repeat(40) + "w");
        assert!(three.shares_base_with(&one));
        assert_eq!(three, *("x".repeat(40) + "w"));
    }

    #[test]
    fn cut_points_fall_on_character_boundaries() {
        let base = "前".repeat(20) + "中" + &"後".repeat(20);
        let text = "前".repeat(20) + "仲" + &"後".repeat(20);
        let a = Text::shared("TST004", Place::Message, base.clone());
        let b = Text::shared("TST004", Place::Message, text.clone());
        assert!(b.shares_base_with(&a));
        assert_eq!(b.to_string(), text);
        assert_eq!(a.to_string(), base);
    }

    #[test]
    fn texts_compare_as_the_strings_they_make() {
        let strings = [
            "",
            "a",
            "ab",
            "abc",
            "abd",
            "b",
            &"q".repeat(100),
            &("q".repeat(99) + "r"),
        ];
        let texts: Vec<Text> = strings
            .iter()
            .map(|s| Text::shared("TST005", Place::Related, s.to_string()))
            .collect();
        for (a, ta) in strings.iter().zip(&texts) {
            for (b, tb) in strings.iter().zip(&texts) {
                assert_eq!(ta.cmp(tb), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(ta == tb, a == b);
            }
        }
        assert_eq!(format!("[{:>5}]", Text::new("ab")), "[   ab]");
        assert_eq!(
            serde_json::to_string(&texts[7]).unwrap(),
            format!("{:?}", strings[7])
        );
    }
}
