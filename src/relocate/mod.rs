//! The relocate stage (`check --render`), after the filter: findings in rendered text move
//! back to the files people edit. [`map_back`] moves each finding from the rendered text to
//! the base file or template that produced the object (kustomize origin annotations, Helm
//! `# Source:`); the base files' own suppression comments then apply (a second pass of the
//! suppression stage), and the moved findings are sorted again. Committed Helm output whose
//! chart is not in the repository is marked ([`mark_absent_templates`]).

mod committed;
mod generator;
mod map;
mod template;

pub use committed::mark_absent_templates;
pub use map::map_back;

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::filter::Filter;
use crate::objects::Workspace;
use crate::render::Rendered;
use crate::source::SourceMap;

/// Move the findings in `rendered`'s texts to their base files (which join `sources`),
/// suppress again by the base files' comments (unless `filter` suppresses nothing), and sort
/// in `order`. Returns how many the second pass suppressed.
pub(crate) fn relocate(
    ws: &Workspace,
    rendered: &Rendered,
    diagnostics: &mut Vec<Diagnostic>,
    sources: &mut SourceMap,
    filter: &Filter<'_>,
    order: &HashMap<&str, usize>,
) -> usize {
    for source in &rendered.sources {
        sources.insert(source.clone());
    }
    if rendered.buffers.is_empty() {
        return 0;
    }
    let bases = map_back(ws, &rendered.buffers, diagnostics, sources);
    let mut suppressed = 0;
    if filter.suppress {
        let bases = Workspace::new(bases);
        let config = filter.config_ignores;
        suppressed = crate::suppress::in_base_files(&bases, diagnostics, config);
    }
    crate::filter::sort(diagnostics, order);
    suppressed
}
