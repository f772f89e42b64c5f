//! Rules for any provider.

mod ambiguous_host;
pub mod annotation_rejected;
pub mod annotation_value_not_string;
pub mod class_ignores_annotations;
pub mod external_lb_hairpin;
pub mod internal_traffic_policy_local;
pub mod lb_address_in_cluster;
pub mod no_short_circuit;
