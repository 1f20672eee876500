//! Engine evaluations kept by position: the `evals` table.
//!
//! Key: a chess position's index key (the same 128-bit key as the index, so any move order
//! and any game reaches it), big-endian. Value: one [`StoredEval`] — the engine, how deep it
//! looked, when, and its lines (score from White's point of view, UCI moves).
//!
//! Evaluations are not part of the games: writing one does not change any statistic, so it
//! does not move [`Database::generation`]; it moves [`Database::eval_generation`] instead.
//! Each write is one small transaction of its own (readers never wait for it: the store is
//! multi-version), committed durably like an import's, so a kill loses at most the batch being
//! written. Reads always see the latest evaluations, also while answers are pinned for an
//! import.

use std::sync::atomic::Ordering;

use crate::codec::{Reader, put_str, put_varint};
use crate::{Database, Error, Kind, Result};

pub use crate::schema::EVALS;

/// Layout version of a stored evaluation.
const VERSION: u8 = 1;

/// A score from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EvalScore {
    /// Centipawns, positive when White is better.
    Cp(i32),
    /// Mate in this many moves, positive when White mates.
    Mate(i32),
}

/// One line of an evaluation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalLine {
    pub score: EvalScore,
    /// The score is only a bound: `Some(true)` at least, `Some(false)` at most (White's view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_bound: Option<bool>,
    /// Win, draw, loss per mille from White's point of view, when the engine said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl: Option<[u32; 3]>,
    /// The line in UCI.
    pub pv: Vec<String>,
}

/// A finished analysis of one position.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredEval {
    /// The engine's `id name` (its name and version).
    pub engine: String,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    /// Milliseconds the search took.
    pub time_ms: u64,
    /// When it was found, seconds since 1970 (UTC).
    pub date: u64,
    /// Best first; empty when the position has no legal move.
    pub lines: Vec<EvalLine>,
}

impl StoredEval {
    /// Whether this evaluation should replace `old`: it looked deeper, or as deep with more
    /// lines. (`fresh` analyses replace whatever is stored.)
    pub fn better_than(&self, old: &StoredEval) -> bool {
        (self.depth, self.lines.len()) > (old.depth, old.lines.len())
    }

    /// The best line's score, if any.
    pub fn score(&self) -> Option<EvalScore> {
        self.lines.first().map(|l| l.score)
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(VERSION);
        put_str(out, &self.engine);
        put_varint(out, self.depth.into());
        put_varint(out, self.seldepth.into());
        put_varint(out, self.nodes);
        put_varint(out, self.time_ms);
        put_varint(out, self.date);
        put_varint(out, self.lines.len() as u64);
        for l in &self.lines {
            let (kind, v) = match l.score {
                EvalScore::Cp(c) => (0u8, c),
                EvalScore::Mate(m) => (1u8, m),
            };
            let bound = match l.lower_bound {
                None => 0u8,
                Some(true) => 1,
                Some(false) => 2,
            };
            out.push(kind | bound << 1 | u8::from(l.wdl.is_some()) << 3);
            put_varint(out, zigzag(v));
            if let Some(w) = l.wdl {
                for x in w {
                    put_varint(out, x.into());
                }
            }
            put_str(out, &l.pv.join(" "));
        }
    }

    pub fn decode(data: &[u8]) -> Result<StoredEval> {
        let mut r = Reader::new(data);
        let version = r.u8("evaluation version")?;
        if version != VERSION {
            return Err(Error::Corrupt(format!(
                "an evaluation of layout {version} (this Tabiya knows {VERSION})"
            )));
        }
        let engine = r.str("evaluation engine")?.to_string();
        let depth = r.varint_u32("evaluation depth")?;
        let seldepth = r.varint_u32("evaluation seldepth")?;
        let nodes = r.varint("evaluation nodes")?;
        let time_ms = r.varint("evaluation time")?;
        let date = r.varint("evaluation date")?;
        let n = r.varint("evaluation lines")?;
        if n > 500 {
            return Err(r.bad("evaluation lines").into());
        }
        let mut lines = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let flags = r.u8("evaluation line")?;
            let v = unzigzag(r.varint("evaluation score")?);
            let score = if flags & 1 == 0 {
                EvalScore::Cp(v)
            } else {
                EvalScore::Mate(v)
            };
            let lower_bound = match (flags >> 1) & 3 {
                0 => None,
                1 => Some(true),
                2 => Some(false),
                _ => return Err(r.bad("evaluation bound").into()),
            };
            let wdl = if flags & 8 != 0 {
                Some([
                    r.varint_u32("evaluation wdl")?,
                    r.varint_u32("evaluation wdl")?,
                    r.varint_u32("evaluation wdl")?,
                ])
            } else {
                None
            };
            let pv = r
                .str("evaluation line")?
                .split_whitespace()
                .map(String::from)
                .collect();
            lines.push(EvalLine {
                score,
                lower_bound,
                wdl,
                pv,
            });
        }
        Ok(StoredEval {
            engine,
            depth,
            seldepth,
            nodes,
            time_ms,
            date,
            lines,
        })
    }
}

fn zigzag(v: i32) -> u64 {
    u64::from(((v << 1) ^ (v >> 31)) as u32)
}

