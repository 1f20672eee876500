//! Reading a spelling file line by line, as Scid's `Parser` and `SpellChkLoader` do.

use std::io::BufRead;

use super::rules::parse_rule;
use super::{Section, Span, SpellChkState, Spelling, SspError, SspWarning};

const TRIM: [char; 4] = [' ', '\t', '\r', '\n'];

pub(super) fn read(mut r: impl BufRead) -> Result<Spelling, SspError> {
    let mut sp = Spelling::default();
    let mut st = SpellChkState::default();
    let mut buf = Vec::with_capacity(256);
    let mut line = 0usize;
    loop {
        buf.clear();
        let n = r
            .read_until(b'\n', &mut buf)
            .map_err(|source| SspError::Io {
                line: line + 1,
                source,
            })?;
        if n == 0 {
            break;
        }
        line += 1;
        match std::str::from_utf8(&buf) {
            Ok(s) if line == 1 => {
                load_line(&mut sp, &mut st, line, s.trim_start_matches('\u{feff}'))
            }
            Ok(s) => load_line(&mut sp, &mut st, line, s),
            Err(_) => {
                warn(&mut sp, line, "not UTF-8: read as Latin-1".into());
                let s: String = buf.iter().map(|&b| char::from(b)).collect();
                load_line(&mut sp, &mut st, line, &s);
            }
        }
    }
    let Spelling { keys, sections, .. } = &mut sp;
    for s in sections.iter_mut() {
        s.index.sort_unstable_by(|a, b| {
            let ka = &keys[a.0.start as usize..(a.0.start + a.0.len) as usize];
            let kb = &keys[b.0.start as usize..(b.0.start + b.0.len) as usize];
            ka.cmp(kb).then(a.1.cmp(&b.1))
        });
    }
    Ok(sp)
}

fn warn(sp: &mut Spelling, line: usize, message: String) {
    sp.warnings.push(SspWarning { line, message });
}

fn load_line(sp: &mut Spelling, st: &mut SpellChkState, line: usize, raw: &str) {
    // Everything from '#' on is a comment (for a correct name: the player data).
    let (body, comment) = match raw.find('#') {
        Some(i) => (&raw[..i], Some(raw[i + 1..].trim_end_matches(TRIM))),
        None => (raw, None),
    };
    let t = body.trim_matches(TRIM);
    let Some(first) = t.chars().next() else {
        return;
    };
    if first == '@' {
        return section_line(sp, st, line, &t[1..]);
    }
    if st.bad_section {
        return; // reported once, at the section line
    }
    let Some(section) = st.section else {
        return warn(
            sp,
            line,
            format!("`{t}` outside any section (no @PLAYER/@EVENT/@SITE/@ROUND line before it)"),
        );
    };
    let data = &mut sp.sections[section as usize];
    match first {
        '>' => warn(sp, line, "old-style biography line (`>`) ignored".into()),
        '=' => {
            let alias = t[1..].trim_start_matches(' ');
            match st.current {
                None => warn(
                    sp,
                    line,
                    format!("alias `{alias}` before any correct name of its section"),
                ),
                Some(_) if alias.is_empty() => warn(sp, line, "empty alias".into()),
                Some(idx) => add_key(sp, section, alias, idx),
            }
        }
        '%' => {
            let rules = &mut data.rules;
            let list = if t.starts_with("%Prefix ") {
                Some(&mut rules.prefix)
            } else if t.starts_with("%Infix ") {
                Some(&mut rules.infix)
            } else if t.starts_with("%Suffix ") {
                Some(&mut rules.suffix)
            } else {
                None
            };
            if let Some(list) = list {
                match parse_rule(t) {
                    Some(r) => list.push(r),
                    None => warn(
                        sp,
                        line,
                        format!(
                            "malformed rule `{t}`: needs \"wrong\" \"correct\", the first not empty"
                        ),
                    ),
                }
            } else if let Some(text) = t.strip_prefix("%Bio ").or_else(|| t.strip_prefix("%Elo ")) {
                if section != Section::Player || st.current.is_none() {
                    let what = &t[..4];
                    return warn(
                        sp,
                        line,
                        format!("`{what}` line not after a correct name of @PLAYER"),
                    );
                }
                let span = push(&mut sp.text, text);
                if t.starts_with("%Bio") {
                    sp.bios.push(span)
                } else {
                    sp.elos.push(span)
                }
            } else {
                warn(sp, line, format!("unknown line `{t}` ignored"));
            }
        }
        _ => {
            let idx = data.names.len() as u32;
            let span = push(&mut sp.text, t);
            sp.sections[section as usize].names.push(span);
            if section == Section::Player {
                let c = push(&mut sp.text, comment.unwrap_or(""));
                sp.comments.push(c);
                sp.bio_start.push(sp.bios.len() as u32);
                sp.elo_start.push(sp.elos.len() as u32);
            }
            st.current = Some(idx);
            add_key(sp, section, t, idx);
        }
    }
}

/// `@PLAYER "., -_*"`: the section name (any case, spaces ignored, a prefix of the type's
/// name or the type's name a prefix of it), then optionally the ignored characters in quotes.
fn section_line(sp: &mut Spelling, st: &mut SpellChkState, line: usize, rest: &str) {
    let (name, exclude) = match rest.find('"') {
        Some(open) => match rest[open + 1..].find('"') {
            Some(len) => (
                &rest[..open + 1 + len],
                Some(&rest[open + 1..open + 1 + len]),
            ),
            None => (rest, None),
        },
        None => (rest, None),
    };
    let section = [
        ("player", Section::Player),
        ("event", Section::Event),
        ("site", Section::Site),
        ("round", Section::Round),
    ]
    .iter()
    .find(|(n, _)| alpha_prefix(name, n))
    .or_else(|| {
        [
            ("player", Section::Player),
            ("event", Section::Event),
            ("site", Section::Site),
            ("round", Section::Round),
        ]
        .iter()
        .find(|(n, _)| alpha_prefix(n, name))
    })
    .map(|&(_, s)| s)
    .filter(|_| !name.trim().is_empty());
    st.current = None;
    st.section = section;
    st.bad_section = section.is_none();
    match section {
        Some(s) => sp.sections[s as usize].exclude = exclude.unwrap_or("").to_string(),
        None => warn(
            sp,
            line,
            format!("unknown section `@{name}`: its lines are skipped"),
        ),
    }
}

/// Scid's `strIsAlphaPrefix`: `prefix` begins `long`, ignoring case and spaces.
fn alpha_prefix(prefix: &str, long: &str) -> bool {
    let mut l = long.chars().filter(|&c| c != ' ');
    prefix
        .chars()
        .filter(|&c| c != ' ')
        .all(|p| l.next().is_some_and(|c| c.eq_ignore_ascii_case(&p)))
}

fn push(arena: &mut String, s: &str) -> Span {
    let start = arena.len() as u32;
    arena.push_str(s);
    Span {
        start,
        len: s.len() as u32,
    }
}

fn add_key(sp: &mut Spelling, section: Section, spelling: &str, idx: u32) {
    let data = &mut sp.sections[section as usize];
    let start = sp.keys.len() as u32;
    sp.keys
        .extend(spelling.chars().filter(|c| !data.exclude.contains(*c)));
    let span = Span {
        start,
        len: sp.keys.len() as u32 - start,
    };
    data.index.push((span, idx));
}
