//! The classifier on minimal cases: every kind of value, one verdict and reason each.

use super::*;

const HOST: &str = "api.example.com";

fn judge(reading: Reading<'_>, via: Via, text: &str) -> Judged {
    let doc = Document::new(&reading, text);
    let at = text.find(HOST).expect("host in text");
    classify(&via, &reading, &doc, at, HOST)
}

fn env(name: &str, text: &str) -> Evidence {
    let via = Via::Env { name: name.into() };
    judge(Reading::Env(name.into()), via, text).evidence
}

fn file(key: &str, text: &str) -> Judged {
    let via = Via::ConfigMap {
        name: "c".into(),
        key: key.into(),
    };
    judge(Reading::File(key), via, text)
}

fn arg(program: Option<&str>, previous: Option<&str>, text: &str) -> Judged {
    judge(Reading::Argv { program, previous }, Via::Arg, text)
}

#[test]
fn env_destinations_are_calls_identities_are_not_free_text_is_a_mention() {
    assert_eq!(env("API_URL", "https://api.example.com/v1"), Evidence::Call);
    assert_eq!(env("DB_HOST", HOST), Evidence::Call);
    assert_eq!(env("REDIS_ADDR", "api.example.com:6379"), Evidence::Call);
    assert_eq!(env("NODE_IP", HOST), Evidence::Call);
    assert_eq!(env("UPSTREAM", "api.example.com:443"), Evidence::Call);
    assert_eq!(env("ANYTHING", "http://api.example.com"), Evidence::Call);
    assert_eq!(
        env("GF_SERVER_ROOT_URL", "https://api.example.com/"),
        Evidence::Identity
    );
    assert_eq!(
        env("OAUTH_REDIRECT_URI", "https://api.example.com/cb"),
        Evidence::Identity
    );
    assert_eq!(
        env("CORS_ALLOWED_ORIGINS", "https://api.example.com"),
        Evidence::Identity
    );
    assert_eq!(
        env("NEXT_PUBLIC_API_URL", "https://api.example.com"),
        Evidence::Identity
    );
    assert_eq!(
        env("VITE_BACKEND", "https://api.example.com"),
        Evidence::Identity
    );
    assert_eq!(
        env("ALLOWED_HOSTS", "api.example.com,localhost"),
        Evidence::Identity
    );
    assert_eq!(env("NO_PROXY", "api.example.com,.svc"), Evidence::Mention);
    assert_eq!(
        env("BANNER", "Welcome to api.example.com"),
        Evidence::Mention
    );
    assert_eq!(env("DOMAIN", HOST), Evidence::Mention);
    assert_eq!(
        env(
            "MOTD",
            "Read the docs at https://api.example.com before you start"
        ),
        Evidence::Mention
    );
    assert_eq!(
        env("KAFKA_BROKERS", "a.example.com:9092,api.example.com:9092"),
        Evidence::Call
    );
    let why = judge(
        Reading::Env("API_URL".into()),
        Via::Arg,
        "https://api.example.com",
    );
    assert_eq!(why.reason, "env API_URL ends in URL");
}

