//! The language server's load cache: files read and parsed by an earlier lint of the same
//! root, reused while unchanged, so an edit re-reads only what changed. The driver takes it
//! through [`FileCache`]; it lives here because only the server lints the same paths again
//! and again.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::load::{FileCache, Loaded};
use crate::walk::{self, InputFile, InputSource};

/// Files read and parsed by an earlier run, by path: a file whose size and modification
/// time (or overlay text) are unchanged is neither read nor parsed again. One cache per
/// set of paths: a run forgets the files it did not walk.
/// A hit copies no parse tree: a file's trees are shared (`LintFile::loaded`).
#[derive(Default)]
pub(super) struct LoadCache {
    entries: Mutex<HashMap<PathBuf, (Stamp, String, Loaded)>>,
}

impl fmt::Debug for LoadCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files = self.entries.lock().map_or(0, |e| e.len());
        write!(f, "LoadCache({files} files)")
    }
}

impl LoadCache {
    /// Drop a file (it changed in a way its stamp may not show).
    pub(super) fn forget(&self, path: &Path) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(path);
        }
    }
}

/// What a cached file was loaded from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Stamp {
    Disk(u64, Option<std::time::SystemTime>),
    Overlay(u64, usize),
}

impl Stamp {
    fn of(path: &Path, overlay: Option<&HashMap<PathBuf, String>>) -> Option<Stamp> {
        // Overlay keys are canonical: only a file of the same name can be one of them (a
        // canonicalize per walked file would cost more than the cache saves).
        let text = overlay
            .filter(|_| overlaid(path, overlay))
            .and_then(|o| o.get(&walk::canonical(path)));
        if let Some(text) = text {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut hasher);
            return Some(Stamp::Overlay(hasher.finish(), text.len()));
        }
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp::Disk(meta.len(), meta.modified().ok()))
    }

    /// The walk's own size and time of a file, else [`Stamp::of`].
    fn walked(
        file: &InputFile,
        path: &Path,
        overlay: Option<&HashMap<PathBuf, String>>,
    ) -> Option<Stamp> {
        match file.stamp {
            Some((len, modified)) if !overlaid(path, overlay) => Some(Stamp::Disk(len, modified)),
            _ => Stamp::of(path, overlay),
        }
    }
}

/// Can `path` be an overlay's (by name: the keys are canonical paths)?
fn overlaid(path: &Path, overlay: Option<&HashMap<PathBuf, String>>) -> bool {
    overlay.is_some_and(|o| o.keys().any(|k| k.file_name() == path.file_name()))
}

impl FileCache for LoadCache {
    /// The files unchanged since the last run (by [`Stamp`] and displayed name) from the
    /// cache, the others loaded and kept; files not walked this time are forgotten.
    fn load(
        &self,
        files: &[InputFile],
        overlay: Option<&HashMap<PathBuf, String>>,
        load: &dyn Fn(&[InputFile]) -> Vec<Loaded>,
    ) -> Vec<Loaded> {
        let Ok(mut entries) = self.entries.lock() else {
            return load(files);
        };
        let stamps: Vec<Option<(&PathBuf, Stamp)>> = files
            .iter()
            .map(|f| match &f.source {
                InputSource::File(path) => Some((path, Stamp::walked(f, path, overlay)?)),
                InputSource::Stdin => None,
            })
            .collect();
        let mut out: Vec<Option<Loaded>> = files
            .iter()
            .zip(&stamps)
            .map(|(file, stamp)| {
                let (path, stamp) = stamp.as_ref()?;
                let (had, display, loaded) = entries.get(*path)?;
                (had == stamp && *display == file.display).then(|| loaded.clone())
            })
            .collect();
        let missing: Vec<usize> = (0..files.len()).filter(|&i| out[i].is_none()).collect();
        let to_load: Vec<InputFile> = missing.iter().map(|&i| files[i].clone()).collect();
        for (i, loaded) in missing.into_iter().zip(load(&to_load)) {
            if let Some((path, stamp)) = &stamps[i] {
                let entry = (stamp.clone(), files[i].display.clone(), loaded.clone());
                entries.insert((*path).clone(), entry);
            }
            out[i] = Some(loaded);
        }
        let walked: HashSet<&PathBuf> = stamps.iter().flatten().map(|(p, _)| *p).collect();
        entries.retain(|path, _| walked.contains(path));
        out.into_iter().flatten().collect()
    }
}
