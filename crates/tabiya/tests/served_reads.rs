//! The read commands beside a running server: while `tabiya serve` holds a database (and
//! with it the store's lock), `explore`, `games`, `export`, `stats`, `names …` and `search`
//! on the same database ask that server (`tabiya_service::reads`) and print exactly what
//! they print with the database to themselves — the same text, the same JSON, the same
//! bytes of PGN and Parquet, the same errors and exit statuses. Each command runs first
//! with no server, then with the server holding the database, then again after the server
//! stopped; the three outputs must be equal. Without the hand-over these commands stop with
//! "is served by …" (the store is locked), so equality cannot come by itself.

mod common;

use std::path::Path;
use std::process::Output;

use common::server::{Server, send_with};
use common::{run_ok, run_raw, shared};

/// What a command gave: its exit status, standard output, standard error.
#[derive(Debug, PartialEq, Eq)]
struct Said {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn said(out: Output) -> Said {
    Said {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every command of `commands` run now, with `{db}` and `{out}` replaced; the files each
/// wrote (`{out}`) read back into its output.
fn run_all(commands: &[Vec<String>], db: &Path, out_dir: &Path) -> Vec<Said> {
    commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let out = out_dir.join(format!("out{i}"));
            let _ = std::fs::remove_file(&out);
            let args: Vec<String> = c
                .iter()
                .map(|a| {
                    a.replace("{db}", db.to_str().unwrap())
                        .replace("{out}", out.to_str().unwrap())
                })
                .collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut s = said(run_raw(&args));
            if let Ok(bytes) = std::fs::read(&out) {
                s.stdout.extend_from_slice(b"\n--- file ---\n");
                s.stdout.extend_from_slice(&bytes);
            }
            // The file's name differs in no way between runs; keep messages comparable.
            s.stderr = s.stderr.replace(out.to_str().unwrap(), "{out}");
            s
        })
        .collect()
}

/// The commands that failed, each with what it said.
fn failing(commands: &[Vec<String>], said: &[Said]) -> Vec<String> {
    commands
        .iter()
        .zip(said)
        .filter(|(_, s)| s.code != Some(0))
        .map(|(c, s)| format!("{}: {}", c.join(" "), s.stderr))
        .collect()
}

/// Compares each command's outputs, naming the command that differs.
fn same(commands: &[Vec<String>], a: &[Said], b: &[Said], what: &str) {
    for ((c, x), y) in commands.iter().zip(a).zip(b) {
        if x == y {
            continue;
        }
        let (xs, ys) = (
            String::from_utf8_lossy(&x.stdout),
            String::from_utf8_lossy(&y.stdout),
        );
        let first = xs
            .lines()
            .zip(ys.lines())
            .position(|(p, q)| p != q)
            .unwrap_or(xs.lines().count().min(ys.lines().count()));
        panic!(
            "`tabiya {}` {what}: exit {:?} / {:?}; stderr {:?} / {:?}; output differs from line {}: {:?} / {:?} ({} / {} bytes)",
            c.join(" "),
            x.code,
            y.code,
            x.stderr,
            y.stderr,
            first + 1,
            xs.lines().nth(first),
            ys.lines().nth(first),
            x.stdout.len(),
            y.stdout.len()
        );
    }
}

#[test]
fn read_commands_answer_the_same_while_a_server_holds_a_chess_database() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    let pgn = shared("pgn/pgnmentor/Morphy.pgn");
    run_ok(&["import", "--db", d, pgn.to_str().unwrap()]);
    // A note and a gameset, which the answers show and filter by.
    run_ok(&[
        "note",
        "set",
        "--db",
        d,
        "--play",
        "e4 e5 Nf3",
        "Morphy's favourite",
    ]);
    run_ok(&[
        "gameset",
        "create",
        "--db",
        d,
        "short",
        "--where",
        "plies < 50",
    ]);
    run_ok(&[
        "cards", "add", "--db", d, "--play", "e4 e5", "--move", "Nf3",
    ]);
    let mut commands: Vec<Vec<String>> = [
        "explore --db {db}",
        "explore --db {db} --json",
        "explore --db {db} --play e4,e5,Nf3 --top 3",
        "explore --db {db} --play e4,e5,Nf3 --json --top 20",
        "explore --db {db} --play e4 --since 1858 --until 1859",
        "explore --db {db} --play e4 --player Morphy --color white --json",
        "explore --db {db} --play e4 --gameset short --json",
        "explore --db {db} --play e4,e5 --by-year",
        "explore --db {db} --play e4,e5 --by-year --json",
        "explore --db {db} --play e4,e5,Nf3,Nc6 --transpositions 5",
        "explore --db {db} --play e4,e5,Nf3,Nc6 --transpositions 5 --json",
        "explore --db {db} --play e4,e5 --later-structures 5",
        "explore --db {db} --play e4,e5 --later-structures 5 --held 2 --json",
        "explore --db {db} --play e4,e5 --book {polyglot}",
        "explore --db {db} --play e4,e5 --rep {rep}",
        "games --db {db} --play e4,e5 --limit 5",
        "games --db {db} --play e4,e5 --limit 5 --offset 3 --sort date --json",
        "games --db {db} --play e4,e5 --novelties --limit 3 --json",
        "games --db {db} --player Morphy --limit 4",
        "stats --db {db}",
        "stats --db {db} --json",
        "names search --db {db} morphy",
        "names search --db {db} morphy --json",
        "names show --db {db} \"Morphy, Paul\"",
        "names show --db {db} \"Morphy, Paul\" --json",
        "names list --db {db} --limit 5",
        "names list --db {db} --limit 5 --kind event --json",
        "names ambiguous --db {db}",
        "search --db {db} --material KRPvKR",
        "search --db {db} --pawns 8/pp3ppp/8/8/8/8/PP3PPP/8 --json",
        "search --db {db} --pattern 8/8/8/3N4/8/8/8/8 --limit 3",
        "export --db {db} --game 3",
        "export --db {db} --play e4,e5,Nf3,Nc6,Bb5",
        "export --db {db} --gameset short -o {out}",
        "export --db {db} --where \"result = '0-1'\" --canonical-names --notes",
        "export --db {db} --evals --game 2",
        "export --db {db} -o {out}.parquet",
        "gameset list --db {db}",
        "gameset list --db {db} --json",
        "gameset show --db {db} short",
        "gameset show --db {db} short --json",
        "gameset games --db {db} short --limit 5",
        "gameset games --db {db} short --offset 2 --limit 5 --json",
        "gameset export --db {db} short",
        "note show --db {db} --play e4,e5,Nf3",
        "note show --db {db} --play e4,e5,Nf3 --json",
        "note show --db {db} --play d4",
        "novelty --db {db} --game 5 --game 40",
        "novelty --db {db} --game 7 --plies --json",
        "novelty --db {db} {fischer}",
        "prepare --db {db} --player \"Morphy, Paul\" --color white --depth 8",
        "prepare --db {db} --player \"Morphy, Paul\" --color black --json",
        "prepare --db {db} --player \"Morphy, Paul\" --color white -o {out} --format pgn",
        "duplicates --db {db}",
        "duplicates --db {db} --json",
        "cards show --db {db} 1",
        "cards show --db {db} 1 --json",
        "cards stats --db {db}",
        "cards stats --db {db} --json",
        // What goes wrong goes wrong the same way.
        "explore --db {db} --play e4,e5,Ke3",
        "explore --db {db} --where \"reslt = '1-0'\"",
        "games --db {db} --gameset nosuch",
        "export --db {db} --game 999999",
        "names show --db {db} Nobody-At-All",
        "search --db {db} --material KRvKX",
    ]
    .iter()
    .map(|c| {
        shell_words(
            &c.replace(
                "{polyglot}",
                shared("polyglot/gm2001.bin").to_str().unwrap(),
            )
            .replace(
                "{fischer}",
                shared("pgn/pgnmentor/Fischer.pgn").to_str().unwrap(),
            )
            .replace(
                "{rep}",
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/repertoire-hand.pgn")
                    .to_str()
                    .unwrap(),
            ),
        )
    })
    .collect();
    // An export to a Parquet file: the file's bytes are what is compared.
    for c in &mut commands {
        if c.last().is_some_and(|a| a == "{out}.parquet") {
            c.pop();
            c.push("{out}".into());
            c.push("--format".into());
            c.push("parquet".into());
        }
    }
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();

