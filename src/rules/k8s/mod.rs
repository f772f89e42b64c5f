//! Rules for any provider.

mod ambiguous_host;
pub(crate) mod annotation_rejected;
pub(crate) mod annotation_value_not_string;
pub(crate) mod class_ignores_annotations;
pub(crate) mod external_lb_hairpin;
pub(crate) mod internal_traffic_policy_local;
pub mod lb_address_in_cluster;
pub(crate) mod no_short_circuit;
