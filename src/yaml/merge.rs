//! Aliases and `<<` merge keys, resolved in bounded work.
//!
//! Aliases are never copied, so a document's tree stays the size of its text. Two things
//! still depend on how far aliases *expand*, and both are computed here once per document,
//! in time linear in its nodes (memoized, never by following every path):
//!
//! - whether Kubernetes accepts the document at all: go-yaml v2 (what the API server and
//!   kubectl decode with) refuses a document whose alias expansion is out of proportion to
//!   its size ("document contains excessive aliasing", the CVE-2019-11253 fix);
//! - the effective entries of every mapping that merges others in with `<<`, so that key
//!   lookups and iteration see merged keys in one pass over a precomputed table instead of
//!   a depth-first search per lookup (a 600-byte chain of anchors, each merging six copies
//!   of the one before, is 6^16 paths). Building the tables is bounded by a work budget.

use std::collections::{HashMap, HashSet};

use super::tree::{is_merge_key, Document, Entry, NodeId, NodeKind};
use crate::source::Span;

/// Check a finished document's alias expansion and index its merge keys (inline merges,
/// `<<: {a: 1}`, need no alias).
pub(super) fn resolve_aliases(
    mut doc: Document,
    has_alias: bool,
    may_merge: bool,
) -> Result<Document, TooComplex> {
    if has_alias {
        if let Some(too_complex) = check_aliasing(&doc) {
            return Err(too_complex);
        }
    }
    if may_merge {
        let budget = merge_budget(&doc);
        index_merges(&mut doc, budget)?;
    }
    Ok(doc)
}

/// Why a document is not linted.
#[derive(Clone, Debug, PartialEq)]
pub struct TooComplex {
    /// The alias or `<<` key where the expansion blows up.
    pub span: Span,
    pub message: String,
    /// Kubernetes itself rejects the document (not only lblint's budget).
    pub rejected_by_kubernetes: bool,
}

// go-yaml v2 decode.go (v2.2.8 and later): below 400,000 decoded nodes 99% may come from
// alias expansion, above 4,000,000 only 10%, linear in between; checked once more than 100
// aliased and 1,000 decoded nodes are seen.
const ALIAS_RATIO_RANGE_LOW: u64 = 400_000;
const ALIAS_RATIO_RANGE_HIGH: u64 = 4_000_000;

fn allowed_alias_ratio(decoded: u64) -> f64 {
    if decoded <= ALIAS_RATIO_RANGE_LOW {
        0.99
    } else if decoded >= ALIAS_RATIO_RANGE_HIGH {
        0.10
    } else {
        let range = (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW) as f64;
        0.99 - 0.89 * ((decoded - ALIAS_RATIO_RANGE_LOW) as f64 / range)
    }
}

/// Expansion counts of one node as go-yaml decodes it: every node it decodes, and how many
/// of those come from expanding aliases.
#[derive(Clone, Copy, Default)]
struct Expansion {
    decoded: u64,
    aliased: u64,
}

