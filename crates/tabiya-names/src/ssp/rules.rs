//! General corrections (`%Prefix`, `%Infix`, `%Suffix`) and the other rewrites Scid's
//! spellcheck makes before looking a name up.

/// General corrections of one section, in file order.
#[derive(Clone, Debug, Default)]
pub(super) struct Rules {
    pub prefix: Vec<(String, String)>,
    pub infix: Vec<(String, String)>,
    pub suffix: Vec<(String, String)>,
}

/// `%Suffix "wrong" "correct"`: exactly four quotes on the line, the first string not empty.
pub(super) fn parse_rule(t: &str) -> Option<(String, String)> {
    let q: Vec<usize> = t.match_indices('"').map(|(i, _)| i).collect();
    let [a, b, c, d] = q[..] else { return None };
    let wrong = &t[a + 1..b];
    (!wrong.is_empty()).then(|| (wrong.to_string(), t[c + 1..d].to_string()))
}

/// Scid's `strIsSurnameOnly`: only ASCII letters, at most one of them a capital.
pub(super) fn is_surname_only(name: &str) -> bool {
    name.bytes().all(|b| b.is_ascii_alphabetic())
        && name.bytes().filter(u8::is_ascii_uppercase).count() <= 1
}

/// Scid's `NameNormalizer::normalize`; returns the number of corrections.
pub(super) fn apply_rules(rules: &Rules, name: &mut String) -> usize {
    let mut n = 0;
    if let Some((from, to)) = rules
        .prefix
        .iter()
        .find(|(from, _)| name.starts_with(from.as_str()))
    {
        name.replace_range(..from.len(), to);
        n += 1;
    }
    for (from, to) in &rules.infix {
        let mut pos = 0;
        while let Some(found) = name[pos..].find(from.as_str()) {
            let at = pos + found;
            name.replace_range(at..at + from.len(), to);
            pos = at + to.len();
            n += 1;
        }
    }
    if let Some((from, to)) = rules
        .suffix
        .iter()
        .find(|(from, _)| name.ends_with(from.as_str()))
    {
        let at = name.len() - from.len();
        name.replace_range(at.., to);
        n += 1;
    }
    n
}

/// Removes a trailing ` (XYZ)` (three bytes in parentheses), as Scid does for players.
pub(super) fn strip_country(name: &mut String) {
    if let Some(pos) = name
        .rfind(" (")
        .filter(|&pos| pos + 6 == name.len() && name.ends_with(')'))
    {
        name.truncate(pos);
    }
}
