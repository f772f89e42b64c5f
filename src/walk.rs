//! Paths → input files: directory walking, include/exclude globs, size limit, links.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use walkdir::WalkDir;

mod unsaved;
pub use unsaved::canonical;

/// Extensions a directory walk picks up when no `--include` is given.
const MANIFEST_EXTENSIONS: &[&str] = &["yaml", "yml", "json"];

/// Directories never descended into: VCS data, build output, dependencies.
const SKIPPED_DIRS: &[&str] = &[".git", "target", "node_modules"];

pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct WalkOptions {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub follow_links: bool,
    pub max_file_size: u64,
    /// Globs written relative to another directory than the working directory (the config
    /// file's). Their `exclude` adds to [`WalkOptions::exclude`]; their `include` is used
    /// only when [`WalkOptions::include`] is empty.
    pub rebased: Option<RebasedGlobs>,
    /// Absolute paths of files that are not on disk (the language server's unsaved
    /// buffers, whose texts are in the check's overlay): taken where a walk would take
    /// them once saved, and named as paths without "not found".
    pub unsaved: Vec<PathBuf>,
}

/// Include/exclude globs relative to `base` (an absolute, normalized directory).
#[derive(Clone, Debug, Default)]
pub struct RebasedGlobs {
    pub base: PathBuf,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            include: Vec::new(),
            exclude: Vec::new(),
            follow_links: false,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            rebased: None,
            unsaved: Vec::new(),
        }
    }
}

/// `path` made absolute against `cwd`, with `.` and `..` resolved lexically.
pub fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A displayed path (relative to `cwd`) as a `/`-separated path relative to `base`, or
/// `None` when it is not below `base`.
pub fn rebase(display: &str, cwd: &Path, base: &Path) -> Option<String> {
    let abs = absolute(Path::new(display), cwd);
    let rel = abs.strip_prefix(base).ok()?;
    let parts: Vec<Cow<'_, str>> = rel.components().map(|c| os_text(c.as_os_str())).collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSource {
    File(PathBuf),
    Stdin,
}

/// A file to lint, with the path shown to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    pub display: String,
    pub source: InputSource,
    /// Size and modification time as the walk saw them (a file, not standard input):
    /// the language server's load cache compares them without a second `stat`.
    pub stamp: Option<(u64, Option<std::time::SystemTime>)>,
}

/// A file found but not linted (too large, unreadable directory entry, link loop).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub display: String,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct Walked {
    pub files: Vec<InputFile>,
    pub skipped: Vec<Skipped>,
}

/// Errors that stop the run (exit 2).
#[derive(Debug, PartialEq, Eq)]
pub enum WalkError {
    NotFound(String),
    BadGlob { glob: String, message: String },
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::NotFound(path) => write!(f, "path not found: {path}"),
            WalkError::BadGlob { glob, message } => write!(f, "invalid glob `{glob}`: {message}"),
        }
    }
}

impl std::error::Error for WalkError {}

fn glob_set(globs: &[String]) -> Result<GlobSet, WalkError> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let compiled = Glob::new(glob).map_err(|e| WalkError::BadGlob {
            glob: glob.clone(),
            message: e.kind().to_string(),
        })?;
        builder.add(compiled);
    }
    builder.build().map_err(|e| WalkError::BadGlob {
        glob: globs.join(","),
        message: e.to_string(),
    })
}

/// Include/exclude matching. A glob matches the displayed path or any of its parent
/// directories, or the bare file name, so `charts/**`, `charts` and `*.tmpl.yaml` all work.
struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
    rebased: Option<RebasedFilter>,
}

/// The config file's globs, matched against paths relative to its directory.
struct RebasedFilter {
    cwd: PathBuf,
    base: PathBuf,
    include: Option<GlobSet>,
    exclude: GlobSet,
}

fn excluded_by(set: &GlobSet, path: &str) -> bool {
    Path::new(path)
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .any(|p| set.is_match(p) || p.file_name().is_some_and(|name| set.is_match(name)))
}

fn included_by(set: &GlobSet, path: &str) -> bool {
    let path = Path::new(path);
    set.is_match(path) || path.file_name().is_some_and(|n| set.is_match(n))
}

impl Filter {
    fn excluded(&self, display: &str) -> bool {
        excluded_by(&self.exclude, display)
            || self.rebased.as_ref().is_some_and(|r| {
                rebase(display, &r.cwd, &r.base).is_some_and(|rel| excluded_by(&r.exclude, &rel))
            })
    }