    let alone = run_all(&commands, &db, &out_dir);
    // The commands themselves work (the errors are the ones asked for).
    let failing = failing(&commands, &alone);
    assert_eq!(failing.len(), 6, "{failing:#?}");

    let mut server = Server::start(&["--db", d]);
    // The store is the server's now: a command that does not ask it cannot open it, and
    // says which server holds it (`check` reads the file itself, page by page).
    let locked = run_raw(&["check", "--db", d]);
    let said = String::from_utf8_lossy(&locked.stderr);
    assert!(!locked.status.success(), "{said}");
    assert!(
        said.contains(&format!("the server at {} holds it", server.url)),
        "{said}"
    );
    let served = run_all(&commands, &db, &out_dir);
    same(
        &commands,
        &alone,
        &served,
        "answered differently through the server",
    );

    // Without the secret, the server answers no command's question.
    let (status, body) = send_with(
        "POST",
        &format!("{}api/admin/read?name=stats", server.url),
        "{}",
        &[("Content-Type", "application/json")],
    );
    assert_eq!(status, 401, "{body}");

    assert!(server.stop());
    let after = run_all(&commands, &db, &out_dir);
    same(
        &commands,
        &alone,
        &after,
        "answered differently after the server stopped",
    );
}

#[test]
fn read_commands_answer_the_same_while_a_server_holds_an_othello_database() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let d = db.to_str().unwrap();
    let wtb = shared("wthor/WTH_1981.wtb");
    run_ok(&["import", "--db", d, wtb.to_str().unwrap()]);
    let commands: Vec<Vec<String>> = [
        "explore --db {db}",
        "explore --db {db} --moves f5d6 --json",
        "games --db {db} --moves f5d6c3 --limit 5",
        "games --db {db} --player a --sort date --json",
        "stats --db {db}",
        "stats --db {db} --json",
        "explore --db {db} --moves f5f5",
        "export --db {db}",
    ]
    .iter()
    .map(|c| shell_words(c))
    .collect();
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let alone = run_all(&commands, &db, &out_dir);
    let failing = failing(&commands, &alone);
    assert_eq!(failing.len(), 2, "{failing:#?}");
    let mut server = Server::start(&["--db", d]);
    let served = run_all(&commands, &db, &out_dir);
    same(
        &commands,
        &alone,
        &served,
        "answered differently through the server",
    );
    assert!(server.stop());
}

/// A command line split as a shell would (double quotes group words).
fn shell_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for ch in s.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}
