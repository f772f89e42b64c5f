//! Where each workload's pods may run: profile node pools filtered by nodeSelector,
//! required node affinity and taints; and whether two workloads can share a node.

use std::collections::BTreeMap;

use crate::profile::tke::{INSTANCE_TYPE_LABEL, SUPER_NODE_INSTANCE_TYPE};
use crate::profile::{NodePool, NodeType, TaintEffect};
use crate::views::{LabelSelector, PodTemplate, Requirement, Toleration};

/// A three-valued answer: the profile may not hold the fact that decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    Yes,
    No,
    Unknown,
}

impl Fit {
    /// Both: `No` wins, then `Unknown`.
    pub fn and(self, other: Fit) -> Fit {
        match (self, other) {
            (Fit::No, _) | (_, Fit::No) => Fit::No,
            (Fit::Yes, Fit::Yes) => Fit::Yes,
            _ => Fit::Unknown,
        }
    }

    /// Either: `Yes` wins, then `Unknown`.
    pub fn or(self, other: Fit) -> Fit {
        match (self, other) {
            (Fit::Yes, _) | (_, Fit::Yes) => Fit::Yes,
            (Fit::No, Fit::No) => Fit::No,
            _ => Fit::Unknown,
        }
    }

    pub fn from_bool(b: bool) -> Fit {
        if b {
            Fit::Yes
        } else {
            Fit::No
        }
    }

    /// Every one (`Yes` for none).
    pub fn all(fits: impl IntoIterator<Item = Fit>) -> Fit {
        fits.into_iter().fold(Fit::Yes, Fit::and)
    }

    /// At least one (`No` for none).
    pub fn any(fits: impl IntoIterator<Item = Fit>) -> Fit {
        fits.into_iter().fold(Fit::No, Fit::or)
    }
}

pub const HOSTNAME_TOPOLOGY: &str = "kubernetes.io/hostname";

/// For each profile node pool (same order), can the workload's pods land there?
/// `None` when the profile lists no node pools: scheduling is unknown.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Placement {
    pub pools: Option<Vec<Fit>>,
}

impl Placement {
    /// Fit on any pool of the kind `kind` asks for. `kind` is three-valued: a pool whose
    /// kind the profile does not state (a pool without `type`) is unknown, never "no".
    pub fn any(&self, pools: &[NodePool], kind: impl Fn(&NodePool) -> Fit) -> Fit {
        match &self.pools {
            None => Fit::Unknown,
            Some(fits) => Fit::any(fits.iter().zip(pools).map(|(fit, p)| fit.and(kind(p)))),
        }
    }
}

/// A pool's value for a node label: `Yes(value)`, known absent, or unknown.
enum LabelValue<'p> {
    Known(Option<&'p str>),
    Unknown,
}

fn pool_label<'p>(pool: &'p NodePool, key: &str) -> LabelValue<'p> {
    if key == INSTANCE_TYPE_LABEL {
        match pool.node_type {
            Some(NodeType::Super) => return LabelValue::Known(Some(SUPER_NODE_INSTANCE_TYPE)),
            // Regular and native nodes are CVMs: their instance type is never `eklet`.
            Some(NodeType::Regular | NodeType::Native) => {
                if let Some(value) = pool.labels.as_ref().and_then(|l| l.get(key)) {
                    return LabelValue::Known(Some(value));
                }
                return LabelValue::Unknown;
            }
            None => {}
        }
    }
    match &pool.labels {
        Some(labels) => LabelValue::Known(labels.get(key).map(String::as_str)),
        None => LabelValue::Unknown,
    }
}

/// Regular/native pool asked for `eklet`: known mismatch even without labels.
fn instance_type_mismatch(pool: &NodePool, key: &str, wanted: &str) -> bool {
    key == INSTANCE_TYPE_LABEL
        && wanted == SUPER_NODE_INSTANCE_TYPE
        && matches!(pool.node_type, Some(NodeType::Regular | NodeType::Native))
}

fn node_selector_fit(template: &PodTemplate<'_>, pool: &NodePool) -> Fit {
    let mut fit = Fit::Yes;
    for pair in template.node_selector_pairs() {
        let (Some(key), Some(value)) = pair else {
            return Fit::Unknown;
        };
        if instance_type_mismatch(pool, key, value) {
            return Fit::No;
        }
        fit = fit.and(match pool_label(pool, key) {
            LabelValue::Known(actual) => Fit::from_bool(actual == Some(value)),
            LabelValue::Unknown => Fit::Unknown,
        });
    }
    fit
}

fn expression_fit(expr: &Requirement<'_>, pool: &NodePool) -> Fit {
    let Some(key) = expr.key else {
        return Fit::Unknown;
    };
    let (operator, values) = (expr.operator, &expr.values);
    if operator == "In" && values.len() == 1 && instance_type_mismatch(pool, key, values[0]) {
        return Fit::No;
    }
    let LabelValue::Known(actual) = pool_label(pool, key) else {
        return Fit::Unknown;
    };
    match operator {
        "In" => Fit::from_bool(actual.is_some_and(|a| values.contains(&a))),
        "NotIn" => Fit::from_bool(!actual.is_some_and(|a| values.contains(&a))),
        "Exists" => Fit::from_bool(actual.is_some()),
        "DoesNotExist" => Fit::from_bool(actual.is_none()),
        // Gt/Lt compare integers; anything else the API server would reject.
        "Gt" | "Lt" => {
            let (Some(actual), Some(bound)) = (
                actual.and_then(|a| a.parse::<i64>().ok()),
                values.first().and_then(|v| v.parse::<i64>().ok()),
            ) else {
                return Fit::No;
            };
            Fit::from_bool(if operator == "Gt" {
                actual > bound
            } else {
                actual < bound
            })
        }
        _ => Fit::Unknown,
    }
}

