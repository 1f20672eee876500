//! The UCI protocol's engine-to-GUI lines, parsed: `id`, `option`, `info`, `bestmove`
//! (Stefan Meyer-Kahlen's UCI specification, April 2006, and the `wdl` extension engines
//! such as Stockfish send). Parsing is lenient: an unknown token is skipped, a malformed
//! number drops that field, and a line that is none of these is `Line::Other`.

use serde::Serialize;

/// A score as the engine gives it, from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// The same score from the other side's point of view.
    pub fn negate(self) -> Score {
        match self {
            Score::Cp(c) => Score::Cp(-c),
            Score::Mate(m) => Score::Mate(-m),
        }
    }
}

/// A score that is only a bound (the search failed high or low).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Bound {
    Lower,
    Upper,
}

/// One `info` line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Info {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seldepth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipv: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nps: Option<u64>,
    /// Milliseconds searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
    /// The principal variation, in UCI.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pv: Vec<String>,
    /// Per mille of the hash table used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hashfull: Option<u32>,
    /// Win, draw, loss per mille, from the side to move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl: Option<[u32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currmove: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currmovenumber: Option<u32>,
    /// `info string ...`: free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
}

impl Info {
    /// Whether the line reports a searched line (a score and a PV), not just progress.
    pub fn is_line(&self) -> bool {
        self.score.is_some() && !self.pv.is_empty()
    }
}

/// An option the engine declares.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineOption {
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vars: Vec<String>,
}

/// A line from the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    IdName(String),
    IdAuthor(String),
    Option(EngineOption),
    UciOk,
    ReadyOk,
    Info(Box<Info>),
    BestMove {
        best: String,
        ponder: Option<String>,
    },
    Other(String),
}

/// Parses one line.
pub fn parse_line(line: &str) -> Line {
    let line = line.trim();
    let mut words = line.split_whitespace();
    match words.next() {
        Some("uciok") => Line::UciOk,
        Some("readyok") => Line::ReadyOk,
        Some("id") => match words.next() {
            Some("name") => Line::IdName(rest_after(line, "name")),
            Some("author") => Line::IdAuthor(rest_after(line, "author")),
            _ => Line::Other(line.to_string()),
        },
        Some("option") => {
            parse_option(line).map_or_else(|| Line::Other(line.to_string()), Line::Option)
        }
        Some("info") => Line::Info(Box::new(parse_info(line))),
        Some("bestmove") => match words.next() {
            Some(best) => {
                let ponder = match words.next() {
                    Some("ponder") => words.next().map(String::from),
                    _ => None,
                };
                Line::BestMove {
                    best: best.to_string(),
                    ponder,
                }
            }
            None => Line::Other(line.to_string()),
        },
        _ => Line::Other(line.to_string()),
    }
}

/// The text after the first occurrence of the word `word`.
fn rest_after(line: &str, word: &str) -> String {
    let mut rest = line;
    while let Some(i) = rest.find(word) {
        let before_ok = i == 0 || rest.as_bytes()[i - 1].is_ascii_whitespace();
        let after = &rest[i + word.len()..];
        if before_ok && (after.is_empty() || after.starts_with(char::is_whitespace)) {
            return after.trim().to_string();
        }
        rest = &rest[i + word.len()..];
    }
    String::new()
}

