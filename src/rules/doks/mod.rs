//! DigitalOcean DOKS (rules/DOKS001.md, DOKS002.md). DOKS001 (PROXY protocol or TLS
//! termination bypassed by in-cluster calls) is a member of the PROXY-protocol family
//! (`rules::family::proxy_protocol::doks`). DOKS002: the hostname way out needs a DNS record
//! first.

pub(crate) mod hostname_needs_dns;
