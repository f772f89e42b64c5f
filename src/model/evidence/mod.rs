//! How strongly a value that names a load-balancer address shows a call (README, "The
//! cluster model"), read by what the program will do with the string: the setting that
//! holds it (an env variable, a flag, a key of an embedded file), the command that takes
//! it in a script, the format of the file it sits in. Every verdict carries its reason.

mod files;
mod keys;
mod markup;
mod names;
mod shell;

use std::borrow::Cow;

pub use super::calls::{Evidence, Via};
use crate::views::Read;
use files::Format;

/// A verdict on one address in one value, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    pub evidence: Evidence,
    /// Short, for people: "curl argument", "env API_URL ends in URL".
    pub reason: String,
}

impl Judged {
    pub fn new(evidence: Evidence, reason: impl Into<String>) -> Judged {
        Judged {
            evidence,
            reason: reason.into(),
        }
    }

    fn prefixed(self, what: &str) -> Judged {
        Judged {
            reason: format!("{what}: {}", self.reason),
            ..self
        }
    }
}

/// How the program receives a value.
#[derive(Clone, Debug)]
pub enum Reading<'a> {
    /// An environment variable of this name (an `env` entry, or a ConfigMap or Secret
    /// key read through `envFrom` or a key reference).
    Env(Cow<'a, str>),
    /// A word of the container's `command`/`args`: the program (the command's first word,
    /// when written) and the word before it.
    Argv {
        program: Option<&'a str>,
        previous: Option<&'a str>,
    },
    /// A file of this name, mounted from a ConfigMap or Secret key.
    File(&'a str),
    /// A value only the site decides (probe host, hostAliases, image, implied calls).
    Site,
}

impl<'a> Reading<'a> {
    /// How the program receives key `key` of a store it reads as `read`: through `envFrom`
    /// each key is an env variable of that name (after the prefix), exactly as an `env`
    /// entry; through a key reference, the env variable it fills; through a volume, a file.
    pub fn of_key(read: Read<'a>, key: &'a str) -> Reading<'a> {
        match read {
            Read::EnvFrom { prefix: "" } => Reading::Env(Cow::Borrowed(key)),
            Read::EnvFrom { prefix } => Reading::Env(Cow::Owned(format!("{prefix}{key}"))),
            Read::KeyRef { env } => Reading::Env(Cow::Borrowed(env)),
            Read::Volume => Reading::File(key),
        }
    }
}

/// A value prepared once for all the addresses found in it: its format, and for JSON the
/// strings and the keys they sit under (so a huge value is read once, not per address).
pub struct Document<'t> {
    pub text: &'t str,
    format: Format,
    json: Vec<markup::JsonString>,
}

impl<'t> Document<'t> {
    pub fn new(reading: &Reading<'_>, text: &'t str) -> Document<'t> {
        let format = match reading {
            Reading::File(key) => files::format(key, text),
            Reading::Env(_) if files::is_document(text) => files::format("", text),
            _ => Format::Plain,
        };
        let json = if format == Format::Json {
            markup::json_strings(text)
        } else {
            Vec::new()
        };
        Document { text, format, json }
    }
}

/// Where an address sits in a value: facts about its shape.
#[derive(Clone, Copy)]
pub struct Spot<'t> {
    pub text: &'t str,
    pub at: usize,
    pub token: &'t str,
}

/// URL schemes of connection strings: whatever key holds one, the program dials it.
const CONNECTION_SCHEMES: &[&str] = &[
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "redis",
    "rediss",
    "mongodb",
    "mongodb+srv",
    "amqp",
    "amqps",
    "kafka",
    "nats",
    "ldap",
    "ldaps",
    "sqlserver",
    "clickhouse",
    "tcp",
    "grpc",
    "grpcs",
    "smtp",
    "smtps",
    "imap",
    "imaps",
    "ftp",
    "sftp",
    "ssh",
    "git",
    "etcd",
    "jdbc",
    "zookeeper",
    "hdfs",
    "s3",
    "nfs",
    "mqtt",
    "mqtts",
    "memcached",
    "cassandra",
];