/// Parses an `info` line (the leading `info` included).
pub fn parse_info(line: &str) -> Info {
    let mut info = Info::default();
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    let num = |t: Option<&&str>| t.and_then(|s| s.parse::<u64>().ok());
    while i < tokens.len() {
        match tokens[i] {
            "depth" => info.depth = num(tokens.get(i + 1)).map(|v| v as u32),
            "seldepth" => info.seldepth = num(tokens.get(i + 1)).map(|v| v as u32),
            "multipv" => info.multipv = num(tokens.get(i + 1)).map(|v| v as u32),
            "nodes" => info.nodes = num(tokens.get(i + 1)),
            "nps" => info.nps = num(tokens.get(i + 1)),
            "time" => info.time = num(tokens.get(i + 1)),
            "hashfull" => info.hashfull = num(tokens.get(i + 1)).map(|v| v as u32),
            "currmovenumber" => info.currmovenumber = num(tokens.get(i + 1)).map(|v| v as u32),
            "currmove" => info.currmove = tokens.get(i + 1).map(|s| s.to_string()),
            "score" => {
                let value = tokens.get(i + 2).and_then(|s| s.parse::<i32>().ok());
                info.score = match (tokens.get(i + 1).copied(), value) {
                    (Some("cp"), Some(v)) => Some(Score::Cp(v)),
                    (Some("mate"), Some(v)) => Some(Score::Mate(v)),
                    _ => None,
                };
                if info.score.is_none() {
                    // Malformed: skip just the keyword, so what follows still parses.
                    i += 1;
                    continue;
                }
                i += 3;
                // Bounds follow the value.
                while let Some(&t) = tokens.get(i) {
                    match t {
                        "lowerbound" => info.bound = Some(Bound::Lower),
                        "upperbound" => info.bound = Some(Bound::Upper),
                        _ => break,
                    }
                    i += 1;
                }
                continue;
            }
            "wdl" => {
                let w: Vec<u32> = tokens[i + 1..]
                    .iter()
                    .take(3)
                    .map_while(|s| s.parse().ok())
                    .collect();
                if let [a, b, c] = w[..] {
                    info.wdl = Some([a, b, c]);
                }
                i += 1 + w.len();
                continue;
            }
            "pv" => {
                // The moves run to the end of the line or the next keyword.
                let mut j = i + 1;
                while j < tokens.len() && looks_like_uci(tokens[j]) {
                    info.pv.push(tokens[j].to_string());
                    j += 1;
                }
                i = j;
                continue;
            }
            "string" => {
                info.string = Some(tokens[i + 1..].join(" "));
                break;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

/// A UCI move: `e2e4`, `e7e8q`, `0000`.
pub fn looks_like_uci(s: &str) -> bool {
    let b = s.as_bytes();
    if s == "0000" {
        return true;
    }
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    (b.len() == 4 || (b.len() == 5 && b"nbrqk".contains(&b[4])))
        && square(b[0], b[1])
        && square(b[2], b[3])
}

/// Parses `option name NAME type KIND [default D] [min N] [max N] [var V]...`.
fn parse_option(line: &str) -> Option<EngineOption> {
    const KEYS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut opt = EngineOption::default();
    let mut i = 1;
    while i < tokens.len() {
        let key = tokens[i];
        let mut j = i + 1;
        while j < tokens.len() && !KEYS.contains(&tokens[j]) {
            j += 1;
        }
        let value = tokens[i + 1..j].join(" ");
        match key {
            "name" => opt.name = value,
            "type" => opt.kind = value,
            "default" => opt.default = Some(value),
            "min" => opt.min = value.parse().ok(),
            "max" => opt.max = value.parse().ok(),
            "var" => opt.vars.push(value),
            _ => {}
        }
        i = j;
    }
    (!opt.name.is_empty()).then_some(opt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_of_stockfish() {
        let i = parse_info(
            "info depth 20 seldepth 27 multipv 2 score cp -35 upperbound wdl 21 905 74 nodes 1234567 nps 987654 hashfull 412 tbhits 0 time 1250 pv e7e5 g1f3 b8c6",
        );
        assert_eq!(i.depth, Some(20));
        assert_eq!(i.seldepth, Some(27));
        assert_eq!(i.multipv, Some(2));
        assert_eq!(i.score, Some(Score::Cp(-35)));
        assert_eq!(i.bound, Some(Bound::Upper));
        assert_eq!(i.wdl, Some([21, 905, 74]));
        assert_eq!(i.nodes, Some(1_234_567));
        assert_eq!(i.nps, Some(987_654));
        assert_eq!(i.hashfull, Some(412));
        assert_eq!(i.time, Some(1250));
        assert_eq!(i.pv, ["e7e5", "g1f3", "b8c6"]);
        assert!(i.is_line());
        let m = parse_info("info depth 5 score mate -3 lowerbound pv h7h8q");
        assert_eq!(m.score, Some(Score::Mate(-3)));
        assert_eq!(m.bound, Some(Bound::Lower));
        assert_eq!(m.pv, ["h7h8q"]);
        let c = parse_info("info depth 30 currmove e2e4 currmovenumber 1");
        assert_eq!(c.currmove.as_deref(), Some("e2e4"));
        assert_eq!(c.currmovenumber, Some(1));
        assert!(!c.is_line());
        let s = parse_info("info string NNUE evaluation using nn.nnue enabled");
        assert_eq!(
            s.string.as_deref(),
            Some("NNUE evaluation using nn.nnue enabled")
        );
        // Garbage is skipped, not fatal.
        let g = parse_info("info depth x score cp nodes 12 pv zz99");
        assert_eq!(g.depth, None);
        assert_eq!(g.score, None);
        assert_eq!(g.nodes, Some(12));
        assert!(g.pv.is_empty());
    }

    #[test]
    fn other_lines() {
        assert_eq!(
            parse_line("id name Stockfish 15.1"),
            Line::IdName("Stockfish 15.1".into())
        );
        assert_eq!(
            parse_line("id author the Stockfish developers (see AUTHORS file)"),
            Line::IdAuthor("the Stockfish developers (see AUTHORS file)".into())
        );
        assert_eq!(parse_line("uciok"), Line::UciOk);
        assert_eq!(parse_line("readyok "), Line::ReadyOk);
        assert_eq!(
            parse_line("bestmove e2e4 ponder e7e5"),
            Line::BestMove {
                best: "e2e4".into(),
                ponder: Some("e7e5".into())
            }
        );
        assert_eq!(
            parse_line("bestmove (none)"),
            Line::BestMove {
                best: "(none)".into(),
                ponder: None
            }
        );
        let Line::Option(o) =
            parse_line("option name Skill Level type spin default 20 min 0 max 20")
        else {
            panic!()
        };
        assert_eq!((o.name.as_str(), o.kind.as_str()), ("Skill Level", "spin"));
        assert_eq!(
            (o.default.as_deref(), o.min, o.max),
            (Some("20"), Some(0), Some(20))
        );
        let Line::Option(o) = parse_line(
            "option name Analysis Contempt type combo default Both var Off var White var Black var Both",
        ) else {
            panic!()
        };
        assert_eq!(o.vars, ["Off", "White", "Black", "Both"]);
        assert!(matches!(
            parse_line("Stockfish 15.1 by the developers"),
            Line::Other(_)
        ));
    }
}
