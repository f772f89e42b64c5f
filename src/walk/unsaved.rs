//! Files that exist only as an editor's unsaved buffers (their text is in the check's
//! overlay): a walk takes them where it would take the file once saved.

use std::path::{Path, PathBuf};

use super::{display_path, is_skipped_dir, Found, Walker};

/// The canonical form of a path that may not exist yet: its directory's canonical path
/// and its name, else the path as given. Overlay texts are keyed by it.
pub fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|dir| dir.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

impl Walker<'_> {
    /// Whether `path` is one of the unsaved files and not on disk.
    pub(super) fn is_unsaved(&self, path: &Path) -> bool {
        self.options.unsaved.iter().any(|u| u == path) && std::fs::symlink_metadata(path).is_err()
    }

    /// An unsaved file named as a path: taken unless excluded, as a named file is.
    pub(super) fn unsaved_named(&self, found: &mut Found, path: &Path) {
        let display = display_path(path, self.cwd.as_deref());
        if !self.filter.excluded(&display) {
            found
                .seen
                .add(&mut found.walked, display, path, self.cwd.as_deref(), None);
        }
    }

    /// The unsaved files under a walked directory that its walk would take: not in a
    /// skipped or excluded directory, included and not excluded themselves.
    pub(super) fn unsaved_under(&self, found: &mut Found, root: &Path) {
        let cwd = self.cwd.as_deref();
        for path in &self.options.unsaved {
            let Ok(relative) = path.strip_prefix(root) else {
                continue;
            };
            if relative.as_os_str().is_empty() || !self.is_unsaved(path) {
                continue;
            }
            let mut dir = root.to_path_buf();
            let parents = relative.parent().into_iter().flat_map(Path::components);
            let hidden = parents.into_iter().any(|c| {
                dir.push(c);
                c.as_os_str().to_str().is_some_and(is_skipped_dir)
                    || self.filter.excluded(&display_path(&dir, cwd))
            });
            let display = display_path(path, cwd);
            if hidden || self.filter.excluded(&display) || !self.filter.included(&display) {
                continue;
            }
            found.seen.add(&mut found.walked, display, path, cwd, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{walk, WalkOptions};
    use super::*;

    #[test]
    fn unsaved_files_are_taken_where_a_walk_would_take_them() {
        let root = std::env::temp_dir().join(format!("lblint-unsaved-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("skip")).unwrap();
        std::fs::write(root.join("a.yaml"), "a: 1\n").unwrap();
        let unsaved: Vec<PathBuf> = [
            "b.yaml",
            ".git/c.yaml",
            "notes.txt",
            "skip/d.yaml",
            "new/e.yml",
        ]
        .iter()
        .map(|p| root.join(p))
        .collect();
        let options = WalkOptions {
            exclude: vec!["skip".into()],
            unsaved: unsaved.clone(),
            ..WalkOptions::default()
        };
        let names = |paths: &[PathBuf]| -> Vec<String> {
            let walked = walk(paths, None, &options).unwrap();
            let files = walked.files.iter();
            files
                .map(|f| f.display.rsplit('/').next().unwrap().to_string())
                .collect()
        };
        assert_eq!(
            names(std::slice::from_ref(&root)),
            ["a.yaml", "b.yaml", "e.yml"]
        );
        // Named: taken whatever its extension, and not "not found".
        assert_eq!(names(&unsaved[2..3]), ["notes.txt"]);
        assert!(walk(&[root.join("other.yaml")], None, &options).is_err());
        assert_eq!(
            canonical(&unsaved[0]),
            std::fs::canonicalize(&root).unwrap().join("b.yaml")
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
