//! Grouping a dictionary of player names into persons ([`cluster`]).

use std::collections::HashMap;

use crate::person::{Parsed, parse_into, tokens_compatible};

/// The persons found among a list of names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clustering {
    /// The persons, sorted by canonical name (then by their first member).
    pub clusters: Vec<Cluster>,
    /// For each input name, the index of its cluster; `None` for the names that are no person.
    pub cluster_of: Vec<Option<usize>>,
    /// The names left on their own because they fit several persons, in input order.
    pub ambiguous: Vec<Ambiguity>,
    /// The input names that name nobody (empty, `?`, `NN`, …), in input order.
    pub not_persons: Vec<usize>,
}

/// One person: the input names that spell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// "Surname, Given names": the fullest spelling, the one written by the most games.
    pub canonical: String,
    /// Indices of the input names, ascending.
    pub members: Vec<usize>,
    /// The sum of the members' weights (games).
    pub games: u64,
}

/// A name compatible with several persons that are not compatible with each other
/// (`Fischer, R` beside `Fischer, Robert` and `Fischer, Rudolf`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ambiguity {
    /// Index of the input name.
    pub name: usize,
    /// The cluster the name was left in (its own, with the names spelt the same).
    pub cluster: usize,
    /// The clusters it could belong to, ascending.
    pub candidates: Vec<usize>,
}

/// Groups names into persons. Each name comes with a weight (its number of games), used to
/// pick the canonical spelling.
///
/// 1. Names that parse ([`crate::parse`]) to the same folded surname and given names are one
///    person for sure; call each such set a *form*.
/// 2. Among the forms of one surname, a form is *fuller* than another when it has at least as
///    many given names and each of its given names begins with the other's (`Robert J` is
///    fuller than `R`, `Robert` and `Robert J`, not than `Bobby`). The forms no form is fuller
///    than are the persons, except that such forms compatible with each other
///    ([`crate::compatible`], e.g. `Robert J` and `R James`) are one person when the form fits
///    exactly one person so far (fullest forms first).
/// 3. Every other form joins the one person it is compatible with; compatible with several, it
///    is left on its own and reported in [`Clustering::ambiguous`].
///
/// The output depends only on the input (no hash order leaks out).
pub fn cluster(names: &[(&str, u64)]) -> Clustering {
    let n = names.len();
    let mut out = Clustering {
        cluster_of: vec![None; n],
        ..Default::default()
    };

    // Parse; given names and display names go to one arena, surnames pick a bucket
    // (buckets numbered in order of first appearance).
    let mut text = String::new();
    let mut given = vec![(0, 0); n];
    let mut display = vec![(0, 0); n];
    let mut bucket = vec![u32::MAX; n];
    let mut bucket_of: HashMap<String, u32, BuildFx> = HashMap::default();
    let mut p = Parsed::default();
    for (i, (name, _)) in names.iter().enumerate() {
        if !parse_into(name, &mut p) {
            out.not_persons.push(i);
            continue;
        }
        p.surname.retain(|c| c != ' ');
        let next = bucket_of.len() as u32;
        bucket[i] = match bucket_of.get(p.surname.as_str()) {
            Some(&b) => b,
            None => *bucket_of
                .entry(std::mem::take(&mut p.surname))
                .or_insert(next),
        };
        given[i] = push(&mut text, &p.given);
        display[i] = push(&mut text, &p.display);
    }
    let n_buckets = bucket_of.len();
    drop(bucket_of);
    let at = |s: (u32, u32)| &text[s.0 as usize..s.1 as usize];

    // The names of each bucket, sorted by given names (the space joining them sorts before any
    // letter, so the order is word by word), then cut into forms.
    let by_bucket = group_by(n, n_buckets, |i| {
        (bucket[i] != u32::MAX).then_some(bucket[i] as usize)
    });
    let mut forms: Vec<Form> = Vec::new();
    let mut form_of = vec![usize::MAX; n];
    let mut person_of: Vec<usize> = Vec::new(); // per form
    let mut ambiguous: Vec<(usize, Vec<usize>)> = Vec::new(); // (person, candidate persons)
    let mut n_persons = 0;
    for mut members in by_bucket {
        members.sort_unstable_by(|&a, &b| at(given[a]).cmp(at(given[b])).then(a.cmp(&b)));
        let lo = forms.len();
        for i in members {
            let g = at(given[i]);
            let len = forms.len();
            match forms.last_mut() {
                Some(f) if len > lo && f.given == g => f.games += names[i].1,
                _ => forms.push(Form {
                    given: g,
                    games: names[i].1,
                }),
            }
            form_of[i] = forms.len() - 1;
        }
        n_persons += cluster_bucket(&forms[lo..], n_persons, &mut person_of, &mut ambiguous);
    }

    // Per person: the fullest form (most given names, then letters, then games), and its
    // spelling written by the most games.
    let mut best_form = vec![usize::MAX; n_persons];
    for (f, &p) in person_of.iter().enumerate() {
        let key = |f: usize| {
            (
                fullness(forms[f].given),
                forms[f].games,
                std::cmp::Reverse(f),
            )
        };
        if best_form[p] == usize::MAX || key(f) > key(best_form[p]) {
            best_form[p] = f;
        }
    }
    let person = |i: usize| (form_of[i] != usize::MAX).then(|| person_of[form_of[i]]);
    let mut best_name = vec![usize::MAX; n_persons];
    let mut games = vec![0u64; n_persons];
    for i in 0..n {
        let Some(p) = person(i) else { continue };
        games[p] += names[i].1;
        let b = best_name[p];
        if form_of[i] == best_form[p]
            && (b == usize::MAX
                || (names[i].1, std::cmp::Reverse(at(display[i])))
                    > (names[b].1, std::cmp::Reverse(at(display[b]))))
        {
            best_name[p] = i;
        }
    }
    let mut members = group_by(n, n_persons, person);

    // Clusters sorted by canonical name, then first member.
    let mut order: Vec<usize> = (0..n_persons).collect();
    order.sort_unstable_by(|&a, &b| {
        at(display[best_name[a]])
            .cmp(at(display[best_name[b]]))
            .then(members[a][0].cmp(&members[b][0]))
    });
    let mut renumber = vec![0; n_persons];
    out.clusters = order
        .iter()
        .enumerate()
        .map(|(new, &p)| {
            renumber[p] = new;
            let members = std::mem::take(&mut members[p]);
            for &m in &members {
                out.cluster_of[m] = Some(new);
            }
            Cluster {
                canonical: at(display[best_name[p]]).to_string(),
                members,
                games: games[p],
            }
        })
        .collect();
    for (p, cands) in ambiguous {
        let cluster = renumber[p];
        let mut candidates: Vec<usize> = cands.iter().map(|&c| renumber[c]).collect();
        candidates.sort_unstable();
        for &name in &out.clusters[cluster].members {
            out.ambiguous.push(Ambiguity {
                name,
                cluster,
                candidates: candidates.clone(),
            });
        }
    }
    out.ambiguous.sort_unstable_by_key(|a| a.name);
    out
}

