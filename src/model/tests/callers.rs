//! The caller scan's token helpers: e-mail domains, comment lines, positions.

use super::*;
use crate::model::address::never_load_balancer;

#[test]
fn mail_domains_comments_and_loopback_are_not_calls() {
    let at = |text: &str, host: &str| text.find(host).expect("host in text");
    for mail in [
        "ops@a.example.com",
        "mailto:ops@a.example.com",
        "x, ops@a.example.com",
    ] {
        assert!(is_mail_domain(mail, at(mail, "a.example.com")), "{mail}");
    }
    for url in [
        "https://user@a.example.com/",
        "a.example.com",
        "git@x https://u@a.example.com",
    ] {
        assert!(
            !is_mail_domain(url, url.rfind("a.example.com").unwrap()),
            "{url}"
        );
    }
    let conf =
        "# server a.example.com;\n  // a.example.com\n; a.example.com\nserver a.example.com;";
    let hits: Vec<bool> = conf
        .match_indices("a.example.com")
        .map(|(i, _)| in_comment_line(conf, i))
        .collect();
    assert_eq!(hits, [true, true, true, false]);
    for host in [
        "localhost",
        "127.0.0.1",
        "127.9.9.9",
        "::1",
        "web.shop.svc",
        "web.shop.svc.cluster.local.",
    ] {
        assert!(never_load_balancer(host), "{host}");
    }
    for host in [
        "10.0.0.1",
        "127.example.com",
        "api.example.com",
        "svc.example.com",
    ] {
        assert!(!never_load_balancer(host), "{host}");
    }
}
