//! The pods behind each entry point: a Service's by its selector, an Ingress's through the
//! Services it routes to, an ASM IstioGateway's by its pod labels. Indexed by pod label so
//! a selector is matched against its candidates only (linear in the manifest set).

use std::collections::HashMap;
use std::sync::Arc;

use crate::objects::{ObjectId, Workspace};
use crate::views::{pod_template, selector_matches, Views};

use super::EntryKind;

/// A Service's namespace and its selector's pairs, sorted.
type SelectorKey<'a> = (&'a str, Vec<(&'a str, &'a str)>);

pub(super) struct Backends<'w> {
    ws: &'w Workspace,
    views: &'w Views<'w>,
    /// Every object with a pod template, in object order.
    pub(super) workloads: Vec<ObjectId>,
    by_namespace: HashMap<&'w str, Vec<ObjectId>>,
    /// (namespace, label key, label value) -> workloads whose pods carry that label.
    by_label: HashMap<(&'w str, &'w str, &'w str), Vec<ObjectId>>,
    /// Services often share one selector (a Service per port, blue/green pairs): each
    /// distinct (namespace, selector) is matched once, so N Services over N workloads stay
    /// linear. Per selector: the matching workloads, and whether they all sit in one file
    /// (then every Service with that selector takes them all, shared).
    by_selector: HashMap<SelectorKey<'w>, (Arc<[ObjectId]>, bool)>,
}

impl<'w> Backends<'w> {
    pub(super) fn new(ws: &'w Workspace, views: &'w Views<'w>) -> Backends<'w> {
        let mut backends = Backends {
            ws,
            views,
            workloads: Vec::new(),
            by_namespace: HashMap::new(),
            by_label: HashMap::new(),
            by_selector: HashMap::new(),
        };
        for (index, object) in ws.ids() {
            if let Some(template) = pod_template(ws, object) {
                backends.workloads.push(index);
                backends
                    .by_namespace
                    .entry(object.namespace())
                    .or_default()
                    .push(index);
                for (key, value) in template.label_map() {
                    backends
                        .by_label
                        .entry((object.namespace(), key, value))
                        .or_default()
                        .push(index);
                }
            }
        }
        backends
    }

    /// The Services an entry point routes to (an Ingress's) and the pods behind it.
    pub(super) fn of_entry(
        &mut self,
        entry: ObjectId,
        kind: EntryKind,
    ) -> (Vec<ObjectId>, Arc<[ObjectId]>) {
        match kind {
            EntryKind::Service => (Vec::new(), self.of_service(entry)),
            EntryKind::External => (vec![entry], self.of_service(entry)),
            EntryKind::Ingress => {
                let services = self.ingress_services(entry);
                let mut pods: Vec<ObjectId> = services
                    .iter()
                    .flat_map(|&s| self.of_service(s).to_vec())
                    .collect();
                pods.sort_unstable();
                pods.dedup();
                (services, Arc::from(pods))
            }
            EntryKind::IstioGateway => (Vec::new(), self.gateway_pods(entry).into()),
            EntryKind::Gateway => (Vec::new(), Arc::from([])),
        }
    }

    /// The pods a Service selects (none without a selector).
    fn of_service(&mut self, service: ObjectId) -> Arc<[ObjectId]> {
        let ws = self.ws;
        let object = &ws.objects[service];
        let selector = self.views.service(service).and_then(|s| s.selector());
        let pairs: Option<Vec<(&str, &str)>> = selector.and_then(|s| {
            s.entries()
                .map(|(k, v)| Some((k.as_str()?, v.as_str()?)))
                .collect()
        });
        let Some(pairs) = pairs.filter(|p| !p.is_empty()) else {
            return Arc::from([]);
        };
        let (key, value) = pairs[0];
        let mut sorted = pairs;
        sorted.sort_unstable();
        let by_label = &self.by_label;
        let (all, one_file) = self
            .by_selector
            .entry((object.namespace(), sorted))
            .or_insert_with(|| {
                let all: Arc<[ObjectId]> = by_label
                    .get(&(object.namespace(), key, value))
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&w| {
                        pod_template(ws, &ws.objects[w])
                            .is_some_and(|t| selector_matches(selector, t.labels))
                    })
                    .collect();
                let one_file = all.first().is_none_or(|f| {
                    all.iter()
                        .all(|w| ws.objects[*w].file == ws.objects[*f].file)
                });
                (all, one_file)
            })
            .clone();
        // Same-named workloads in several overlays: the Service's own copy.
        if one_file {
            all
        } else {
            Arc::from(ws.nearest(object, &all))
        }
    }

    /// The Services an Ingress routes to, each once (same-named Services in several
    /// overlays: the Ingress's own).
    fn ingress_services(&self, ingress: ObjectId) -> Vec<ObjectId> {
        let ws = self.ws;
        let object = &ws.objects[ingress];
        let names = self.views.ingress(ingress).map(|i| i.service_names.clone());
        names
            .into_iter()
            .flatten()
            .flat_map(|name| {
                // Through the workspace's name index, not a map of its own of every Service.
                let all: Vec<ObjectId> = ws
                    .named_ids("Service", name)
                    .filter(|&id| {
                        let service = &ws.objects[id];
                        service.group().is_empty() && service.namespace() == object.namespace()
                    })
                    .collect();
                ws.nearest(object, &all)
            })
            .fold(Vec::new(), |mut acc, s| {
                if !acc.contains(&s) {
                    acc.push(s);
                }
                acc
            })
    }

    /// The gateway pods of an ASM IstioGateway, when present in the set: workloads in its
    /// namespace whose pod labels include its `podLabels`, or that carry its name.
    fn gateway_pods(&self, gateway: ObjectId) -> Vec<ObjectId> {
        let ws = self.ws;
        let object = &ws.objects[gateway];
        let pod_labels = self.views.istio_gateway(gateway).and_then(|g| g.pod_labels);
        self.by_namespace
            .get(object.namespace())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&w| {
                let workload = &ws.objects[w];
                workload.name() == object.name()
                    || pod_template(ws, workload)
                        .is_some_and(|t| selector_matches(pod_labels, t.labels))
            })
            .collect()
    }
}