struct Form<'a> {
    /// Folded given names joined by spaces.
    given: &'a str,
    games: u64,
}

fn push(arena: &mut String, s: &str) -> (u32, u32) {
    let start = arena.len() as u32;
    arena.push_str(s);
    (start, arena.len() as u32)
}

/// The items `0..n` grouped by `key` (items without a key left out), each group ascending.
fn group_by(n: usize, groups: usize, key: impl Fn(usize) -> Option<usize>) -> Vec<Vec<usize>> {
    let mut count = vec![0usize; groups];
    (0..n).filter_map(&key).for_each(|g| count[g] += 1);
    let mut out: Vec<Vec<usize>> = count.into_iter().map(Vec::with_capacity).collect();
    (0..n).for_each(|i| {
        if let Some(g) = key(i) {
            out[g].push(i)
        }
    });
    out
}

/// FxHash (rustc's): a fast hasher for the surname table. Names come from the caller's
/// files, not from an adversary across a network.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(b))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type BuildFx = std::hash::BuildHasherDefault<Fx>;

fn words(given: &str) -> std::str::Split<'_, char> {
    given.split(' ')
}

fn fullness(given: &str) -> (usize, usize) {
    if given.is_empty() {
        (0, 0)
    } else {
        (words(given).count(), given.len())
    }
}

