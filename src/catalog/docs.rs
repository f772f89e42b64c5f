//! Reading the embedded `rules/<ID>.md` documents: front matter and tested examples.

/// Front matter fields every rule document carries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrontMatter {
    pub id: String,
    pub name: String,
    pub severity: String,
    pub providers: Vec<String>,
    pub references: Vec<String>,
}

/// What a fenced example in a rule document claims.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// The rule must fire; with `Some(severity)` at exactly that severity.
    Fails(Option<String>),
    Passes,
}

/// A ```` ```yaml fails ```` / ```` ```yaml passes ```` block, with the profile
/// (```` ```yaml profile ````) that precedes it in the document, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    pub expect: Expect,
    pub manifest: String,
    pub profile: Option<String>,
    /// 1-based line of the fence in the document, for test messages.
    pub line: usize,
}

/// Split `---` front matter from the body.
pub(crate) fn split_front_matter(doc: &str) -> Option<(&str, &str)> {
    let rest = doc.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some((&rest[..end], &rest[end + 5..]))
}

/// The body without front matter (SARIF's full description is made from it).
pub fn body(doc: &str) -> &str {
    split_front_matter(doc).map_or(doc, |(_, body)| body.trim_start())
}

pub fn front_matter(doc: &str) -> Option<FrontMatter> {
    let (fm, _) = split_front_matter(doc)?;
    let mut out = FrontMatter::default();
    let mut in_references = false;
    for line in fm.lines() {
        if let Some(item) = line.strip_prefix("  - ").filter(|_| in_references) {
            out.references.push(item.trim().to_string());
            continue;
        }
        in_references = false;
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "id" => out.id = value.to_string(),
            "name" => out.name = value.to_string(),
            "severity" => out.severity = value.to_string(),
            "providers" => {
                out.providers = value
                    .trim_matches(['[', ']'])
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect()
            }
            "references" => in_references = true,
            _ => {}
        }
    }
    Some(out)
}

/// Every example of a document, in order.
pub fn examples(doc: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut profile: Option<String> = None;
    let mut lines = doc.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```yaml ") else {
            continue;
        };
        let mut block = String::new();
        for (_, body_line) in lines.by_ref() {
            if body_line.starts_with("```") {
                break;
            }
            block.push_str(body_line);
            block.push('\n');
        }
        let info = info.trim();
        if info == "profile" {
            profile = Some(block);
        } else if info == "passes" {
            out.push(Example {
                expect: Expect::Passes,
                manifest: block,
                profile: profile.clone(),
                line: number + 1,
            });
        } else if let Some(rest) = info.strip_prefix("fails") {
            let severity = rest.strip_prefix('=').map(str::to_string);
            out.push(Example {
                expect: Expect::Fails(severity),
                manifest: block,
                profile: profile.clone(),
                line: number + 1,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "---\nid: X001\nname: x\nseverity: error\nproviders: [tke, any]\nreferences:\n  - a https://a\n  - b\n---\n# X\n```yaml profile\np: 1\n```\n```yaml fails=error\nm: 1\n```\n```yaml passes\nm: 2\n```\n";

    #[test]
    fn parses_front_matter_and_examples() {
        let fm = front_matter(DOC).unwrap();
        assert_eq!(fm.id, "X001");
        assert_eq!(fm.providers, vec!["tke", "any"]);
        assert_eq!(fm.references, vec!["a https://a", "b"]);
        let ex = examples(DOC);
        assert_eq!(ex.len(), 2);
        assert_eq!(ex[0].expect, Expect::Fails(Some("error".into())));
        assert_eq!(ex[0].profile.as_deref(), Some("p: 1\n"));
        assert_eq!(ex[0].line, 14);
        assert_eq!(ex[1].expect, Expect::Passes);
        assert!(body(DOC).starts_with("# X"));
    }
}
