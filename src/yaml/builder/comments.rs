//! Which comments lead which document (Helm's `# Source:` lines), once every document
//! of the file, or of every chunk of a split stream, is known.

use crate::yaml::types::LoadedFile;

/// Leading comments: after the previous document's last node (or what an earlier empty
/// document claimed), before the root. An empty document (a Helm template that rendered to
/// nothing) claims everything up to the next document. `comments` must be sorted.
pub(in crate::yaml) fn assign_leading_comments(
    out: &mut LoadedFile,
    floors: &[usize],
    source_len: usize,
) {
    let mut claimed = 0;
    for (i, &floor) in floors.iter().enumerate().take(out.documents.len()) {
        let doc = &out.documents[i];
        let ceiling = match doc.root {
            Some(root) => doc.nodes[root.0 as usize].extent.start(),
            None => out
                .documents
                .get(i + 1)
                .map_or(source_len, |next| next.span.start.offset),
        };
        let floor = floor.max(claimed);
        // Comments are sorted: binary search keeps many-document files linear-ish.
        let comments = &out.comments;
        let first = comments.partition_point(|c| c.span.start.offset < floor);
        let count = comments[first..]
            .iter()
            .take_while(|c| c.span.end.offset <= ceiling)
            .count();
        // Exactly as many as there are (collecting made room for four).
        out.documents[i].leading_comments = comments[first..first + count].to_vec();
        claimed = ceiling;
    }
}