/// `g` is fuller than `f` (or equal).
fn fuller(g: &str, f: &str) -> bool {
    f.is_empty()
        || (fullness(g).0 >= fullness(f).0 && words(f).zip(words(g)).all(|(x, y)| y.starts_with(x)))
}

fn compatible(a: &str, b: &str) -> bool {
    a.is_empty() || b.is_empty() || tokens_compatible(words(a), words(b))
}

fn first<'a>(f: &Form<'a>) -> Option<&'a str> {
    words(f.given).next().filter(|w| !w.is_empty())
}

fn first_char(f: &Form) -> Option<char> {
    f.given.chars().next()
}

/// Clusters the forms of one surname (sorted by given names): appends the person of each
/// form (numbered from `base`) and the ambiguous persons with their candidates; returns the
/// number of persons.
fn cluster_bucket(
    bucket: &[Form],
    base: usize,
    person_of_out: &mut Vec<usize>,
    ambiguous_out: &mut Vec<(usize, Vec<usize>)>,
) -> usize {
    if bucket.len() == 1 {
        person_of_out.push(base);
        return 1;
    }
    // Maximal forms: no other form is fuller. A fuller form's first given name begins with
    // this one's, so it lies in the sorted range of forms whose first given name does.
    let maximal: Vec<bool> = (0..bucket.len())
        .map(|i| {
            let f = &bucket[i];
            let Some(w) = first(f) else { return false };
            let start = bucket.partition_point(|g| first(g).is_none_or(|x| x < w));
            !bucket[start..]
                .iter()
                .enumerate()
                .take_while(|(_, g)| first(g).is_some_and(|x| x.starts_with(w)))
                .any(|(j, g)| start + j != i && fuller(g.given, f.given))
        })
        .collect();

    // Persons from the maximal forms, fullest first, grouped by first initial.
    let mut persons: Vec<Vec<usize>> = Vec::new(); // forms of each person
    let mut person_of = vec![usize::MAX; bucket.len()];
    let mut ambiguous = Vec::new();
    let mut order: Vec<usize> = (0..bucket.len()).filter(|&i| maximal[i]).collect();
    order.sort_by_key(|&i| {
        let (n, len) = fullness(bucket[i].given);
        (
            std::cmp::Reverse(n),
            std::cmp::Reverse(len),
            std::cmp::Reverse(bucket[i].games),
            i,
        )
    });
    let mut by_initial: Vec<(Option<char>, Vec<usize>)> = Vec::new(); // -> persons
    for &i in &order {
        let initial = first_char(&bucket[i]);
        let g = match by_initial.iter().position(|e| e.0 == initial) {
            Some(g) => g,
            None => {
                by_initial.push((initial, Vec::new()));
                by_initial.len() - 1
            }
        };
        let group = &mut by_initial[g].1;
        let fits: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&p| {
                persons[p]
                    .iter()
                    .all(|&f| compatible(bucket[f].given, bucket[i].given))
            })
            .collect();
        if let [p] = fits[..] {
            persons[p].push(i);
            person_of[i] = p;
        } else {
            persons.push(vec![i]);
            person_of[i] = persons.len() - 1;
            group.push(persons.len() - 1);
            if fits.len() > 1 {
                ambiguous.push((persons.len() - 1, fits));
            }
        }
    }

    // The other forms join the one person they fit (a surname alone: any person).
    let all: Vec<usize> = (0..persons.len()).collect();
    for i in (0..bucket.len()).filter(|&i| !maximal[i]) {
        let f = &bucket[i];
        let group = match first_char(f) {
            Some(c) => by_initial
                .iter()
                .find(|e| e.0 == Some(c))
                .map_or(&[][..], |e| &e.1),
            None => &all,
        };
        let fits: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&p| {
                persons[p]
                    .iter()
                    .any(|&g| compatible(bucket[g].given, f.given))
            })
            .collect();
        if let [p] = fits[..] {
            person_of[i] = p;
        } else {
            persons.push(vec![i]);
            person_of[i] = persons.len() - 1;
            if fits.len() > 1 {
                ambiguous.push((persons.len() - 1, fits));
            }
        }
    }
    person_of_out.extend(person_of.iter().map(|p| base + p));
    ambiguous_out.extend(
        ambiguous
            .into_iter()
            .map(|(p, c)| (base + p, c.into_iter().map(|c| base + c).collect())),
    );
    persons.len()
}
