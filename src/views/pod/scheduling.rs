//! What a pod template says about where its pods may run: node selector, required node
//! affinity, tolerations and required pod (anti-)affinity, read into plain values. The
//! model decides what they mean for the profile's node pools.

use std::collections::BTreeMap;

use crate::yaml::NodeRef;

use super::PodTemplate;

/// A `matchExpressions` entry (node or label selector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement<'w> {
    pub key: Option<&'w str>,
    /// As written; empty when not.
    pub operator: &'w str,
    pub values: Vec<&'w str>,
}

impl<'w> Requirement<'w> {
    fn of(expr: NodeRef<'w>) -> Requirement<'w> {
        Requirement {
            key: expr.get("key").and_then(|k| k.as_str()),
            operator: expr.get("operator").and_then(|o| o.as_str()).unwrap_or(""),
            values: strings(expr.get("values")),
        }
    }
}

/// One `nodeSelectorTerms[]` entry: its expressions are ANDed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSelectorTerm<'w> {
    pub expressions: Vec<Requirement<'w>>,
    /// It has `matchFields` (node fields, which no profile states).
    pub match_fields: bool,
}

/// One `tolerations[]` entry; unset fields are empty, an unset operator `Equal`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toleration<'w> {
    pub key: &'w str,
    pub operator: &'w str,
    pub value: &'w str,
    pub effect: &'w str,
}

/// A label selector: `matchLabels` (pairs with non-string keys or values kept as `None`)
/// and `matchExpressions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelSelector<'w> {
    pub match_labels: Vec<(Option<&'w str>, Option<&'w str>)>,
    pub expressions: Vec<Requirement<'w>>,
    /// Written as `{}` (or with nothing in it).
    pub empty: bool,
}

/// A required `podAffinity` or `podAntiAffinity` term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodAffinityTerm<'w> {
    pub topology_key: Option<&'w str>,
    pub namespaces: Vec<&'w str>,
    pub label_selector: Option<LabelSelector<'w>>,
}

fn strings(node: Option<NodeRef<'_>>) -> Vec<&str> {
    node.into_iter()
        .flat_map(NodeRef::items)
        .filter_map(|v| v.as_str())
        .collect()
}

impl<'w> PodTemplate<'w> {
    /// `spec.nodeSelector` pairs; `None` for a key or value that is not a string.
    pub fn node_selector_pairs(&self) -> Vec<(Option<&'w str>, Option<&'w str>)> {
        self.spec
            .get("nodeSelector")
            .into_iter()
            .flat_map(NodeRef::entries)
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// Required node affinity's `nodeSelectorTerms` (ORed); `None` when not written.
    pub fn required_node_terms(&self) -> Option<Vec<NodeSelectorTerm<'w>>> {
        let terms = self.spec.path(&[
            "affinity",
            "nodeAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
            "nodeSelectorTerms",
        ])?;
        Some(
            terms
                .items()
                .map(|term| NodeSelectorTerm {
                    expressions: term
                        .get("matchExpressions")
                        .into_iter()
                        .flat_map(NodeRef::items)
                        .map(Requirement::of)
                        .collect(),
                    match_fields: term
                        .get("matchFields")
                        .is_some_and(|f| f.items().next().is_some()),
                })
                .collect(),
        )
    }

    pub fn tolerations(&self) -> Vec<Toleration<'w>> {
        let text = |t: NodeRef<'w>, key: &str| t.get(key).and_then(|v| v.as_str());
        self.spec
            .get("tolerations")
            .into_iter()
            .flat_map(NodeRef::items)
            .map(|t| Toleration {
                key: text(t, "key").unwrap_or(""),
                operator: text(t, "operator").unwrap_or("Equal"),
                value: text(t, "value").unwrap_or(""),
                effect: text(t, "effect").unwrap_or(""),
            })
            .collect()
    }

    /// Required `podAffinity` (`anti` false) or `podAntiAffinity` (`anti` true) terms.
    pub fn required_pod_terms(&self, anti: bool) -> Vec<PodAffinityTerm<'w>> {
        let kind = if anti {
            "podAntiAffinity"
        } else {
            "podAffinity"
        };
        self.spec
            .path(&[
                "affinity",
                kind,
                "requiredDuringSchedulingIgnoredDuringExecution",
            ])
            .into_iter()
            .flat_map(NodeRef::items)
            .map(|term| PodAffinityTerm {
                topology_key: term.get("topologyKey").and_then(|t| t.as_str()),
                namespaces: strings(term.get("namespaces")),
                label_selector: term.get("labelSelector").map(LabelSelector::of),
            })
            .collect()
    }

    /// The pods' labels that are strings, by key.
    pub fn label_map(&self) -> BTreeMap<&'w str, &'w str> {
        self.labels
            .into_iter()
            .flat_map(NodeRef::entries)
            .filter_map(|(k, v)| Some((k.as_str()?, v.as_str()?)))
            .collect()
    }
}

impl<'w> LabelSelector<'w> {
    fn of(selector: NodeRef<'w>) -> LabelSelector<'w> {
        LabelSelector {
            match_labels: selector
                .get("matchLabels")
                .into_iter()
                .flat_map(NodeRef::entries)
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
            expressions: selector
                .get("matchExpressions")
                .into_iter()
                .flat_map(NodeRef::items)
                .map(Requirement::of)
                .collect(),
            empty: selector.entries().next().is_none(),
        }
    }
}