impl<'t> Spot<'t> {
    fn before(&self) -> &'t str {
        &self.text[..self.at]
    }

    fn after(&self) -> &'t str {
        &self.text[self.at + self.token.len()..]
    }

    /// The host of a URL (`scheme://host`, `scheme://user@host`).
    pub fn in_url(&self) -> bool {
        self.scheme().is_some()
    }

    /// The scheme of the URL whose host this is.
    pub fn scheme(&self) -> Option<&'t str> {
        let mut before = self.before();
        // `scheme://user:password@host`: the userinfo holds no `/`.
        if let Some(userinfo) = before.strip_suffix('@') {
            before = &userinfo[..userinfo.rfind("//").map_or(0, |i| i + 2)];
        }
        let host_start = before.strip_suffix("//")?;
        let scheme = host_start.strip_suffix(':')?;
        let start = scheme
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        Some(&scheme[start..]).filter(|s| !s.is_empty())
    }

    pub fn with_port(&self) -> bool {
        let after = self.after();
        after.starts_with(':') && after[1..].starts_with(|c: char| c.is_ascii_digit())
    }

    /// The whitespace-, comma- or quote-bounded item holding the address.
    pub fn item(&self) -> &'t str {
        let stop = |c: char| c.is_whitespace() || matches!(c, ',' | ';' | '"' | '\'' | '`');
        let start = self.before().rfind(stop).map_or(0, |i| i + 1);
        let end = self
            .after()
            .find(stop)
            .map_or(self.text.len(), |i| self.at + self.token.len() + i);
        &self.text[start..end]
    }

    /// The item is the address itself: the host, `host:port`, or a URL to it.
    pub fn shaped(&self) -> bool {
        let item = self.item();
        self.in_url()
            || self.with_port()
            || item == self.token
            || item
                .strip_prefix(self.token)
                .is_some_and(|r| r.starts_with('/'))
    }

    /// A connection string's host (`redis://…`, `jdbc:postgresql://…`).
    pub fn connection_scheme(&self) -> Option<&'t str> {
        let scheme = self.scheme()?;
        let base = scheme.rsplit(':').next().unwrap_or(scheme);
        (CONNECTION_SCHEMES.contains(&base) || scheme.starts_with("jdbc")).then_some(scheme)
    }

    /// Text around the address reads as sentences: several plain words.
    pub fn prose(&self, around: &str) -> bool {
        around
            .split_whitespace()
            .filter(|w| w.len() > 1 && w.chars().all(|c| c.is_alphabetic() || ",.;!?".contains(c)))
            .count()
            >= 3
    }
}

/// How the `token` at byte `at` of the document's text (a value reached through `via`,
/// read as `reading`) names its host, and why.
pub fn classify(
    via: &Via,
    reading: &Reading<'_>,
    doc: &Document<'_>,
    at: usize,
    token: &str,
) -> Judged {
    let fixed = match via {
        Via::Probe => Some("probe host: the kubelet dials it"),
        Via::HostAlias => Some("hostAliases sends the pod's calls of a name to it"),
        Via::Http01SelfCheck { .. } => Some("cert-manager dials it to self-check HTTP-01"),
        Via::AuthUrl => Some("the ingress controller sends each auth subrequest to it"),
        Via::ImagePull => Some("the kubelet pulls the image from it"),
        _ => None,
    };
    if let Some(reason) = fixed {
        return Judged::new(Evidence::Call, reason);
    }
    let spot = Spot {
        text: doc.text,
        at,
        token: &doc.text[at..at + token.len()],
    };
    match reading {
        Reading::Env(name) => setting(name, &format!("env {name}"), doc, &spot),
        Reading::Argv { program, previous } => shell::argv(*program, *previous, &spot),
        Reading::File(key) if doc.format == Format::Plain => {
            setting(key, &format!("file {key}"), doc, &spot)
        }
        Reading::File(key) => files::in_document(doc, &spot).prefixed(key),
        Reading::Site => Judged::new(Evidence::Call, "named where the pod dials"),
    }
}

/// A value held by a named setting (`env NAME`, `file NAME`, `flag --name`): the name
/// says identity or allow-list first; an embedded document is read by its format; a
/// destination name with the address as its value is a call.
fn setting(name: &str, what: &str, doc: &Document<'_>, spot: &Spot<'_>) -> Judged {
    if let Some(judged) =
        names::not_a_destination(name, what).or_else(|| names::own_host(name, what))
    {
        return judged;
    }
    if doc.format != Format::Plain {
        return files::in_document(doc, spot).prefixed(what);
    }
    value_of(name, what, spot, spot.text, false)
}

/// The one-line value of a setting with a neutral or destination name. `strict`: in a
/// file, where links and data sit beside settings, a neutral key's web URL is not taken
/// for a call (a connection string or `host:port` still is). `around`: the value's text
/// that decides whether it reads as prose.
fn value_of(name: &str, what: &str, spot: &Spot<'_>, around: &str, strict: bool) -> Judged {
    if let Some(word) = names::destination_word(name) {
        if spot.shaped() {
            return Judged::new(Evidence::Call, format!("{what} ends in {word}"));
        }
    }
    if spot.prose(around) {
        return Judged::new(Evidence::Mention, format!("{what} is prose"));
    }
    if let Some(scheme) = spot.connection_scheme() {
        return Judged::new(
            Evidence::Call,
            format!("{what} is a connection string ({scheme}://)"),
        );
    }
    if spot.with_port() && spot.shaped() || spot.in_url() && !strict {
        return Judged::new(Evidence::Call, format!("{what} holds a URL to it"));
    }
    Judged::new(
        Evidence::Mention,
        format!("{what} names it, but is not a destination setting"),
    )
}

#[cfg(test)]
mod tests;