    fn included(&self, display: &str) -> bool {
        let path = Path::new(display);
        let rebased_include = || {
            let r = self.rebased.as_ref()?;
            let set = r.include.as_ref()?;
            let rel = rebase(display, &r.cwd, &r.base)?;
            Some(included_by(set, &rel))
        };
        match &self.include {
            Some(set) => included_by(set, display),
            None if rebased_include().is_some() => rebased_include().unwrap_or(false),
            None => path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| MANIFEST_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str())),
        }
    }
}

/// A path component as text. Bytes that are not UTF-8 are shown as `\xFF`, not U+FFFD:
/// two names that differ only there (`a\xFF.yaml`, `a\xFE.yaml`) stay two names.
pub fn os_text(name: &OsStr) -> Cow<'_, str> {
    #[cfg(unix)]
    {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        if let Some(text) = name.to_str() {
            return Cow::Borrowed(text);
        }
        let mut out = String::new();
        for chunk in name.as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for byte in chunk.invalid() {
                let _ = write!(out, "\\x{byte:02X}");
            }
        }
        Cow::Owned(out)
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy()
    }
}

/// The path as shown to the user: relative to the working directory when under it,
/// `./` and `.` components dropped, `/` as separator, bytes that are not UTF-8 escaped.
pub fn display_path(path: &Path, cwd: Option<&Path>) -> String {
    let relative = cwd
        .filter(|_| path.is_absolute())
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path);
    let parts: Vec<Cow<'_, str>> = relative
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::RootDir => Cow::Borrowed(""),
            other => os_text(other.as_os_str()),
        })
        .collect();
    let joined = parts.join("/");
    if joined.is_empty() {
        ".".to_string()
    } else if relative.is_absolute() && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

fn is_skipped_dir(name: &str) -> bool {
    SKIPPED_DIRS.contains(&name) || (name.starts_with('.') && name != "." && name != "..")
}

/// Expand the command-line paths into the files to lint, in a deterministic order:
/// paths in the order given, each directory's entries sorted by name. Paths are OS paths
/// (any bytes); `-` is standard input.
pub fn walk(
    paths: &[PathBuf],
    stdin_name: Option<&str>,
    options: &WalkOptions,
) -> Result<Walked, WalkError> {
    let is_stdin = |path: &Path| path.as_os_str() == "-";
    let walker = Walker {
        filter: Filter::new(options)?,
        options,
        cwd: std::env::current_dir().ok(),
    };
    let mut found = Found::default();
    // Check every named path before walking, so a typo fails the run before any output.
    for path in paths {
        if !is_stdin(path) && std::fs::symlink_metadata(path).is_err() && !walker.is_unsaved(path) {
            return Err(WalkError::NotFound(os_text(path.as_os_str()).into_owned()));
        }
    }
    for path in paths {
        if is_stdin(path) {
            found.walked.files.push(InputFile {
                display: stdin_name.unwrap_or("<stdin>").to_string(),
                source: InputSource::Stdin,
                stamp: None,
            });
            continue;
        }
        let meta = std::fs::metadata(path);
        if meta.as_ref().is_ok_and(|m| m.is_dir()) {
            walker.directory(&mut found, path);
            walker.unsaved_under(&mut found, path);
        } else if walker.is_unsaved(path) {
            walker.unsaved_named(&mut found, path);
        } else {
            walker.named_file(&mut found, path, meta);
        }
    }
    Ok(found.walked)
}

impl Filter {
    fn new(options: &WalkOptions) -> Result<Filter, WalkError> {
        let include = |globs: &[String]| -> Result<Option<GlobSet>, WalkError> {
            match globs.is_empty() {
                true => Ok(None),
                false => glob_set(globs).map(Some),
            }
        };
        Ok(Filter {
            include: include(&options.include)?,
            exclude: glob_set(&options.exclude)?,
            rebased: match &options.rebased {
                None => None,
                Some(r) => Some(RebasedFilter {
                    cwd: std::env::current_dir().unwrap_or_default(),
                    base: r.base.clone(),
                    include: include(&r.include)?,
                    exclude: glob_set(&r.exclude)?,
                }),
            },
        })
    }
}

/// What a walk decides by: its filters and options, and the working directory paths are
/// shown relative to.
struct Walker<'o> {
    filter: Filter,
    options: &'o WalkOptions,
    cwd: Option<PathBuf>,
}

/// What a walk has found so far.
#[derive(Default)]
struct Found {
    walked: Walked,
    seen: Seen,
}

