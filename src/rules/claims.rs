//! Claims between rules, declared as data instead of edits after the fact (as ruff resolves
//! its incompatible rules at selection). Two kinds:
//!
//! - **Entry claims**, declared before any rule reports ([`Rule::claims`]): the rule judges
//!   the in-cluster calls of this load balancer, whatever it finds. K8S010 leaves a claimed
//!   load balancer to its owner (the PROXY-protocol family's members, EKS001, VKE004).
//! - **Verdicts**, recorded as a rule names a call in its finding (`verdict::with_callers`):
//!   the call has its verdict and its rewrite. A rule that [yields](Rule::yields_to_verdicts)
//!   runs after all the others and stays silent on such a call (K8S001), so one call gets
//!   one finding whichever rules judge it.
//!
//! A rule this run does not report (`--ignore`, `--select`, config `off`) claims nothing.

use std::cell::RefCell;
use std::collections::HashSet;

use super::{Context, Rule};
use crate::model::{Caller, EntryPoint};
use crate::source::{Location, ObjectRef};

pub struct Claims<'a> {
    /// The rules of this run that it reports, in run order.
    reported: Vec<&'a dyn Rule>,
    /// The calls a reported rule's finding has named: the caller's identity and the call.
    verdicts: RefCell<HashSet<(ObjectRef, Location)>>,
}

impl<'a> Claims<'a> {
    /// Claims among `rules` that `enabled` says the run reports.
    pub(crate) fn new(rules: &[&'a dyn Rule], enabled: impl Fn(&str) -> bool) -> Self {
        Claims {
            reported: rules
                .iter()
                .copied()
                .filter(|r| enabled(r.meta().id))
                .collect(),
            verdicts: RefCell::default(),
        }
    }

    /// The rule that judges the in-cluster calls of `entry`, if one claims it.
    pub(crate) fn owner(&self, cx: &Context<'_>, entry: &EntryPoint) -> Option<&'a dyn Rule> {
        self.reported
            .iter()
            .copied()
            .find(|rule| rule.claims(cx, entry))
    }

    /// `rule`'s finding names `caller`'s call: the call has a verdict.
    pub(crate) fn judged(&self, cx: &Context<'_>, rule: &str, caller: &Caller) {
        if !self.reported.iter().any(|r| r.meta().id == rule) {
            return;
        }
        let workload = (*cx.ws.objects[caller.workload].id).clone();
        let call = super::rename::call_location(caller);
        self.verdicts.borrow_mut().insert((workload, call));
    }

    /// Whether a finding of another rule has judged `caller`'s call (from the same
    /// workload at the same place, whichever copy of the load balancer it reaches).
    pub(crate) fn has_verdict(&self, cx: &Context<'_>, caller: &Caller) -> bool {
        let verdicts = self.verdicts.borrow();
        !verdicts.is_empty() && {
            let workload = (*cx.ws.objects[caller.workload].id).clone();
            verdicts.contains(&(workload, super::rename::call_location(caller)))
        }
    }
}