/// Whether go-yaml would refuse the document for excessive aliasing, or for an alias
/// inside its own anchor ("anchor 'x' value contains itself"). Linear in the nodes.
pub(crate) fn check_aliasing(doc: &Document) -> Option<TooComplex> {
    let root = doc.root?;
    let n = doc.nodes.len();
    let mut memo: Vec<Option<Expansion>> = vec![None; n];
    let mut open = vec![false; n];
    let mut stack = vec![root];
    let mut worst: Option<(u64, NodeId)> = None;
    while let Some(&id) = stack.last() {
        let i = id.0 as usize;
        if memo[i].is_some() {
            stack.pop();
            continue;
        }
        let children: &[NodeId] = match &doc.node(id).kind {
            NodeKind::Alias(Some(target)) => std::slice::from_ref(target),
            _ => doc.sequence_items(id),
        };
        let entries: &[Entry] = doc.mapping_entries(id);
        let pending = children
            .iter()
            .copied()
            .chain(entries.iter().flat_map(|e| [e.key, e.value]))
            .find(|c| memo[c.0 as usize].is_none());
        if let Some(child) = pending {
            if open[child.0 as usize] {
                return Some(TooComplex {
                    span: doc.node_span(id),
                    message: "an alias refers to the anchored node that contains it; \
                              Kubernetes (go-yaml) rejects the document (\"anchor value contains itself\")"
                        .into(),
                    rejected_by_kubernetes: true,
                });
            }
            open[i] = true;
            stack.push(child);
            continue;
        }
        let expansion = match &doc.node(id).kind {
            NodeKind::Alias(Some(target)) => {
                let t = memo[target.0 as usize].unwrap_or_default();
                if worst.is_none_or(|(d, _)| t.decoded > d) {
                    worst = Some((t.decoded, id));
                }
                Expansion {
                    decoded: t.decoded.saturating_add(1),
                    // Everything decoded through the alias counts, however it nests.
                    aliased: t.decoded,
                }
            }
            _ => children
                .iter()
                .chain(entries.iter().flat_map(|e| [&e.key, &e.value]))
                .fold(
                    Expansion {
                        decoded: 1,
                        aliased: 0,
                    },
                    |acc, c| {
                        let e = memo[c.0 as usize].unwrap_or_default();
                        Expansion {
                            decoded: acc.decoded.saturating_add(e.decoded),
                            aliased: acc.aliased.saturating_add(e.aliased),
                        }
                    },
                ),
        };
        memo[i] = Some(expansion);
        open[i] = false;
        stack.pop();
    }
    let total = memo[root.0 as usize].unwrap_or_default();
    let excessive = total.aliased > 100
        && total.decoded > 1000
        && total.aliased as f64 / total.decoded as f64 > allowed_alias_ratio(total.decoded);
    let (_, at) = worst?;
    excessive.then(|| TooComplex {
        span: doc.node_span(at),
        message: format!(
            "its aliases expand to {} nodes, {} of them copies; Kubernetes (go-yaml) rejects \
             the document (\"document contains excessive aliasing\")",
            shown(total.decoded),
            shown(total.aliased),
        ),
        rejected_by_kubernetes: true,
    })
}

fn shown(count: u64) -> String {
    if count == u64::MAX {
        format!("more than {count}")
    } else {
        count.to_string()
    }
}

/// Merge-table entries built per document before it is given up: enough for any real use
/// of `<<` (each mapping merging a few dozen keys), bounded for hostile ones.
pub(crate) fn merge_budget(doc: &Document) -> u64 {
    1_000_000 + 16 * doc.nodes.len() as u64
}

/// The key text of an entry, following an alias key.
fn key_text(doc: &Document, key: NodeId) -> Option<&str> {
    doc.at(key).as_str()
}

/// Fill `doc.merged`: for every mapping with `<<` keys, the entries it gains from merges,
/// in lookup order (its own keys win, then each merge source in order, each source's own
/// keys before what it merges), one per key. Over `budget` entries visited, the document is
/// given up with the `<<` where the budget ran out.
pub(crate) fn index_merges(doc: &mut Document, budget: u64) -> Result<(), TooComplex> {
    let with_merges: Vec<NodeId> = (0..doc.nodes.len())
        .map(|i| NodeId(i as u32))
        .filter(|&id| merge_sources(doc, id).next().is_some())
        .collect();
    if with_merges.is_empty() {
        return Ok(());
    }
    let has_merges: HashSet<NodeId> = with_merges.iter().copied().collect();
    let mut tables: HashMap<NodeId, Box<[Entry]>> = HashMap::new();
    let mut open: HashSet<NodeId> = HashSet::new();
    let mut work = 0u64;
    for &start in &with_merges {
        let mut stack = vec![start];
        while let Some(&id) = stack.last() {
            if tables.contains_key(&id) {
                stack.pop();
                continue;
            }
            open.insert(id);
            // Sources that merge in turn are built first; one still open is a cycle (an
            // alias inside its own anchor) and contributes its own keys only.
            let pending = merge_sources(doc, id)
                .map(|(_, source)| source)
                .find(|s| has_merges.contains(s) && !tables.contains_key(s) && !open.contains(s));
            if let Some(source) = pending {
                stack.push(source);
                continue;
            }
            let table = build_table(doc, id, &tables, &mut work, budget)?;
            tables.insert(id, table);
            open.remove(&id);
            stack.pop();
        }
    }
    if !tables.is_empty() {
        doc.rare_mut().merged = tables;
    }
    Ok(())
}

