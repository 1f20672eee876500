//! `tabiya serve` against hostile clients, over real sockets: slow clients (slowloris: a
//! request head trickled a byte at a time, or nothing at all) are closed at the head
//! deadline and do not keep others from their answers; one address cannot take every
//! connection; oversized heads and bodies are refused with their status; paths outside the
//! API get 404 whatever their dots and escapes; a request over its time limit gets 408.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::server::{Server, get};
use common::{run_ok, shared};
use socket2::{Domain, Socket, Type};

/// A chess database of TWIC 920 in `dir`.
fn database(dir: &std::path::Path) -> String {
    let db = dir.join("db").display().to_string();
    run_ok(&[
        "import",
        "--db",
        &db,
        &shared("pgn/twic/twic0920.pgn").display().to_string(),
    ]);
    db
}

/// The server's socket address from its URL.
fn addr(server: &Server) -> SocketAddr {
    server
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("the server's address")
}

/// A connection to `to` from the loopback address `from` (127.0.0.0/8 is all loopback).
fn connect_from(from: [u8; 4], to: SocketAddr) -> TcpStream {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
    let local = SocketAddr::from((from, 0));
    socket.bind(&local.into()).expect("bind a loopback source");
    socket.connect(&to.into()).expect("connect");
    socket.into()
}

/// Everything the server sends until it closes (or `wait` passes: then `None`).
fn read_to_close(stream: &mut TcpStream, wait: Duration) -> Option<Vec<u8>> {
    stream.set_read_timeout(Some(wait)).expect("timeout");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Some(got),
            Err(_) => return None,
        }
    }
}

/// One raw request and the status of its answer.
fn status_of(to: SocketAddr, request: &[u8]) -> u16 {
    let mut s = TcpStream::connect(to).expect("connect");
    // The server may answer (and close) before the whole request is written.
    let _ = s.write_all(request);
    let got = read_to_close(&mut s, Duration::from_secs(30)).expect("an answer");
    let head = String::from_utf8_lossy(&got);
    head.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"))
}

#[test]
fn slow_clients_are_closed_at_the_head_deadline_and_others_are_answered_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let server = Server::start(&[
        "--db",
        &db,
        "--no-engine",
        "--header-timeout",
        "5",
        "--connections-per-peer",
        "100",
    ]);
    let to = addr(&server);
    let expected = get(&format!("{}masters?play=e2e4", server.url)).json();

    // 300 slow clients from 127.0.0.2: a request head begun, then a byte now and then.
    let mut slow: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut s = connect_from([127, 0, 0, 2], to);
            let _ = s.write_all(b"GET /masters HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            s
        })
        .collect();
    let trickle_until = Instant::now() + Duration::from_secs(6);
    // Meanwhile, from 127.0.0.1: every request answered, and answered right.
    let mut answered = 0;
    while Instant::now() < trickle_until {
        for s in &mut slow {
            let _ = s.write_all(b"X");
        }
        let reply = get(&format!("{}masters?play=e2e4", server.url));
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.json(), expected);
        answered += 1;
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(answered > 0);

    // The address's share is 100: the other 200 were told 503 at once; the 100 held were
    // closed at their head deadline, 5 s after they began, though they kept sending (the
    // 300 connect within a few milliseconds: the deadline leaves room on a loaded machine).
    let mut refused = 0;
    let mut closed_quietly = 0;
    for s in &mut slow {
        let got = read_to_close(s, Duration::from_secs(20))
            .expect("every slow client is closed by the server");
        let text = String::from_utf8_lossy(&got);
        if text.starts_with("HTTP/1.1 503") {
            assert!(text.contains("too many connections"), "{text}");
            assert!(
                text.to_ascii_lowercase().contains("retry-after: 1"),
                "{text}"
            );
            refused += 1;
        } else {
            // hyper answers a head that timed out with 408, or closes without a word.
            assert!(
                text.is_empty() || text.starts_with("HTTP/1.1 408"),
                "unexpected answer to a slow client: {text:?}"
            );
            closed_quietly += 1;
        }
    }
    assert_eq!(refused + closed_quietly, 300);
    assert!(
        refused >= 200,
        "at most 100 connections from one address are held: {refused} refused"
    );

    // An idle keep-alive connection (or one that never says anything) is closed too.
    let mut idle = TcpStream::connect(to).unwrap();
    assert!(
        read_to_close(&mut idle, Duration::from_secs(20)).is_some(),
        "an idle connection is closed at the head deadline"
    );
}