fn node_affinity_fit(template: &PodTemplate<'_>, pool: &NodePool) -> Fit {
    let Some(terms) = template.required_node_terms() else {
        return Fit::Yes;
    };
    if terms.is_empty() {
        return Fit::Yes;
    }
    // Terms are ORed; expressions within a term are ANDed.
    let mut fit = Fit::No;
    for term in &terms {
        let mut term_fit = Fit::Yes;
        for expr in &term.expressions {
            term_fit = term_fit.and(expression_fit(expr, pool));
        }
        if term.match_fields {
            term_fit = term_fit.and(Fit::Unknown);
        }
        fit = fit.or(term_fit);
    }
    fit
}

fn tolerates(
    tolerations: &[Toleration<'_>],
    key: Option<&str>,
    value: Option<&str>,
    effect: &str,
) -> bool {
    tolerations.iter().any(|t| {
        let exists = t.operator == "Exists";
        let key_ok = (t.key.is_empty() && exists) || Some(t.key) == key;
        let value_ok = exists || Some(t.value) == value.or(Some(""));
        let effect_ok = t.effect.is_empty() || t.effect == effect;
        key_ok && value_ok && effect_ok
    })
}

fn taints_fit(template: &PodTemplate<'_>, pool: &NodePool) -> Fit {
    let Some(taints) = &pool.taints else {
        // Super nodes carry taints by default; without the profile's list we cannot tell.
        return if pool.node_type == Some(NodeType::Super) {
            Fit::Unknown
        } else {
            Fit::Yes
        };
    };
    let tolerations = template.tolerations();
    let mut fit = Fit::Yes;
    for taint in taints {
        let effect = match taint.effect {
            Some(TaintEffect::NoSchedule) => "NoSchedule",
            Some(TaintEffect::NoExecute) => "NoExecute",
            // PreferNoSchedule does not keep pods off the node.
            Some(TaintEffect::PreferNoSchedule) => continue,
            None => {
                fit = fit.and(Fit::Unknown);
                continue;
            }
        };
        if !tolerates(
            &tolerations,
            taint.key.as_deref(),
            taint.value.as_deref(),
            effect,
        ) {
            return Fit::No;
        }
    }
    fit
}

/// Can pods of this template be scheduled on this pool?
pub fn pool_fit(template: &PodTemplate<'_>, pool: &NodePool) -> Fit {
    node_selector_fit(template, pool)
        .and(node_affinity_fit(template, pool))
        .and(taints_fit(template, pool))
}

pub fn placement(template: &PodTemplate<'_>, pools: Option<&[NodePool]>) -> Placement {
    Placement {
        pools: pools
            .filter(|p| !p.is_empty())
            .map(|pools| pools.iter().map(|p| pool_fit(template, p)).collect()),
    }
}

/// Does a Kubernetes label selector (`matchLabels` + `matchExpressions`) select these labels?
pub fn label_selector_matches(selector: &LabelSelector<'_>, labels: &BTreeMap<&str, &str>) -> bool {
    let mut any = false;
    for &(key, value) in &selector.match_labels {
        any = true;
        if labels.get(key.unwrap_or("")).copied() != value {
            return false;
        }
    }
    for expr in &selector.expressions {
        any = true;
        let actual = labels.get(expr.key.unwrap_or("")).copied();
        let values = &expr.values;
        let ok = match expr.operator {
            "In" => actual.is_some_and(|a| values.contains(&a)),
            "NotIn" => !actual.is_some_and(|a| values.contains(&a)),
            "Exists" => actual.is_some(),
            "DoesNotExist" => actual.is_none(),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    // An empty selector `{}` selects everything in pod affinity terms.
    any || selector.empty
}

/// Does `template` (in `namespace`) require, per node, not to run beside pods with `other_labels`
/// (in `other_namespace`)? That is, required pod anti-affinity on `kubernetes.io/hostname`.
pub fn repels(
    template: &PodTemplate<'_>,
    namespace: &str,
    other_labels: &BTreeMap<&str, &str>,
    other_namespace: &str,
) -> bool {
    requires(
        template,
        "podAntiAffinity",
        namespace,
        other_labels,
        other_namespace,
    )
}

/// Does `template` require to run on a node beside pods with `other_labels`? That is,
/// required pod affinity on `kubernetes.io/hostname`: it is then never on a node without
/// one.
pub fn attracts(
    template: &PodTemplate<'_>,
    namespace: &str,
    other_labels: &BTreeMap<&str, &str>,
    other_namespace: &str,
) -> bool {
    requires(
        template,
        "podAffinity",
        namespace,
        other_labels,
        other_namespace,
    )
}

/// A required `podAffinity` or `podAntiAffinity` term on `kubernetes.io/hostname` that
/// selects pods with `other_labels` in `other_namespace`.
fn requires(
    template: &PodTemplate<'_>,
    kind: &str,
    namespace: &str,
    other_labels: &BTreeMap<&str, &str>,
    other_namespace: &str,
) -> bool {
    template
        .required_pod_terms(kind == "podAntiAffinity")
        .iter()
        .any(|term| {
            let namespace_ok = if term.namespaces.is_empty() {
                namespace == other_namespace
            } else {
                term.namespaces.contains(&other_namespace)
            };
            term.topology_key == Some(HOSTNAME_TOPOLOGY)
                && namespace_ok
                && term
                    .label_selector
                    .as_ref()
                    .is_some_and(|s| label_selector_matches(s, other_labels))
        })
}
