//! Variants of one deployment: rendered texts (two kustomize overlays of one base, two
//! `helm template` runs of one chart) whose objects come from the same base file or
//! template, by their origin (kustomize `config.kubernetes.io/origin`, Helm `# Source:`).
//! Each variant goes to its own cluster or namespace, so a pod in one does not call the
//! load balancer of another: the dev overlay's Service is not the prod CronJob's target
//! just because both copy the base's address.

use std::collections::HashMap;
use std::sync::Arc;

use crate::objects::Workspace;

/// Files grouped by the origins their objects share.
pub struct Variants {
    /// The group of each file with an origin (union-find parents, by file index).
    parent: HashMap<usize, usize>,
}

impl Variants {
    pub fn new(ws: &Workspace) -> Variants {
        let mut parent: HashMap<usize, usize> = HashMap::new();
        let mut first_file: HashMap<&Arc<str>, usize> = HashMap::new();
        for object in &ws.objects {
            let Some(origin) = &object.origin else {
                continue;
            };
            parent.entry(object.file).or_insert(object.file);
            let first = *first_file.entry(origin).or_insert(object.file);
            let (a, b) = (find(&mut parent, first), find(&mut parent, object.file));
            if a != b {
                parent.insert(a.max(b), a.min(b));
            }
        }
        Variants { parent }
    }

    /// Are two files different variants of one deployment?
    pub fn apart(&mut self, a: usize, b: usize) -> bool {
        a != b
            && self.parent.contains_key(&a)
            && self.parent.contains_key(&b)
            && find(&mut self.parent, a) == find(&mut self.parent, b)
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }
}

fn find(parent: &mut HashMap<usize, usize>, file: usize) -> usize {
    let mut root = file;
    while let Some(&up) = parent.get(&root) {
        if up == root {
            break;
        }
        root = up;
    }
    // Path compression: later lookups are direct.
    let mut at = file;
    while at != root {
        let up = parent[&at];
        parent.insert(at, root);
        at = up;
    }
    root
}
