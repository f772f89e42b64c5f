//! Layer 2: object annotations `ignore.lblint.dev/<rule id or name>: "<reason>"`, on the
//! object the diagnostic is about (found by file and [`ObjectRef`]).

use std::collections::{HashMap, HashSet};

use super::{is_lbl004, unknown_rule, unused, ANNOTATION_PREFIX};
use crate::catalog;
use crate::catalog::RuleMeta;
use crate::diagnostic::Diagnostic;
use crate::objects::{Object, Workspace};
use crate::source::{Location, ObjectRef};

struct AnnotationSite {
    object: usize,
    rule: &'static RuleMeta,
    location: Location,
    used: bool,
    /// The object also carries an LBL004 suppression: never reported as unused.
    keep: bool,
}

/// The suppression annotations of a run, by object.
pub(super) struct Annotations<'w> {
    ws: &'w Workspace,
    sites: Vec<AnnotationSite>,
    /// Objects by (file, identity) → indices into `ws.objects`.
    objects: HashMap<(&'w str, &'w ObjectRef), Vec<usize>>,
    /// Object index → indices into `sites`.
    of_object: HashMap<usize, Vec<usize>>,
}

impl<'w> Annotations<'w> {
    /// Every suppression annotation of `ws`; unknown rules become notes.
    pub(super) fn collect(ws: &'w Workspace, notes: &mut Vec<Diagnostic>) -> Self {
        let sites = collect_annotations(ws, notes);
        let key =
            |o: &'w Object| -> (&'w str, &'w ObjectRef) { (&ws.files[o.file].source.path, &o.id) };
        // Only the objects of an identity that carries a suppression: an index of every
        // object took 120 to 155 bytes an object on a stream with no suppression at all.
        let wanted: HashSet<_> = sites.iter().map(|a| key(&ws.objects[a.object])).collect();
        let mut objects: HashMap<(&str, &ObjectRef), Vec<usize>> = HashMap::new();
        for (i, o) in ws.objects.iter().enumerate() {
            if !wanted.is_empty() && wanted.contains(&key(o)) {
                objects.entry(key(o)).or_default().push(i);
            }
        }
        let mut of_object: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, a) in sites.iter().enumerate() {
            of_object.entry(a.object).or_default().push(i);
        }
        Annotations {
            ws,
            sites,
            objects,
            of_object,
        }
    }

    /// Whether an annotation on `d`'s object suppresses `d`; every one that does is
    /// marked used.
    pub(super) fn suppress(&mut self, d: &Diagnostic) -> bool {
        let mut hit = false;
        if let Some(object) = d.object().and_then(|id| self.object_of(d, id)) {
            for &i in self.of_object.get(&object).into_iter().flatten() {
                if self.sites[i].rule.id == d.rule() {
                    self.sites[i].used = true;
                    hit = true;
                }
            }
        }
        hit
    }

    /// The object a diagnostic is about: same file, same identity; when a file holds the
    /// same identity twice, the one whose document contains the diagnostic.
    fn object_of(&self, d: &Diagnostic, id: &ObjectRef) -> Option<usize> {
        let candidates = self.objects.get(&(&*d.location().file, id))?;
        let offset = d.location().span.start.offset;
        candidates
            .iter()
            .copied()
            .find(|&i| {
                let span = self.ws.document(&self.ws.objects[i]).span;
                span.start.offset <= offset && offset <= span.end.offset
            })
            .or_else(|| candidates.first().copied())
    }

    /// LBL004 notes for annotations that suppressed nothing, except in `broken` files
    /// and for rules that did not run.
    pub(super) fn unused(
        &self,
        broken: &[&str],
        enabled: &dyn Fn(&'static RuleMeta) -> bool,
        notes: &mut Vec<Diagnostic>,
    ) {
        for a in &self.sites {
            if !a.used && !a.keep && enabled(a.rule) && !broken.contains(&&*a.location.file) {
                let object = &self.ws.objects[a.object];
                let note = unused(
                    a.location.clone(),
                    format!(
                        "Unused suppression: {} has no `{}` diagnostic to ignore.",
                        object.id, a.rule.id
                    ),
                    "remove the annotation",
                )
                .on(object);
                notes.push(note);
            }
        }
    }
}

fn collect_annotations(ws: &Workspace, notes: &mut Vec<Diagnostic>) -> Vec<AnnotationSite> {
    let mut sites = Vec::new();
    for (index, object) in ws.objects.iter().enumerate() {
        let Some(annotations) = ws.root(object).path(&["metadata", "annotations"]) else {
            continue;
        };
        let keep = annotations.entries().any(|(key, _)| {
            key.as_str()
                .and_then(|k| k.strip_prefix(ANNOTATION_PREFIX))
                .is_some_and(|k| is_lbl004(catalog::lookup(k)))
        });
        for (key, _value) in annotations.entries() {
            let Some(rule_key) = key.as_str().and_then(|k| k.strip_prefix(ANNOTATION_PREFIX))
            else {
                continue;
            };
            let location = ws.location(object, key.span());
            match catalog::lookup(rule_key) {
                Some(rule) => sites.push(AnnotationSite {
                    object: index,
                    rule,
                    location,
                    used: false,
                    keep,
                }),
                None if keep => {}
                None => {
                    let note = unknown_rule(location, rule_key, "a suppression annotation");
                    notes.push(note.about(object.id.clone()));
                }
            }
        }
    }
    sites
}