impl Found {
    fn skip(&mut self, display: String, reason: String) {
        self.walked.skipped.push(Skipped { display, reason });
    }

    fn add(&mut self, display: String, path: &Path, cwd: Option<&Path>, meta: &std::fs::Metadata) {
        let stamp = Some((meta.len(), meta.modified().ok()));
        self.seen.add(&mut self.walked, display, path, cwd, stamp);
    }
}

impl Walker<'_> {
    /// A file named on the command line: linted whatever its extension, unless excluded
    /// (pre-commit passes paths explicitly; `exclude` must still hold).
    fn named_file(&self, found: &mut Found, root: &Path, meta: std::io::Result<std::fs::Metadata>) {
        let display = display_path(root, self.cwd.as_deref());
        if self.filter.excluded(&display) {
            return;
        }
        self.take(found, display, root, meta);
    }

    /// Take a file by its metadata, or skip it with the reason: only regular files within
    /// the size limit are read (a FIFO would block the read, a device never end).
    fn take(
        &self,
        found: &mut Found,
        display: String,
        path: &Path,
        meta: Result<std::fs::Metadata, impl std::fmt::Display>,
    ) {
        let max = self.options.max_file_size;
        match meta {
            Ok(m) => match crate::read::irregular_kind(&m) {
                Some(kind) => found.skip(display, not_regular(kind)),
                None if m.len() > max => found.skip(display, too_large(m.len(), max)),
                None => found.add(display, path, self.cwd.as_deref(), &m),
            },
            Err(e) => found.skip(display, format!("cannot read: {e}")),
        }
    }

    /// The files under a directory named on the command line, sorted by name; skipped and
    /// excluded directories are not entered.
    fn directory(&self, found: &mut Found, root: &Path) {
        let (cwd, filter) = (&self.cwd, &self.filter);
        let entries = WalkDir::new(root)
            .follow_links(self.options.follow_links)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|entry| {
                entry.depth() == 0
                    || !entry.file_type().is_dir()
                    || !(entry.file_name().to_str().is_some_and(is_skipped_dir)
                        || filter.excluded(&display_path(entry.path(), cwd.as_deref())))
            });
        for entry in entries {
            match entry {
                Ok(entry) => self.entry(found, &entry),
                Err(err) => {
                    let display = err
                        .path()
                        .map(|p| display_path(p, cwd.as_deref()))
                        .unwrap_or_else(|| os_text(root.as_os_str()).into_owned());
                    let reason = if err.loop_ancestor().is_some() {
                        "symbolic link loop, not followed".to_string()
                    } else {
                        format!(
                            "cannot read: {}",
                            err.io_error().map_or(err.to_string(), |e| e.to_string())
                        )
                    };
                    found.skip(display, reason);
                }
            }
        }
    }

    /// One entry of a directory walk (the directory itself is entry 0).
    fn entry(&self, found: &mut Found, entry: &walkdir::DirEntry) {
        let display = display_path(entry.path(), self.cwd.as_deref());
        if entry.file_type().is_dir() || entry.depth() == 0 {
            return;
        }
        if entry.path_is_symlink() && !self.options.follow_links {
            return;
        }
        if self.filter.excluded(&display) || !self.filter.included(&display) {
            return;
        }
        self.take(found, display, entry.path(), entry.metadata());
    }
}

pub(crate) fn not_regular(kind: &str) -> String {
    format!("it is {kind}, not a regular file; lblint reads regular files, and standard input with `-` (`lblint check - < FILE`)")
}

/// Files already taken, by displayed path: displayed paths name files in reports and in
/// `--fix`, so each must stand for one file.
#[derive(Default)]
struct Seen {
    paths: HashMap<String, PathBuf>,
}

impl Seen {
    /// Take a file unless it was taken already (named twice, or named and walked).
    fn add(
        &mut self,
        walked: &mut Walked,
        display: String,
        path: &Path,
        cwd: Option<&Path>,
        stamp: Option<(u64, Option<std::time::SystemTime>)>,
    ) {
        let same_file = absolute(path, cwd.unwrap_or(Path::new("/")));
        match self.paths.get(&display) {
            Some(taken) if *taken == same_file => {}
            // Only a name that holds the escape text itself (`a\xFF.yaml` spelt out) can
            // display like another file.
            Some(_) => walked.skipped.push(Skipped {
                display,
                reason: "another file's name is displayed the same; rename one of them".into(),
            }),
            None => {
                self.paths.insert(display.clone(), same_file);
                walked.files.push(InputFile {
                    display,
                    source: InputSource::File(path.to_path_buf()),
                    stamp,
                });
            }
        }
    }
}

