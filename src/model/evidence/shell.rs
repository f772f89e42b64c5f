//! Container `command`/`args` and shell scripts: comments and `echo` text are mentions;
//! the host arguments of dialing commands (curl, wget, nc, psql …) are calls; a flag's
//! name decides its value (`--bind-address` is the program's own, `--endpoint` a call).

use super::keys::line_of;
use super::{names, Evidence, Judged, Spot};

/// Shells whose `-c` argument is a script.
const SHELLS: &[&str] = &["sh", "bash", "ash", "dash", "zsh", "ksh", "busybox"];

/// Commands that only print their arguments.
const PRINTERS: &[&str] = &["echo", "printf", "logger", "print", "log", "info", "warn"];

/// Commands that connect to each host argument (their header and data flags aside).
const DIALERS: &[&str] = &[
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "telnet",
    "grpcurl",
    "http",
    "https",
    "ab",
    "hey",
    "ssh",
    "scp",
    "sftp",
    "ftp",
    "mongosh",
    "mongo",
    "cqlsh",
    "grpc_health_probe",
];

/// Clients that dial only the host given by a host flag or a connection string.
const DB_CLIENTS: &[&str] = &[
    "psql",
    "pg_isready",
    "pg_dump",
    "pg_restore",
    "mysql",
    "mariadb",
    "mysqladmin",
    "mysqldump",
    "redis-cli",
    "valkey-cli",
    "clickhouse-client",
    "nats",
    "kafkacat",
    "kcat",
    "etcdctl",
];

/// Flags of dialing commands whose value is text the request carries, not a host.
const DATA_FLAGS: &[&str] = &[
    "-H",
    "--header",
    "-A",
    "--user-agent",
    "-e",
    "--referer",
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-urlencode",
    "-F",
    "--form",
    "--resolve",
    "--connect-to",
    "-o",
    "--output",
    "-O",
    "--post-data",
    "--body-data",
];

/// One word of a container's `command`/`args` (`program`: the command's first word).
pub fn argv(program: Option<&str>, previous: Option<&str>, spot: &Spot<'_>) -> Judged {
    let shell = program.is_some_and(|p| SHELLS.contains(&base(p)));
    let scripted = spot.text.contains('\n')
        || spot.text.contains(char::is_whitespace) && (shell || previous == Some("-c"));
    if scripted {
        return script(spot);
    }
    word(program.map(base), previous, spot.text, spot.at, spot)
}

fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// An address in a shell script: comments and printed text are mentions, else the simple
/// command holding it decides.
pub fn script(spot: &Spot<'_>) -> Judged {
    let (line, at) = line_of(spot);
    let Some(start) = statement_start(line, at) else {
        return Judged::new(Evidence::Mention, "a shell comment");
    };
    let words = split_words(&line[start..]);
    let at = at - start;
    let mut command: Option<&str> = None;
    let mut previous: Option<&str> = None;
    let mut started = false;
    for &(w_start, w) in &words {
        let holds = w_start <= at && at < w_start + w.len();
        if !started {
            // Assignments and wrappers before the command word.
            if let Some((name, _)) = assignment(w) {
                if holds {
                    return env_assignment(name, spot);
                }
                continue;
            }
            if matches!(
                w,
                "exec"
                    | "sudo"
                    | "env"
                    | "nohup"
                    | "time"
                    | "command"
                    | "export"
                    | "local"
                    | "declare"
                    | "readonly"
                    | "then"
                    | "do"
                    | "else"
                    | "!"
                    | "if"
                    | "elif"
                    | "while"
                    | "until"
                    | "timeout"
            ) {
                continue;
            }
            let bare = w.trim_matches(['"', '\'']);
            started = true;
            // `ARGS+=("--join" "host")`: words of an array, not a command.
            if !bare.starts_with('-') {
                if holds {
                    return Judged::new(Evidence::Mention, "a command's own name");
                }
                command = Some(base(bare));
                continue;
            }
        }
        if holds {
            let word_text = w.trim_matches(['"', '\'']);
            let trimmed = (w.len() - w.trim_start_matches(['"', '\'']).len()).min(at - w_start);
            return word(command, previous, word_text, at - w_start - trimmed, spot);
        }
        previous = Some(w.trim_matches(['"', '\'']));
    }
    Judged::new(Evidence::Mention, "shell text")
}

/// `VAR=value` → ("VAR", "value").
fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    ok.then_some((name, value))
}

fn env_assignment(name: &str, spot: &Spot<'_>) -> Judged {
    let what = format!("shell variable {name}");
    names::not_a_destination(name, &what)
        .unwrap_or_else(|| super::value_of(name, &what, spot, spot.item(), false))
}