#[test]
fn config_files_are_read_by_their_format() {
    let call = |key: &str, text: &str| file(key, text).evidence;
    assert_eq!(
        call("nginx.conf", "upstream api { server api.example.com; }"),
        Evidence::Call
    );
    assert_eq!(
        call(
            "default.conf",
            "location / {\n  proxy_pass https://api.example.com;\n}"
        ),
        Evidence::Call
    );
    assert_eq!(
        call(
            "default.conf",
            "server {\n  server_name api.example.com;\n}"
        ),
        Evidence::Identity
    );
    assert_eq!(
        call(
            "default.conf",
            "server {\n  return 301 https://api.example.com$uri;\n}"
        ),
        Evidence::Mention
    );
    assert_eq!(
        call("app.properties", "api.url=https://api.example.com"),
        Evidence::Call
    );
    assert_eq!(
        call("app.properties", "# api.url=https://api.example.com\nx=1"),
        Evidence::Mention
    );
    assert_eq!(
        call("app.properties", "homepage=https://api.example.com"),
        Evidence::Mention
    );
    assert_eq!(
        call("config.yaml", "backend:\n  host: api.example.com\n"),
        Evidence::Call
    );
    assert_eq!(
        call("config.yaml", "title: the api.example.com docs\n"),
        Evidence::Mention
    );
    assert_eq!(
        call("config.yaml", "peers:\n  - api.example.com:7946\n"),
        Evidence::Call
    );
    assert_eq!(
        call("config.yaml", "api.example.com/enabled: \"true\"\n"),
        Evidence::Mention
    );
    assert_eq!(
        call("config.yaml", "$schema: https://api.example.com/s.json\n"),
        Evidence::Mention
    );
    assert_eq!(
        call(
            "grafana.ini",
            "[server]\nroot_url = https://api.example.com/\n"
        ),
        Evidence::Identity
    );
    assert_eq!(
        call(
            "app.toml",
            "[db]\ndsn = \"postgres://u@api.example.com/db\"\n"
        ),
        Evidence::Call
    );
    assert_eq!(
        call(
            "cache.toml",
            "[x]\nstore = \"redis://api.example.com:6379\"\n"
        ),
        Evidence::Call
    );
    assert_eq!(
        call(".env", "NEXT_PUBLIC_API=https://api.example.com\n"),
        Evidence::Identity
    );
    assert_eq!(
        call(
            "haproxy.cfg",
            "backend b\n  server s1 api.example.com:443 check\n"
        ),
        Evidence::Call
    );
    assert_eq!(
        call("haproxy.cfg", "frontend f\n  bind api.example.com:443\n"),
        Evidence::Identity
    );
    assert_eq!(
        call("README.md", "Call https://api.example.com/v1 for data.\n"),
        Evidence::Mention
    );
}