pub(crate) fn too_large(len: u64, limit: u64) -> String {
    format!(
        "file is {len} bytes, over the size limit of {limit} bytes (raise it with --max-file-size)"
    )
}

/// The repository `dir` is in: the nearest ancestor holding `.git` (a directory, or the
/// file a worktree or submodule has). Config discovery and render confinement both stop
/// there.
pub fn repository_root(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// `path` as shown to a user in `cwd`: relative, with `..` when it is above `cwd`.
pub fn display_relative(path: &Path, cwd: &Path) -> String {
    let path = absolute(path, cwd);
    let cwd = absolute(cwd, Path::new("/"));
    let a: Vec<Component> = path.components().collect();
    let b: Vec<Component> = cwd.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common <= 1 && b.len() > 1 {
        // Nothing in common but the root: the absolute path reads better.
        return display_path(&path, None);
    }
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_string(), b.len() - common).collect();
    parts.extend(
        a[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_paths_are_relative_and_posix() {
        assert_eq!(display_path(Path::new("./a/b.yaml"), None), "a/b.yaml");
        assert_eq!(display_path(Path::new("a/./b.yaml"), None), "a/b.yaml");
        assert_eq!(
            display_path(Path::new("/work/x/y.yaml"), Some(Path::new("/work"))),
            "x/y.yaml"
        );
        assert_eq!(
            display_path(Path::new("/elsewhere/y.yaml"), Some(Path::new("/work"))),
            "/elsewhere/y.yaml"
        );
        assert_eq!(display_path(Path::new("."), None), ".");
    }

    #[cfg(unix)]
    #[test]
    fn invalid_bytes_are_escaped_not_replaced() {
        use std::os::unix::ffi::OsStrExt;
        let name = |bytes: &[u8]| display_path(Path::new(OsStr::from_bytes(bytes)), None);
        assert_eq!(
            name(b"d\xe9j\xc3\xa0/a\xff\xfe.yaml"),
            "d\\xE9j\u{e0}/a\\xFF\\xFE.yaml"
        );
        assert_ne!(name(b"a\xff.yaml"), name(b"a\xfe.yaml"));
    }

    #[test]
    fn exclude_matches_parents_and_names() {
        let filter = Filter {
            include: None,
            exclude: glob_set(&["charts".into(), "*.tmpl.yaml".into()]).unwrap(),
            rebased: None,
        };
        assert!(filter.excluded("charts/x/deploy.yaml"));
        assert!(filter.excluded("app/svc.tmpl.yaml"));
        assert!(!filter.excluded("app/svc.yaml"));
        assert!(filter.included("app/svc.YAML"));
        assert!(!filter.included("app/README.md"));
    }

    #[test]
    fn rebased_globs_match_relative_to_their_base() {
        let filter = Filter {
            include: None,
            exclude: glob_set(&[]).unwrap(),
            rebased: Some(RebasedFilter {
                cwd: PathBuf::from("/repo/apps"),
                base: PathBuf::from("/repo"),
                include: Some(glob_set(&["apps/**/*.yaml".into()]).unwrap()),
                exclude: glob_set(&["apps/vendor".into()]).unwrap(),
            }),
        };
        assert!(filter.excluded("vendor/x.yaml"));
        assert!(!filter.excluded("web/x.yaml"));
        assert!(filter.included("web/x.yaml"));
        assert!(!filter.included("web/x.json"));
        // Outside the base: the config's globs do not apply, the default does.
        assert!(filter.included("/elsewhere/x.json"));
        assert_eq!(
            rebase(
                "../charts/a.yaml",
                Path::new("/repo/apps"),
                Path::new("/repo")
            ),
            Some("charts/a.yaml".into())
        );
        assert_eq!(
            rebase("/tmp/a.yaml", Path::new("/repo"), Path::new("/repo")),
            None
        );
    }

    #[test]
    fn display_paths_above_the_working_directory() {
        assert_eq!(
            display_relative(Path::new("/repo/lblint.yaml"), Path::new("/repo/apps/web")),
            "../../lblint.yaml"
        );
        assert_eq!(
            display_relative(Path::new("/repo/apps/lblint.yaml"), Path::new("/repo")),
            "apps/lblint.yaml"
        );
        assert_eq!(
            display_relative(Path::new("/etc/lblint.yaml"), Path::new("/repo")),
            "/etc/lblint.yaml"
        );
    }
}
