//! How the spellings of a dictionary become entries: the spelling file first (its correct
//! names win), then normalisation (players: `tabiya_names::cluster`; events and sites: the
//! same letters once case, accents, punctuation and spacing are ignored), then the user's
//! rules in the order they were given.

use std::collections::{BTreeMap, HashMap};

use tabiya_names::ssp::{Correction, PersonId, Section, Spelling};

use super::rules::NameRule;
use super::{Ambiguous, Dated, Entries, Entry, PlayerInfo, Source};
use crate::game::Dict;

/// A spelling of the dictionary: its id, the name as written, its games.
pub(crate) struct Spelt {
    pub id: u32,
    pub name: String,
    pub games: u64,
}

/// A group while it is being built.
struct Group {
    display: String,
    source: Source,
    scid: Option<PersonId>,
}

fn section(dict: Dict) -> Option<Section> {
    match dict {
        Dict::Player => Some(Section::Player),
        Dict::Event => Some(Section::Event),
        Dict::Site => Some(Section::Site),
        _ => None,
    }
}

/// The entries of one dictionary.
pub(crate) fn build(
    dict: Dict,
    spelt: &[Spelt],
    rules: &[NameRule],
    ssp: Option<&Spelling>,
) -> Entries {
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of: Vec<usize> = vec![usize::MAX; spelt.len()];
    let mut ambiguous: Vec<Ambiguous> = Vec::new();
    // The spelling file's correct names and the spellings it corrects to each.
    let mut by_canonical: BTreeMap<&str, (PersonId, Vec<usize>)> = BTreeMap::new();
    let mut by_canonical_other: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut free: Vec<usize> = Vec::new();
    let mut rewritten: HashMap<usize, String> = HashMap::new();
    for (i, s) in spelt.iter().enumerate() {
        let correction = match (ssp, section(dict)) {
            (Some(ssp), Some(sec)) => ssp.correct(sec, &s.name),
            _ => Correction::Unchanged,
        };
        match correction {
            Correction::Corrected {
                canonical,
                person: Some(p),
            } => by_canonical
                .entry(canonical)
                .or_insert((p, Vec::new()))
                .1
                .push(i),
            Correction::Corrected {
                canonical,
                person: None,
            } => by_canonical_other.entry(canonical).or_default().push(i),
            Correction::Ambiguous(candidates) => {
                groups.push(Group {
                    display: s.name.clone(),
                    source: Source::Written,
                    scid: None,
                });
                group_of[i] = groups.len() - 1;
                ambiguous.push(Ambiguous {
                    spelling: s.id,
                    candidates: candidates.into_iter().map(str::to_string).collect(),
                });
            }
            Correction::Rewritten(r) => {
                rewritten.insert(i, r);
                free.push(i);
            }
            Correction::Unchanged | Correction::OutsideLifetime { .. } => {
                // A correct name of the file is its player's too.
                match ssp
                    .filter(|_| dict == Dict::Player)
                    .and_then(|f| f.person_id(&s.name))
                {
                    Some(p) => by_canonical
                        .entry(ssp.map(|f| f.person(p).name).unwrap_or(s.name.as_str()))
                        .or_insert((p, Vec::new()))
                        .1
                        .push(i),
                    None => free.push(i),
                }
            }
        }
    }
    let name_of = |i: usize| {
        rewritten
            .get(&i)
            .map_or(spelt[i].name.as_str(), String::as_str)
    };
    // Annotators are people too (the spelling file names none).
    if dict == Dict::Player || dict == Dict::Annotator {
        // Each correct name of the file is one item of the clustering, its spellings' games
        // its weight; the other spellings are items of their own.
        let scid: Vec<(&str, PersonId, &Vec<usize>)> = by_canonical
            .iter()
            .map(|(c, (p, members))| (*c, *p, members))
            .collect();
        let mut items: Vec<(&str, u64)> = scid
            .iter()
            .map(|(c, _, m)| (*c, m.iter().map(|&i| spelt[i].games).sum()))
            .collect();
        items.extend(free.iter().map(|&i| (name_of(i), spelt[i].games)));
        let clustering = tabiya_names::cluster(&items);
        let spellings_of = |item: usize| -> Vec<usize> {
            if item < scid.len() {
                scid[item].2.clone()
            } else {
                vec![free[item - scid.len()]]
            }
        };
        for c in &clustering.clusters {
            let scid_items: Vec<usize> = c
                .members
                .iter()
                .copied()
                .filter(|&m| m < scid.len())
                .collect();
            if scid_items.len() > 1 {
                // Two players of the file: never one. What else matched both stays alone.
                for &m in &c.members {
                    let (display, source, person) = if m < scid.len() {
                        (scid[m].0.to_string(), Source::Spelling, Some(scid[m].1))
                    } else {
                        let i = free[m - scid.len()];
                        ambiguous.push(Ambiguous {
                            spelling: spelt[i].id,
                            candidates: scid_items.iter().map(|&s| scid[s].0.to_string()).collect(),
                        });
                        (spelt[i].name.clone(), Source::Written, None)
                    };
                    groups.push(Group {
                        display,
                        source,
                        scid: person,
                    });
                    for i in spellings_of(m) {
                        group_of[i] = groups.len() - 1;
                    }
                }
                continue;
            }
            let group = match scid_items.first() {
                Some(&s) => Group {
                    display: scid[s].0.to_string(),
                    source: Source::Spelling,
                    scid: Some(scid[s].1),
                },
                None if c.members.len() == 1 => Group {
                    display: name_of(free[c.members[0] - scid.len()]).to_string(),
                    source: Source::Written,
                    scid: None,
                },
                None => Group {
                    display: c.canonical.clone(),
                    source: Source::Normalised,
                    scid: None,
                },
            };
            groups.push(group);
            for &m in &c.members {
                for i in spellings_of(m) {
                    group_of[i] = groups.len() - 1;
                }
            }
        }
        for a in &clustering.ambiguous {
            if a.name >= scid.len() {
                ambiguous.push(Ambiguous {
                    spelling: spelt[free[a.name - scid.len()]].id,
                    candidates: a
                        .candidates
                        .iter()
                        .map(|&c| clustering.clusters[c].canonical.clone())
                        .collect(),
                });
            }
        }
        // Names of nobody (`?`, `NN`) and anything left: as written.
        for (item, c) in clustering.cluster_of.iter().enumerate() {
            if c.is_none() {
                for i in spellings_of(item) {
                    groups.push(Group {
                        display: spelt[i].name.clone(),
                        source: Source::Written,
                        scid: None,
                    });
                    group_of[i] = groups.len() - 1;
                }
            }
        }
    } else {
        // Events and sites: the file's correct names, then the same letters.
        let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut display_of_key: HashMap<String, String> = HashMap::new();
        for (canonical, members) in &by_canonical_other {
            let key = tabiya_names::fold(canonical);
            display_of_key.insert(key.clone(), canonical.to_string());
            by_key.entry(key).or_default().extend(members);
        }
        for (canonical, (_, members)) in &by_canonical {
            let key = tabiya_names::fold(canonical);
            display_of_key.insert(key.clone(), canonical.to_string());
            by_key.entry(key).or_default().extend(members);
        }
        for &i in &free {
            by_key
                .entry(tabiya_names::fold(name_of(i)))
                .or_default()
                .push(i);
        }
        for (key, members) in by_key {
            let (display, source) = match display_of_key.remove(&key) {
                Some(d) => (d, Source::Spelling),
                None => {
                    let best = members
                        .iter()
                        .copied()
                        .max_by(|&a, &b| {
                            spelt[a]
                                .games
                                .cmp(&spelt[b].games)
                                .then(spelt[b].name.cmp(&spelt[a].name))
                        })
                        .expect("a group has members");
                    let source = if members.len() == 1 {
                        Source::Written
                    } else {
                        Source::Normalised
                    };
                    (name_of(best).to_string(), source)
                }
            };
            groups.push(Group {
                display,
                source,
                scid: None,
            });
            for i in members {
                group_of[i] = groups.len() - 1;
            }
        }
    }
    for (i, g) in group_of.iter_mut().enumerate() {
        if *g == usize::MAX {
            groups.push(Group {
                display: spelt[i].name.clone(),
                source: Source::Written,
                scid: None,
            });
            *g = groups.len() - 1;
        }
    }
    apply_rules(dict, spelt, rules, &mut groups, &mut group_of);
    assemble(dict, spelt, ssp, groups, &group_of, ambiguous)
}