#[test]
fn oversized_requests_and_paths_outside_the_api_are_refused_and_time_limits_hold() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let server = Server::start(&["--db", &db, "--no-engine"]);
    let to = addr(&server);

    // A request line of 1 MB and a 100 KB header: 431, the head is bounded at 64 KiB.
    let mut long_line = b"GET /masters?play=".to_vec();
    while long_line.len() < 1 << 20 {
        long_line.extend_from_slice(b"e2e4,");
    }
    long_line.extend_from_slice(b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    assert_eq!(status_of(to, &long_line), 431);
    let mut big_header = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ".to_vec();
    big_header.extend(std::iter::repeat_n(b'a', 100 << 10));
    big_header.extend_from_slice(b"\r\n\r\n");
    assert_eq!(status_of(to, &big_header), 431);
    // Just under the bound it is a request like any other.
    let mut fine_header =
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Big: ".to_vec();
    fine_header.extend(std::iter::repeat_n(b'a', 60 << 10));
    fine_header.extend_from_slice(b"\r\n\r\n");
    assert_eq!(status_of(to, &fine_header), 200);

    // A body over the API's 64 KiB: 413 (sent whole, and announced by Content-Length only).
    let body = vec![b'{'; 200 << 10];
    let mut post = format!(
        "POST /api/novelty HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-chess-pgn\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    post.extend_from_slice(&body);
    assert_eq!(status_of(to, &post), 413);
    let announced = b"POST /api/novelty HTTP/1.1\r\nHost: 127.0.0.1\r\n\
                      Content-Type: application/x-chess-pgn\r\nContent-Length: 10000000000\r\n\r\n";
    assert_eq!(status_of(to, announced), 413);

    // Paths outside the API, however spelled: 404, never a file of the machine.
    for path in [
        "/../../etc/passwd",
        "/assets/../../../etc/passwd",
        "/assets/%2e%2e/%2e%2e/etc/passwd",
        "/assets/..%2f..%2fetc%2fpasswd",
        "/%2e%2e/Cargo.toml",
        "/assets/",
        "/nothing-here",
        "/api/nothing-here",
    ] {
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        let mut s = TcpStream::connect(to).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let got = read_to_close(&mut s, Duration::from_secs(30)).expect("an answer");
        let text = String::from_utf8_lossy(&got);
        let status: u16 = text.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(
            status == 404 || status == 400,
            "{path}: status {status}: {text}"
        );
        assert!(!text.contains("root:"), "{path} gave a file: {text}");
    }
    // A method the API does not have: 405, not a 500.
    assert_eq!(
        status_of(
            to,
            b"PUT /masters HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
        405
    );
    // Garbage instead of HTTP: 400.
    assert_eq!(status_of(to, b"\x00\x01\x02 not http at all\r\n\r\n"), 400);
    drop(server);

    // A time limit far below what counting the database takes: 408, and the server goes on.
    let server = Server::start(&["--db", &db, "--no-engine", "--timeout", "0.000001"]);
    let reply = get(&format!("{}api/stats?db=db", server.url));
    assert_eq!(reply.status, 408, "{}", reply.text());
    drop(server);
    let server = Server::start(&["--db", &db, "--no-engine"]);
    assert_eq!(get(&format!("{}api/stats?db=db", server.url)).status, 200);
}

#[test]
fn the_limits_take_only_sensible_values() {
    for (flag, value) in [
        ("--timeout", "0"),
        ("--timeout", "-1"),
        ("--timeout", "nan"),
        ("--header-timeout", "inf"),
    ] {
        let arg = format!("{flag}={value}");
        let out = common::run_raw(&["serve", "--db", "/nonexistent", &arg]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{flag} {value}: {err}");
    }
}

/// The demo's games, and all of them as one PGN: a repertoire whose check takes seconds of
/// a core (every game a line of it).
fn demo_and_its_pgn(dir: &std::path::Path) -> (String, Vec<u8>) {
    let db = dir.join("demo").display().to_string();
    run_ok(&["demo", "--db", &db, "--no-serve"]);
    let pgn = run_ok(&["export", "--db", &db]).stdout;
    assert!(pgn.len() > 1 << 20, "a repertoire of megabytes");
    (db, pgn)
}

/// CPU seconds a process has used (user and system), from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

fn post_pgn(url: &str, body: &[u8]) -> (u16, Option<String>, serde_json::Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let resp = agent
        .post(url)
        .header("Content-Type", "application/x-chess-pgn")
        .send(body)
        .unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap_or("").to_string());
    let text = resp.into_body().read_to_string().unwrap_or_default();
    (
        status,
        retry,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
    )
}

#[test]
fn a_request_past_its_time_limit_stops_its_work() {
    let dir = tempfile::tempdir().unwrap();
    let (db, pgn) = demo_and_its_pgn(dir.path());
    let server = Server::start(&["--db", &db, "--no-engine", "--timeout", "0.3"]);
    let url = format!("{}api/repertoire/check?side=white", server.url);
    let (status, _, _) = post_pgn(&url, &pgn);
    assert_eq!(status, 408);
    // The check takes seconds of a core: had it run on after its 408, the server would use
    // them now. It stops at its next step instead.
    std::thread::sleep(Duration::from_millis(700));
    let before = cpu_seconds(server.pid());
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_seconds(server.pid()) - before;
    assert!(
        used < 0.5,
        "the server used {used:.2} s of CPU in the 2 s after the request timed out"
    );
    // And it answers as before.
    assert_eq!(get(&format!("{}api/databases", server.url)).status, 200);
}

#[test]
fn heavy_requests_are_answered_a_few_at_a_time_and_the_rest_told_to_retry() {
    let dir = tempfile::tempdir().unwrap();
    let (db, pgn) = demo_and_its_pgn(dir.path());
    let server = Server::start(&["--db", &db, "--no-engine"]);
    let url = format!("{}api/repertoire/check?side=white", server.url);
    let pgn = std::sync::Arc::new(pgn);
    let start = std::sync::Arc::new(std::sync::Barrier::new(8));
    let answers: Vec<_> = (0..8)
        .map(|i| {
            // Each a different repertoire (one game less each), so no answer is cached.
            let text = pgn.clone();
            let url = format!("{url}&name=r{i}");
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                post_pgn(&url, &text)
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().unwrap())
        .collect();
    let busy: Vec<_> = answers.iter().filter(|(s, _, _)| *s == 503).collect();
    let done = answers.iter().filter(|(s, _, _)| *s == 200).count();
    assert!(done >= 1, "{answers:?}");
    assert!(!busy.is_empty(), "8 at once on {} cores: {answers:?}", 2);
    assert_eq!(done + busy.len(), 8, "{answers:?}");
    for (_, retry, e) in busy {
        assert_eq!(retry.as_deref(), Some("1"));
        assert_eq!(e["kind"], "busy", "{e}");
    }
    // Cheap questions are answered meanwhile and after.
    assert_eq!(get(&format!("{}api/databases", server.url)).status, 200);
}

/// Every long loop of an answer stops at its deadline (the one a server sets for each
/// request): the explorer and the games list through a filter (every game of the position
/// judged), criteria judged over every game, games judged for novelties, a repertoire read.
/// Asked with a deadline already passed, each is stopped (of kind `Cancelled`); asked
/// again with time to spare, each is answered.
#[test]
fn long_answers_stop_at_their_deadline() {
    use tabiya_service::filter::Filter;
    use tabiya_service::{ChessPosition, Db, ErrorKind, deadline, explore, games, novelty};
    let dir = tempfile::tempdir().unwrap();
    let (db, pgn) = demo_and_its_pgn(dir.path());
    let db = Db::open(std::path::Path::new(&db)).unwrap();
    let start = ChessPosition::start();
    let rated = Filter {
        rating_min: Some(1),
        ..Default::default()
    };
    let strong = Filter {
        criteria: Some("avgelo >= 2000".to_string()),
        ..Default::default()
    };
    type Ask<'a> = Box<dyn Fn() -> Result<(), tabiya_service::Error> + 'a>;
    let asks: Vec<(&str, Ask)> = vec![
        (
            "the explorer through a filter",
            Box::new(|| explore::games_filtered(&db, &start, &rated, 4, None).map(|_| ())),
        ),
        (
            "the games through a filter",
            Box::new(|| {
                games::chess_filtered(&db, &start, &rated, games::GameSort::Id, 0, 10).map(|_| ())
            }),
        ),
        (
            "criteria over every game",
            Box::new(|| explore::games_filtered(&db, &start, &strong, 4, None).map(|_| ())),
        ),
        (
            "games judged for novelties",
            Box::new(|| novelty::of_bytes(&db, &pgn).map(|_| ())),
        ),
        (
            "a repertoire read",
            Box::new(|| tabiya_service::repertoire::Repertoire::from_pgn("r", &pgn).map(|_| ())),
        ),
    ];
    let passed = Instant::now() - Duration::from_millis(1);
    for (what, ask) in &asks {
        match deadline::within(passed, ask) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Cancelled, "{what}: {e}"),
            Ok(()) => panic!("{what}: answered after its deadline"),
        }
        let spare = Instant::now() + Duration::from_secs(3600);
        if let Err(e) = deadline::within(spare, ask) {
            panic!("{what} with time to spare: {e}");
        }
    }
}
