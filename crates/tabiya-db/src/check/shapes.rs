//! The structure index (`crate::shapes`) against the stored games, when the database keeps
//! it.
//!
//! Each shape segment's header, material directory and rows must decode; the segments' id
//! ranges must not overlap nor reach past the next game id; and each stored game a segment
//! covers (deleted games are not: their pairs may stay, a search skips them) has its
//! distinct material codes and pawn keys computed again, as `tabiya db structures` computes
//! them: each must be in the segment's row for its key, with its fingerprint and the game,
//! and each material code in the segment's material directory. Pairs of more games than
//! these are allowed (a game sharing a fingerprint costs a replay, never a wrong answer).
//! Each stored game a square segment keeps a search line for has the line its record gives
//! (or none, when its record can have none): a search plays the line, not the record.

use tabiya_store::ReadTx;

use super::{CheckReport, note};
use crate::chess::stored::decode_line;
use crate::index::amend::load_removed;
use crate::records::Records;
use crate::shapes::keys::MATERIAL_BIT;
use crate::shapes::lines::{LineReader, line_of};
use crate::shapes::rows::{MATERIAL, PAWNS, each_row, material_codes};
use crate::shapes::squares::read_square_segments;
use crate::shapes::{ShapeSegment, material_counts, material_key, read_segments};
use crate::{Database, Error, Kind, Result, meta_u64};

/// The part problems are reported under.
const PART: &str = "shapes";

pub(super) fn check(
    db: &Database,
    read: &ReadTx,
    report: &mut CheckReport,
    t0: std::time::Instant,
) -> Result<()> {
    if db.kind() != Kind::Chess {
        return Ok(());
    }
    let Some(mut segs) = note(report, PART, "segments", read_segments(read)) else {
        return Ok(());
    };
    if segs.is_empty() && !crate::shapes::build::kept(read)? {
        return Ok(()); // no structure index: nothing to say
    }
    segs.sort_by_key(|s| s.first);
    report.shape_segments = segs.len() as u64;
    let next = (meta_u64(read, "next_game")? as u32).max(Records::new(read)?.ids_end()?);
    for w in segs.windows(2) {
        if w[0].end > w[1].first {
            report.problem(
                PART,
                place(&w[1]),
                format!("overlaps segment {}..{}", w[0].first, w[0].end),
            );
        }
    }
    for seg in segs.iter().filter(|s| s.end > next) {
        report.problem(
            PART,
            place(seg),
            format!("covers ids past the next game id, {next}"),
        );
    }
    let removed = load_removed(read)?;
    for seg in &segs {
        segment(read, seg, &removed, report)?;
    }
    statistics(read, &removed, report)?;
    lines(read, &removed, report)?;
    crate::trace::trace("check: structure index", t0);
    Ok(())
}

/// Each stored game a square segment keeps a line for: its line is the one its record gives.
/// A segment's lines are read in one pass ([`LineReader::each_line`]); when a block cannot
/// be read, each game again on its own, so that every damaged one is named.
fn lines(read: &ReadTx, removed: &[u32], report: &mut CheckReport) -> Result<()> {
    let Some(segs) = note(report, PART, "square segments", read_square_segments(read)) else {
        return Ok(());
    };
    let with_lines = segs.iter().filter(|s| s.lines).map(|s| (s.first, s.end));
    let reader = LineReader::new(read, with_lines.collect())?;
    let records = Records::new(read)?;
    let codes = |c: &[u8]| -> Vec<u16> {
        c.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect()
    };
    for seg in segs.iter().filter(|s| s.lines) {
        // Each stored game's line as its record gives it (a record that does not decode is
        // the games' check's to report).
        let mut ids = Vec::new();
        let mut want = Vec::new();
        records.scan_range(seg.first, Some(seg.end), |id, raw| {
            if removed.binary_search(&id).is_err()
                && let Ok((start, mode, moves, _)) = decode_line(raw)
            {
                ids.push(id);
                want.push(line_of(&start, mode, &moves));
            }
            Ok(true)
        })?;
        let mut got: Vec<Option<Vec<u16>>> = vec![None; ids.len()];
        let read_all = reader.each_line(&ids, |i, c| {
            got[i] = Some(codes(c));
            Ok(())
        });
        for (i, &id) in ids.iter().enumerate() {
            let place = || format!("square segment {}..{} game {id}", seg.first, seg.end);
            let line = match &read_all {
                Ok(_) => Ok(got[i].take()),
                Err(_) => reader.line(id).map(|l| l.map(|c| codes(&c))),
            };
            match line {
                Err(e) => report.problem(PART, place(), format!("its search line: {}", why(e))),
                Ok(line) => {
                    if line != want[i] {
                        report.problem(PART, place(), "its search line is not its main line");
                    }
                    report.line_games += 1;
                }
            }
        }
    }
    Ok(())
}