/// The user's rules, in order, on the groups.
fn apply_rules(
    dict: Dict,
    spelt: &[Spelt],
    rules: &[NameRule],
    groups: &mut Vec<Group>,
    group_of: &mut [usize],
) {
    let index: HashMap<&str, usize> = spelt
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let before: Vec<usize> = group_of.to_vec();
    for rule in rules.iter().filter(|r| r.dict() == dict) {
        match rule {
            NameRule::Alias { name, to, .. } => {
                if let (Some(&i), Some(&t)) = (index.get(name.as_str()), index.get(to.as_str())) {
                    group_of[i] = group_of[t];
                }
            }
            NameRule::Separate { name, .. } => {
                if let Some(&i) = index.get(name.as_str()) {
                    groups.push(Group {
                        display: spelt[i].name.clone(),
                        source: Source::User,
                        scid: None,
                    });
                    group_of[i] = groups.len() - 1;
                }
            }
            NameRule::Merge { a, b, .. } => {
                if let (Some(&ia), Some(&ib)) = (index.get(a.as_str()), index.get(b.as_str())) {
                    let (ga, gb) = (group_of[ia], group_of[ib]);
                    for g in group_of.iter_mut().filter(|g| **g == gb) {
                        *g = ga;
                    }
                }
            }
            NameRule::Split { a, b, .. } => {
                if let (Some(&ia), Some(&ib)) = (index.get(a.as_str()), index.get(b.as_str()))
                    && group_of[ia] == group_of[ib]
                {
                    let ga = group_of[ia];
                    // What came with `b` before any rule; `b` alone when that was `a`'s too.
                    let with_b: Vec<usize> = if before[ib] == before[ia] {
                        vec![ib]
                    } else {
                        (0..spelt.len())
                            .filter(|&i| group_of[i] == ga && before[i] == before[ib])
                            .collect()
                    };
                    let display = if with_b.len() == 1 {
                        spelt[ib].name.clone()
                    } else {
                        groups[before[ib]].display.clone()
                    };
                    groups.push(Group {
                        display,
                        source: Source::User,
                        scid: None,
                    });
                    for i in with_b {
                        group_of[i] = groups.len() - 1;
                    }
                }
            }
            NameRule::Rename { name, display, .. } => {
                if let Some(&i) = index.get(name.as_str()) {
                    let g = &mut groups[group_of[i]];
                    g.display.clone_from(display);
                    g.source = Source::User;
                }
            }
        }
    }
}

