use super::{Provider, ProxyMode}; pub fn init_template(_p: Option<Provider>, _m: Option<ProxyMode>) -> String { String::new() }