/// The shape statistics (`crate::shapes::stats`): every record decodes, its moves count
/// each of its games once, its next structures no more than its games, and its lists name
/// games it counts (below *through*, not deleted).
fn statistics(read: &ReadTx, removed: &[u32], report: &mut CheckReport) -> Result<()> {
    use crate::shapes::stats::{coverage, each_record};
    let Some(cov) = note(report, PART, "statistics", coverage(read)).flatten() else {
        return Ok(());
    };
    let mut problems = Vec::new();
    each_record(read, |shape, rec| {
        let at = format!("statistics of shape {shape:#x}");
        let rec = match rec {
            Ok(r) => r,
            Err(e) => return problems.push((at, e.to_string())),
        };
        let games = rec.totals.games();
        let by_moves: u64 = rec.moves.iter().map(|m| m.stats.games()).sum();
        if by_moves != games {
            problems.push((
                at.clone(),
                format!("its moves count {by_moves} games, its totals {games}"),
            ));
        }
        let next: u64 = rec.next.iter().map(|(_, s)| s.games()).sum();
        if next > games {
            problems.push((
                at.clone(),
                format!("its next structures count {next} games, more than its {games}"),
            ));
        }
        for (id, _) in rec.lists.iter().flatten() {
            if *id >= cov.through || removed.binary_search(id).is_ok() {
                problems.push((
                    at.clone(),
                    format!("lists game {id}, which it does not count"),
                ));
                break;
            }
        }
    })?;
    for (at, what) in problems {
        report.problem(PART, at, what);
    }
    Ok(())
}

fn place(seg: &ShapeSegment) -> String {
    format!("segment {}..{}", seg.first, seg.end)
}

/// What a damaged part says, without the error's general preface.
fn why(e: Error) -> String {
    match e {
        Error::Corrupt(s) => s,
        Error::Decode(d) => d.to_string(),
        e => e.to_string(),
    }
}

/// One segment: its rows decoded, its games' shapes found in them.
fn segment(
    read: &ReadTx,
    seg: &ShapeSegment,
    removed: &[u32],
    report: &mut CheckReport,
) -> Result<()> {
    let at = place(seg);
    // (Not decoded: said once, its codes not looked for.)
    let directory = match material_codes(read, seg) {
        Ok(d) => Some(d),
        Err(e) => {
            report.problem(
                PART,
                at.clone(),
                format!("its material directory does not decode: {}", why(e)),
            );
            None
        }
    };
    // The rows' pairs of each kind: (row, fingerprint, game), sorted.
    let mut held: [Vec<(u32, u16, u32)>; 2] = [Vec::new(), Vec::new()];
    for (i, (kind, name)) in [(MATERIAL, "material"), (PAWNS, "pawn")]
        .into_iter()
        .enumerate()
    {
        let bits = seg.bits(kind);
        let mut bad = Vec::new();
        let list = &mut held[i];
        each_row(read, seg, kind, |row, pairs| match pairs {
            Ok(_) if bits < 32 && u64::from(row) >> bits != 0 => bad.push(format!(
                "{name} row {row} lies past the segment's {bits} row bits (no search reads it)"
            )),
            Ok(pairs) => list.extend(pairs.into_iter().map(|(fp, g)| (row, fp, g))),
            Err(e) => bad.push(format!("{name} row {row} does not decode: {}", why(e))),
        })?;
        for what in bad {
            report.problem(PART, at.clone(), what);
        }
        if list.len() as u64 != seg.pairs[i] {
            report.problem(
                PART,
                at.clone(),
                format!(
                    "its header says {} {name} pairs, its rows hold {}",
                    seg.pairs[i],
                    list.len()
                ),
            );
        }
        list.sort_unstable();
    }
    let shapes = crate::shapes::build::shapes_of(read, seg.first, seg.end);
    let Some((pairs, games)) = note(report, PART, at.clone(), shapes) else {
        return Ok(());
    };
    report.shape_games += games;
    for (entry, game) in pairs {
        if removed.binary_search(&game).is_ok() {
            continue;
        }
        let at = || format!("{at} game {game}");
        if entry & MATERIAL_BIT != 0 {
            let code = entry & !MATERIAL_BIT;
            if directory
                .as_ref()
                .is_some_and(|d| d.binary_search(&code).is_err())
            {
                report.problem(
                    PART,
                    at(),
                    format!(
                        "its material {} is not in the segment's material directory",
                        signature(code)
                    ),
                );
            }
            let (row, fp) = seg.place(MATERIAL, material_key(code));
            if held[0].binary_search(&(row, fp, game)).is_err() {
                report.problem(
                    PART,
                    at(),
                    format!(
                        "its material {} is missing from material row {row} (fingerprint {fp:04x})",
                        signature(code)
                    ),
                );
            }
        } else {
            let (row, fp) = seg.place(PAWNS, entry);
            if held[1].binary_search(&(row, fp, game)).is_err() {
                report.problem(
                    PART,
                    at(),
                    format!(
                        "its pawn structure {entry:016x} is missing from pawn row {row} (fingerprint {fp:04x})"
                    ),
                );
            }
        }
    }
    Ok(())
}

/// A material code as a signature: `KRPvKR`.
fn signature(code: u64) -> String {
    let mut s = String::new();
    for (side, counts) in material_counts(code).iter().enumerate() {
        if side == 1 {
            s.push('v');
        }
        s.push('K');
        for (piece, &n) in ['Q', 'R', 'B', 'N', 'P'].iter().zip(counts) {
            s.extend(std::iter::repeat_n(*piece, n as usize));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn signatures_name_the_pieces() {
        assert_eq!(super::signature(0x01001_01000), "KRPvKR");
        assert_eq!(super::signature(0), "KvK");
    }
}
