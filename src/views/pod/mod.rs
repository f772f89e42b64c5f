//! Pod templates: what every workload (Deployment, StatefulSet, DaemonSet, Job, CronJob,
//! CRDs shaped alike) and a bare Pod say about the pods they run.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

mod containers;
mod scheduling;

pub use containers::{Argv, Read, Site, Store};
pub use scheduling::{LabelSelector, Requirement, Toleration};

/// The kinds read whole as pods; every other object with a pod template (`spec.template`,
/// `spec.jobTemplate`) is a workload whatever its kind (see [`crate::views::slim`]).
pub const POD: &[Kind] = &[("", "Pod")];

/// The pod template of a workload: `spec.template` (Deployment, StatefulSet, DaemonSet,
/// ReplicaSet, Job, and CRDs shaped alike), `spec.jobTemplate.spec.template` (CronJob),
/// or the Pod itself. Returns (template metadata-bearing node, pod spec).
pub fn pod_template<'w>(ws: &'w Workspace, object: &Object) -> Option<PodTemplate<'w>> {
    let root = ws.root(object);
    if super::is_kind(object, POD) {
        return Some(PodTemplate {
            labels: root.path(&["metadata", "labels"]),
            spec: root.get("spec")?,
        });
    }
    let template = if object.kind() == "CronJob" {
        root.path(&["spec", "jobTemplate", "spec", "template"])?
    } else {
        root.path(&["spec", "template"])?
    };
    let spec = template.get("spec")?;
    // A CRD's `spec.template` counts only if it is shaped like a pod template.
    spec.get("containers")?;
    Some(PodTemplate {
        labels: template.path(&["metadata", "labels"]),
        spec,
    })
}

#[derive(Clone, Copy, Debug)]
pub struct PodTemplate<'w> {
    pub labels: Option<NodeRef<'w>>,
    pub spec: NodeRef<'w>,
}

impl<'w> PodTemplate<'w> {
    /// `spec.hostNetwork`.
    pub fn host_network(&self) -> Option<NodeRef<'w>> {
        self.spec.get("hostNetwork")
    }

    /// `spec.nodeSelector[key]`.
    pub fn node_selector(&self, key: &str) -> Option<&'w str> {
        self.spec.path(&["nodeSelector", key])?.as_str()
    }
}

/// Does every `key: value` of the selector mapping appear in the labels mapping?
/// An empty or missing selector selects nothing (a Service without selector has manual endpoints).
pub fn selector_matches(selector: Option<NodeRef<'_>>, labels: Option<NodeRef<'_>>) -> bool {
    let Some(selector) = selector else {
        return false;
    };
    let mut any = false;
    for (key, value) in selector.entries() {
        let (Some(key), Some(value)) = (key.as_str(), value.as_str()) else {
            return false;
        };
        any = true;
        let label = labels.and_then(|l| l.get(key)).and_then(|v| v.as_str());
        if label != Some(value) {
            return false;
        }
    }
    any
}