#[test]
fn json_xml_and_sql_by_what_holds_the_string() {
    let j = |text: &str| file("settings.json", text);
    assert_eq!(
        j(r#"{"$schema": "https://api.example.com/schema.json", "a": 1}"#).evidence,
        Evidence::Mention
    );
    let call = j(r#"{"backend": {"endpoint": "https://api.example.com/v1"}}"#);
    assert_eq!(call.evidence, Evidence::Call);
    assert_eq!(
        call.reason,
        "settings.json: JSON: key endpoint ends in ENDPOINT"
    );
    assert_eq!(
        j(r#"{"servers": ["api.example.com:443"]}"#).evidence,
        Evidence::Call
    );
    assert_eq!(
        j(r#"{"description": "Served at https://api.example.com for all users"}"#).evidence,
        Evidence::Mention
    );
    assert_eq!(j(r#"{"api.example.com": 1}"#).evidence, Evidence::Mention);
    let x = |key: &str, text: &str| file(key, text).evidence;
    assert_eq!(
        x(
            "logo.svg",
            r#"<svg xmlns="http://api.example.com/2000/svg"></svg>"#
        ),
        Evidence::Mention
    );
    assert_eq!(x("core-site.xml", "<property><name>fs.defaultFS</name><value>hdfs://api.example.com:8020</value></property>"), Evidence::Call);
    assert_eq!(
        x("c.xml", r#"<client url="https://api.example.com/"/>"#),
        Evidence::Call
    );
    assert_eq!(
        x("c.xml", "<!-- see https://api.example.com -->\n<a/>"),
        Evidence::Mention
    );
    assert_eq!(
        x(
            "index.html",
            r#"<html><a href="https://api.example.com">x</a></html>"#
        ),
        Evidence::Mention
    );
    let sql = file(
        "init.sql",
        "CREATE TABLE s (u text);\nINSERT INTO s VALUES ('https://api.example.com');\n",
    );
    assert_eq!(sql.evidence, Evidence::Mention);
    assert_eq!(sql.reason, "init.sql: an SQL INSERT data row");
}

#[test]
fn scripts_and_flags_by_the_command_that_takes_them() {
    let sh = |text: &str| arg(Some("/bin/sh"), Some("-c"), text);
    assert_eq!(
        sh("set -e\ncurl -fsS https://api.example.com/health").reason,
        "curl argument"
    );
    assert_eq!(
        sh("# fetch from https://api.example.com\ntrue").evidence,
        Evidence::Mention
    );
    assert_eq!(
        sh("echo \"open https://api.example.com in a browser\"").evidence,
        Evidence::Mention
    );
    assert_eq!(
        sh("until nc -z api.example.com 5432; do sleep 1; done").evidence,
        Evidence::Call
    );
    assert_eq!(
        sh("psql -h api.example.com -U app -c 'select 1'").evidence,
        Evidence::Call
    );
    assert_eq!(
        sh("redis-cli -h api.example.com ping").reason,
        "redis-cli host"
    );
    assert_eq!(
        sh("openssl s_client -connect api.example.com:443 </dev/null").evidence,
        Evidence::Call
    );
    assert_eq!(
        sh("kubectl --server https://api.example.com get pods").evidence,
        Evidence::Call
    );
    assert_eq!(
        sh("git clone https://api.example.com/org/repo.git /src").evidence,
        Evidence::Call
    );
    assert_eq!(
        sh("curl -H 'Host: api.example.com' http://10.0.0.1/").evidence,
        Evidence::Mention
    );
    assert_eq!(
        sh("x=$(curl -s http://api.example.com/id) && echo $x").evidence,
        Evidence::Call
    );
    assert_eq!(
        sh("export NEXT_PUBLIC_API=https://api.example.com; npm start").evidence,
        Evidence::Identity
    );
    assert_eq!(
        arg(Some("curl"), Some("-s"), "https://api.example.com/").evidence,
        Evidence::Call
    );
    assert_eq!(
        arg(None, None, "--endpoint=api.example.com").evidence,
        Evidence::Call
    );
    assert_eq!(
        arg(None, None, "https://api.example.com").evidence,
        Evidence::Call
    );
    assert_eq!(
        arg(None, None, HOST).evidence,
        Evidence::Mention,
        "a bare name"
    );
    assert_eq!(arg(None, Some("--server"), HOST).evidence, Evidence::Call);
    for own in [
        "--public-url=https://api.example.com",
        "--bind-address=api.example.com",
        "--listen-client-urls=http://api.example.com:2379",
        "--advertise-client-urls=http://api.example.com:2379",
        "--initial-advertise-peer-urls=http://api.example.com:2380",
        "--web.external-url=https://api.example.com/prometheus",
    ] {
        assert_eq!(arg(None, None, own).evidence, Evidence::Identity, "{own}");
    }
    let peers = arg(
        None,
        None,
        "--initial-cluster=e0=http://api.example.com:2380",
    );
    assert_eq!(peers.evidence, Evidence::Call);
    assert_eq!(peers.reason, "flag --initial-cluster holds a URL to it");
    assert_eq!(
        arg(None, None, "--motd=see api.example.com").evidence,
        Evidence::Mention
    );
}

#[test]
fn hostile_values_stay_bounded() {
    // 200k nested arrays around the address, and a 4 MB minified JSON with 20k copies of
    // it: one indexing pass, a bounded look per address.
    let deep = format!(
        "{}\"https://api.example.com\"{}",
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let started = std::time::Instant::now();
    assert_eq!(file("deep.json", &deep).evidence, Evidence::Mention);
    let row = r#"{"url":"https://api.example.com/x","n":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"#;
    let big = format!("[{}{{}}]", row.repeat(20_000));
    let reading = Reading::File("big.json");
    let doc = Document::new(&reading, &big);
    let via = Via::Arg;
    let hits = big
        .match_indices(HOST)
        .map(|(at, _)| classify(&via, &reading, &doc, at, HOST));
    assert!(hits.map(|j| j.evidence).all(|e| e == Evidence::Call));
    let long_line = format!("x = {}https://api.example.com", "y".repeat(3_000_000));
    assert_eq!(file("a.ini", &long_line).evidence, Evidence::Mention);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