/// The mappings a mapping merges in: each `<<` value, or each item of a `<<` sequence, with
/// the `<<` key that brings it.
fn merge_sources(doc: &Document, id: NodeId) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
    doc.mapping_entries(id)
        .iter()
        .filter(move |e| is_merge_key(doc, e.key))
        .flat_map(move |e| {
            let value = doc.at(e.value).resolved();
            let items: Vec<NodeId> = if value.is_sequence() {
                value.items().map(|i| i.resolved().id).collect()
            } else {
                vec![value.id]
            };
            items.into_iter().map(move |item| (e.key, item))
        })
        .filter(move |&(_, source)| doc.at(source).is_mapping())
}

fn build_table(
    doc: &Document,
    id: NodeId,
    tables: &HashMap<NodeId, Box<[Entry]>>,
    work: &mut u64,
    budget: u64,
) -> Result<Box<[Entry]>, TooComplex> {
    let own = |m: NodeId| -> &[Entry] { doc.mapping_entries(m) };
    let mut seen: HashSet<&str> = own(id)
        .iter()
        .filter(|e| !is_merge_key(doc, e.key))
        .filter_map(|e| key_text(doc, e.key))
        .collect();
    let mut table = Vec::new();
    for (merge_key, source) in merge_sources(doc, id) {
        let inherited = tables.get(&source).map_or(&[][..], |t| &t[..]);
        // Reversed: within one mapping the last duplicate key wins, as in a lookup.
        let candidates = own(source)
            .iter()
            .rev()
            .filter(|e| !is_merge_key(doc, e.key))
            .chain(inherited);
        for entry in candidates {
            *work += 1;
            if *work > budget {
                return Err(TooComplex {
                    span: doc.node_span(merge_key),
                    message: format!(
                        "its merge keys (`<<`) expand to more than {budget} entries, over lblint's budget"
                    ),
                    rejected_by_kubernetes: false,
                });
            }
            if let Some(key) = key_text(doc, entry.key) {
                if seen.insert(key) {
                    table.push(*entry);
                }
            }
        }
    }
    Ok(table.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use crate::yaml::{load, Limits, LoadedFile};

    fn loaded(src: &str) -> LoadedFile {
        let file = load(src, &Limits::default());
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        file
    }

    /// The bomb: 16 anchors, each merging 6 copies of the one before (6^16 paths).
    fn merge_bomb(levels: usize, copies: usize) -> String {
        let mut src = String::from("a0: &a0 {k: v}\n");
        for i in 1..levels {
            let refs = vec![format!("*a{}", i - 1); copies].join(", ");
            src.push_str(&format!("a{i}: &a{i} {{<<: [{refs}]}}\n"));
        }
        src
    }

    #[test]
    fn merge_bomb_is_rejected_at_its_worst_alias_without_expanding() {
        let src = merge_bomb(16, 6) + "top:\n  <<: [*a15, *a15]\n";
        let file = load(&src, &Limits::default());
        assert!(file.documents.is_empty());
        let bomb = &file.too_complex[0];
        assert!(bomb.rejected_by_kubernetes);
        assert!(bomb.message.contains("excessive aliasing"));
        assert_eq!(bomb.span.slice(&src), "*a15");
        assert_eq!(bomb.span.start.line, 18);
    }

    #[test]
    fn merged_keys_are_found_in_lookup_order() {
        // Own keys win wherever they are written; then each source in order; within a
        // source the last duplicate wins, and what it merges comes after its own keys.
        let src = "\
base: &base {a: base, b: base, b: base2}
over: &over {<<: *base, a: over, c: over}
m:
  a: own
  <<: [*over, {d: inline, c: inline}]
";
        let file = loaded(src);
        let root = file.documents[0].root().unwrap();
        let m = root.get("m").unwrap();
        let get = |k: &str| m.get(k).and_then(|v| v.as_str());
        assert_eq!(get("a"), Some("own"));
        assert_eq!(get("b"), Some("base2"));
        assert_eq!(get("c"), Some("over"));
        assert_eq!(get("d"), Some("inline"));
        let keys: Vec<&str> = m.entries().filter_map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "c", "b", "d"]);
        // As written, the merge key is still there.
        assert_eq!(m.written_entries().count(), 2);
    }

    fn chain(len: usize) -> String {
        let mut src = String::from("a0: &a0 {k0: v}\n");
        for i in 1..len {
            src.push_str(&format!("a{i}: &a{i} {{<<: *a{}, k{i}: v}}\n", i - 1));
        }
        src + &format!("top: {{<<: *a{}}}\n", len - 1)
    }

    #[test]
    fn merge_chains_resolve_without_recursion() {
        let src = chain(100);
        let file = loaded(&src);
        let top = file.documents[0].root().unwrap().get("top").unwrap();
        assert_eq!(top.get("k0").and_then(|v| v.as_str()), Some("v"));
        assert_eq!(top.entries().count(), 100);
        // 5,000 deep: go-yaml decodes ~60 million nodes, nearly all copies, and refuses it;
        // so does lblint, without a recursion that deep.
        let file = load(&chain(5000), &Limits::default());
        assert!(file.too_complex[0].rejected_by_kubernetes);
    }

    #[test]
    fn merges_over_the_budget_give_up_the_document_at_the_merge_key() {
        // 30 mappings each merging one 300-key anchor: 9,000 merged entries. go-yaml's
        // ratio limit is hit first by anything this size in practice (merged content is
        // alias expansion), so the budget is a safety net; test it with a small one.
        let keys: Vec<String> = (0..300).map(|i| format!("k{i}: {i}")).collect();
        let mut src = format!("big: &big {{{}}}\nlist:\n", keys.join(", "));
        for _ in 0..30 {
            src.push_str("  - {<<: *big}\n");
        }
        let mut doc = load(&src, &Limits::default()).documents.remove(0);
        assert_eq!(super::index_merges(&mut doc.clone(), 9_000), Ok(()));
        let over = super::index_merges(&mut doc, 8_999).unwrap_err();
        assert!(!over.rejected_by_kubernetes);
        assert!(
            over.message.contains("more than 8999 entries"),
            "{}",
            over.message
        );
        assert_eq!(over.span.slice(&src), "<<");
        assert_eq!(over.span.start.line, 32);
    }

    #[test]
    fn an_alias_inside_its_own_anchor_is_rejected() {
        let file = load("a: &a {x: 1, <<: *a}\n", &Limits::default());
        if file.errors.is_empty() {
            assert!(file.documents.is_empty());
            assert!(file.too_complex[0].message.contains("contains it"));
        }
        // Either way nothing hangs and the document is not linted.
        assert!(file.documents.is_empty());
    }

    #[test]
    fn modest_alias_use_is_accepted() {
        let src =
            "common: &c {team: shop}\nitems:\n".to_string() + &"  - {<<: *c, x: 1}\n".repeat(2000);
        let file = loaded(&src);
        assert!(file.too_complex.is_empty());
        let items = file.documents[0].root().unwrap().get("items").unwrap();
        assert!(items
            .items()
            .all(|i| i.get("team").and_then(|v| v.as_str()) == Some("shop")));
    }
}