/// Where the simple command holding byte `at` of `line` starts, or `None` when `at` is
/// in a comment. Splits at `;`, `|`, `&`, `(` and `` ` `` outside single quotes, and at
/// `$(` even inside double quotes (it runs there too).
fn statement_start(line: &str, at: usize) -> Option<usize> {
    let mut start = 0;
    let mut quote: Option<char> = None;
    let bytes = line.as_bytes();
    for (i, c) in line.char_indices() {
        if i >= at {
            break;
        }
        match (c, quote) {
            ('\'', None) => quote = Some('\''),
            ('\'', Some('\'')) | ('"', Some('"')) => quote = None,
            ('"', None) => quote = Some('"'),
            ('#', None) if i == 0 || bytes[i - 1].is_ascii_whitespace() => return None,
            (';' | '|' | '&' | '`', None) => start = i + 1,
            ('(', Some('"')) if i > 0 && bytes[i - 1] == b'$' => start = i + 1,
            ('(', None) => start = i + 1,
            _ => {}
        }
    }
    Some(start)
}

/// The words of a command line with their offsets: whitespace outside quotes separates.
fn split_words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            (q, Some(open)) if q == open => quote = None,
            (c, None) if c.is_whitespace() || c == ')' => {
                if let Some(s) = start.take() {
                    out.push((s, &text[s..i]));
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

/// One argument word of `command` (when known), after `previous`, holding the address at
/// byte `at` of `word`.
fn word(
    command: Option<&str>,
    previous: Option<&str>,
    word: &str,
    at: usize,
    spot: &Spot<'_>,
) -> Judged {
    let what = |c: &str| format!("{c} argument");
    if let Some(c) = command.filter(|c| PRINTERS.contains(c)) {
        return Judged::new(Evidence::Mention, format!("{c} text"));
    }
    if let Some(judged) = command.and_then(|c| dialer(c, previous, word, spot)) {
        return judged;
    }
    // `--flag=value`, `-Dkey=value`: the flag's name decides.
    if word.starts_with('-') {
        if let Some(eq) = word.find('=').filter(|&eq| eq < at) {
            let flag = &word[..eq];
            let key = flag.strip_prefix("-D").unwrap_or(flag);
            return flag_value(key, &format!("flag {flag}"), spot);
        }
        return Judged::new(Evidence::Mention, "a flag's name");
    }
    if let Some(flag) = previous.filter(|p| p.starts_with('-') && !p.contains('=')) {
        return flag_value(flag, &format!("flag {flag}"), spot);
    }
    let of = command.map_or("an argument".to_string(), what);
    if spot.in_url() || spot.with_port() {
        return Judged::new(Evidence::Call, format!("a URL given as {of}"));
    }
    Judged::new(Evidence::Mention, format!("a bare name given as {of}"))
}

/// The value of a flag, by the flag's name, then the value's shape.
fn flag_value(flag: &str, what: &str, spot: &Spot<'_>) -> Judged {
    if let Some(judged) = names::not_a_destination(flag, what) {
        return judged;
    }
    if let Some(word) = names::destination_word(flag) {
        return Judged::new(Evidence::Call, format!("{what} ends in {word}"));
    }
    if spot.in_url() || spot.with_port() {
        return Judged::new(Evidence::Call, format!("{what} holds a URL to it"));
    }
    Judged::new(
        Evidence::Mention,
        format!("{what} is not a destination setting"),
    )
}

/// The arguments of a dialing command, `None` for other commands.
fn dialer(command: &str, previous: Option<&str>, word: &str, spot: &Spot<'_>) -> Option<Judged> {
    let call = |why: String| Some(Judged::new(Evidence::Call, why));
    let mention = |why: String| Some(Judged::new(Evidence::Mention, why));
    let host_flag = previous.is_some_and(|p| {
        matches!(
            p,
            "-h" | "--host"
                | "--hostname"
                | "-connect"
                | "--server"
                | "-s"
                | "--endpoints"
                | "--url"
                | "-u"
        )
    });
    let inline_host = ["--host=", "--server=", "--endpoints=", "host=", "-h"]
        .iter()
        .any(|p| word.starts_with(p));
    match command {
        c if DIALERS.contains(&c) => {
            if previous.is_some_and(|p| DATA_FLAGS.contains(&p)) || word.starts_with("--header=") {
                return mention(format!("{c} header or data, not its destination"));
            }
            call(format!("{c} argument"))
        }
        c if DB_CLIENTS.contains(&c) => {
            if host_flag || inline_host || spot.connection_scheme().is_some() {
                call(format!("{c} host"))
            } else {
                mention(format!("{c} argument that is not its host"))
            }
        }
        "openssl" if previous == Some("-connect") => call("openssl s_client -connect".into()),
        "kubectl" | "oc" if host_flag || word.starts_with("--server=") => {
            call(format!("{command} --server"))
        }
        "git" if spot.in_url() || word.contains('@') => call("git remote".into()),
        "openssl" | "kubectl" | "oc" | "git" => {
            mention(format!("{command} argument that is not a server"))
        }
        _ => None,
    }
}
