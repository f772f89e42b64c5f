//! Huawei Cloud CCE (rules/CCE001.md to CCE003.md). CCE001 (`externalTrafficPolicy: Local`
//! called in-cluster without `kubernetes.io/elb.pass-through`) is a member of the
//! local-policy family (`rules::family::local_policy`), so each Service is judged once.
//! CCE002: pass-through on CCE Standard with a caller that can share a node with a backend
//! pod, which fails with a dedicated ELB. CCE003: Services on one ELB that disagree on
//! pass-through under IPVS.

pub(crate) mod mixed_pass_through;
pub(crate) mod pass_through_same_node;

use crate::rules::family::local_policy::cce_pass_through as pass_through;

pub(crate) const ELB_ID: &str = "kubernetes.io/elb.id";
const BEST_PRACTICE: &str =
    "https://support.huaweicloud.com/intl/en-us/bestpractice-cce/cce_bestpractice_0301.html";