fn unzigzag(v: u64) -> i32 {
    let v = v as u32;
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

/// A stored evaluation in brief, as the explorer shows it beside a move: the best line's
/// score from White's point of view and the depth. Serialised `{"cp": 31, "depth": 24}` or
/// `{"mate": -2, "depth": 30}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EvalBrief {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    pub depth: u32,
}

impl StoredEval {
    /// The brief form; `None` without lines (no legal move).
    pub fn brief(&self) -> Option<EvalBrief> {
        let (cp, mate) = match self.score()? {
            EvalScore::Cp(c) => (Some(c), None),
            EvalScore::Mate(m) => (None, Some(m)),
        };
        Some(EvalBrief {
            cp,
            mate,
            depth: self.depth,
        })
    }
}

/// What [`Database::store_evals`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct EvalsStored {
    /// New positions.
    pub added: u64,
    /// Positions whose evaluation was replaced by a deeper (or fresh) one.
    pub replaced: u64,
    /// Offered evaluations not stored: the one there is deeper.
    pub kept: u64,
}

impl Database {
    fn chess_only(&self, what: &str) -> Result<()> {
        if self.kind() == Kind::Othello {
            return Err(Error::Usage(format!(
                "{what}: engine evaluations are for chess databases; {} holds Othello",
                self.dir().display()
            )));
        }
        Ok(())
    }

    /// The stored evaluations of these positions (by index key), latest state.
    pub fn evals(&self, keys: &[u128]) -> Result<Vec<Option<StoredEval>>> {
        let read = self.store.read()?;
        let table = read.table(EVALS)?;
        keys.iter()
            .map(|k| match table.get(&k.to_be_bytes())? {
                Some(v) => StoredEval::decode(&v).map(Some),
                None => Ok(None),
            })
            .collect()
    }

    /// Keeps these evaluations, in one transaction: each replaces a stored one only when
    /// [`StoredEval::better_than`] it, or always with `fresh`.
    pub fn store_evals(&self, evals: &[(u128, StoredEval)], fresh: bool) -> Result<EvalsStored> {
        self.chess_only("storing evaluations")?;
        let mut done = EvalsStored::default();
        if evals.is_empty() {
            return Ok(done);
        }
        let w = self.store.write()?;
        {
            let mut t = w.table(EVALS)?;
            let mut buf = Vec::new();
            for (key, eval) in evals {
                let k = key.to_be_bytes();
                match t.get(&k)? {
                    Some(old) => {
                        // An unreadable old one is replaced (it is of no use to anyone).
                        let keep = !fresh
                            && StoredEval::decode(&old).is_ok_and(|old| !eval.better_than(&old));
                        if keep {
                            done.kept += 1;
                            continue;
                        }
                        done.replaced += 1;
                    }
                    None => done.added += 1,
                }
                buf.clear();
                eval.encode(&mut buf);
                t.put(&k, &buf)?;
            }
        }
        w.commit()?;
        if done.added + done.replaced > 0 {
            self.eval_generation.fetch_add(1, Ordering::AcqRel);
        }
        Ok(done)
    }

    /// How many positions have a stored evaluation.
    pub fn eval_count(&self) -> Result<u64> {
        Ok(self.store.read()?.table(EVALS)?.len()?)
    }

    /// Moves whenever an evaluation is stored (answers showing evaluations are stale then).
    pub fn eval_generation(&self) -> u64 {
        self.eval_generation.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(depth: u32, lines: usize) -> StoredEval {
        StoredEval {
            engine: "Stockfish 15.1".into(),
            depth,
            seldepth: depth + 4,
            nodes: 123_456_789,
            time_ms: 4321,
            date: 1_795_000_000,
            lines: (0..lines)
                .map(|i| EvalLine {
                    score: if i == 0 {
                        EvalScore::Mate(-3)
                    } else {
                        EvalScore::Cp(-(i as i32) * 37)
                    },
                    lower_bound: [None, Some(true), Some(false)][i % 3],
                    wdl: (i % 2 == 0).then_some([10, 20, 970]),
                    pv: vec!["e2e4".into(), "e7e5".into(), "e1g1".into()],
                })
                .collect(),
        }
    }

    #[test]
    fn an_evaluation_reads_back_as_written() {
        for lines in [0, 1, 5] {
            let e = eval(23, lines);
            let mut buf = Vec::new();
            e.encode(&mut buf);
            assert_eq!(StoredEval::decode(&buf).unwrap(), e);
        }
        for v in [0, 1, -1, i32::MAX, i32::MIN, 12345, -98765] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }

    #[test]
    fn damaged_evaluations_are_errors_not_panics() {
        let mut buf = Vec::new();
        eval(20, 3).encode(&mut buf);
        for n in 0..buf.len() {
            let _ = StoredEval::decode(&buf[..n]);
        }
        buf[0] = 9;
        assert!(StoredEval::decode(&buf).is_err());
    }

    #[test]
    fn deeper_or_wider_replaces() {
        assert!(eval(21, 1).better_than(&eval(20, 3)));
        assert!(eval(20, 3).better_than(&eval(20, 1)));
        assert!(!eval(20, 1).better_than(&eval(20, 1)));
        assert!(!eval(19, 5).better_than(&eval(20, 1)));
    }
}