/// The groups with members as entries (sorted by name), with the file's player data and
/// life dates.
fn assemble(
    dict: Dict,
    spelt: &[Spelt],
    ssp: Option<&Spelling>,
    groups: Vec<Group>,
    group_of: &[usize],
    ambiguous: Vec<Ambiguous>,
) -> Entries {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
    for (i, &g) in group_of.iter().enumerate() {
        members[g].push(i);
    }
    let mut order: Vec<usize> = (0..groups.len())
        .filter(|&g| !members[g].is_empty())
        .collect();
    order.sort_by_cached_key(|&g| {
        (
            tabiya_names::fold(&groups[g].display),
            groups[g].display.clone(),
            g,
        )
    });
    let mut entries: Vec<Entry> = Vec::with_capacity(order.len());
    let mut entry_of_group: HashMap<usize, u32> = HashMap::new();
    for &g in &order {
        let group = &groups[g];
        let info = match (ssp, group.scid) {
            (Some(f), Some(p)) => Some(PlayerInfo::from(&f.person(p))),
            _ => None,
        };
        let mut spellings: Vec<u32> = members[g].iter().map(|&i| spelt[i].id).collect();
        spellings.sort_unstable();
        entry_of_group.insert(g, entries.len() as u32);
        entries.push(Entry {
            name: group.display.clone(),
            source: group.source,
            spellings,
            games: members[g].iter().map(|&i| spelt[i].games).sum(),
            info,
        });
    }
    // A spelling the file gave to a player with life dates: its games outside them are the
    // name as written (Scid renames no such game).
    let mut dated = Vec::new();
    if dict == Dict::Player {
        for (i, &g) in group_of.iter().enumerate() {
            let Some((born, died)) = entries[entry_of_group[&g] as usize]
                .info
                .as_ref()
                .map(|i| (i.born, i.died))
            else {
                continue;
            };
            if born == 0 && died == 0 {
                continue;
            }
            if entries[entry_of_group[&g] as usize].name == spelt[i].name {
                // Its own correct name: nothing else to be.
                continue;
            }
            let outside = entries.len() as u32;
            entries.push(Entry {
                name: spelt[i].name.clone(),
                source: Source::Written,
                spellings: vec![spelt[i].id],
                games: 0,
                info: None,
            });
            dated.push(Dated {
                spelling: spelt[i].id,
                entry: entry_of_group[&g],
                born,
                died,
                outside,
            });
        }
    }
    Entries::new(dict, entries, dated, ambiguous)
}
