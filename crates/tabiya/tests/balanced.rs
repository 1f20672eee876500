//! Served by more than one process: two `tabiya serve` over copies of one database behind
//! Debian's haproxy (round robin, health checks) give the answers each gives alone, both
//! serve; then a newly built database, served by two new processes, is swapped in (haproxy
//! reloaded with its listening socket handed over, the old servers stopped gracefully) while
//! a client keeps asking — and no request fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod common;
use common::server::{Server, get};
use common::{run_ok, shared};

fn haproxy() -> Option<PathBuf> {
    ["/usr/sbin/haproxy", "/usr/bin/haproxy"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `127.0.0.1:PORT` of a server's URL.
fn addr(s: &Server) -> String {
    s.url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

fn config(dir: &Path, name: &str, port: u16, socket: &Path, servers: &[&Server]) -> PathBuf {
    let mut text = format!(
        "global\n  stats socket {} mode 600 level admin expose-fd listeners\n\
         defaults\n  mode http\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n  \
         retries 3\n  option redispatch\n\
         frontend explorer\n  bind 127.0.0.1:{port}\n  default_backend tabiya\n\
         backend tabiya\n  balance roundrobin\n  option httpchk GET /api/databases\n",
        socket.display()
    );
    for (i, s) in servers.iter().enumerate() {
        text.push_str(&format!("  server t{i} {} check inter 200ms\n", addr(s)));
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn start_haproxy(bin: &Path, cfg: &Path, take_over: Option<(&Path, u32)>) -> Child {
    let mut cmd = Command::new(bin);
    cmd.arg("-db").arg("-f").arg(cfg);
    if let Some((socket, old)) = take_over {
        cmd.arg("-x").arg(socket).arg("-sf").arg(old.to_string());
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start haproxy")
}

/// GET `url` on a new connection: the status and body, or what failed (status 0).
fn try_get(url: &str) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    match agent.get(url).call() {
        Ok(r) => {
            let status = r.status().as_u16();
            (status, r.into_body().read_to_string().unwrap_or_default())
        }
        Err(e) => (0, e.to_string()),
    }
}

/// Waits until `url` answers 200 with a body containing `want`.
fn wait_for(url: &str, want: &str) {
    let began = Instant::now();
    loop {
        let (status, body) = try_get(url);
        if status == 200 && body.contains(want) {
            return;
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "{url}: {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn games_of(url: &str) -> u64 {
    get(&format!("{url}api/databases")).json()["databases"][0]["games"]
        .as_u64()
        .unwrap()
}

#[test]
fn two_servers_behind_haproxy_answer_alike_and_a_new_database_swaps_in() {
    let Some(bin) = haproxy() else {
        panic!("haproxy is not installed (scripts/test installs Debian's haproxy)");
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = d.join("old");
    run_ok(&[
        "import",
        "--db",
        old.to_str().unwrap(),
        shared("pgn/pgnmentor/Tal.pgn").to_str().unwrap(),
    ]);
    copy_dir(&old, &d.join("old-1"));
    copy_dir(&old, &d.join("old-2"));
    // The new database: the same games and more.
    let new = d.join("new");
    copy_dir(&old, &new);
    run_ok(&[
        "import",
        "--db",
        new.to_str().unwrap(),
        shared("pgn/pgnmentor/Morphy.pgn").to_str().unwrap(),
    ]);
    copy_dir(&new, &d.join("new-1"));
    copy_dir(&new, &d.join("new-2"));
    let serve = |name: &str| {
        let db = format!("games={}", d.join(name).display());
        Server::start(&["--db", &db, "--no-engine", "--access-log"])
    };
    let (mut s1, mut s2) = (serve("old-1"), serve("old-2"));
    let port = free_port();
    let front = format!("http://127.0.0.1:{port}/");
    let socket = d.join("haproxy.sock");
    let cfg = config(d, "old.cfg", port, &socket, &[&s1, &s2]);
    let mut first = start_haproxy(&bin, &cfg, None);
    let old_games = games_of(&s1.url);
    wait_for(
        &format!("{front}api/databases"),
        &format!("\"games\":{old_games}"),
    );

    // The same answers through the balancer as from each server; both serve.
    let asks = [
        "api/explore?play=e2e4,c7c5",
        "masters?play=d2d4,g8f6,c2c4",
        "api/games?play=e2e4,e7e5,g1f3&limit=20",
        "api/game/17",
        "api/transpositions?play=d2d4,g8f6,c2c4,e7e6,g1f3,d7d5",
    ];
    for _round in 0..2 {
        for a in asks {
            let through = get(&format!("{front}{a}"));
            assert_eq!(through.status, 200, "{a}");
            for s in [&s1, &s2] {
                let direct = get(&format!("{}{a}", s.url));
                assert_eq!(direct.json(), through.json(), "{a}");
            }
        }
    }
    for s in [&s1, &s2] {
        assert!(
            s.stderr().contains("/api/explore"),
            "a server answered nothing through the balancer: {}",
            s.stderr()
        );
    }

    // The swap, under a client that keeps asking.
    let (s3, s4) = (serve("new-1"), serve("new-2"));
    let new_games = games_of(&s3.url);
    assert!(new_games > old_games);
    let stop = Arc::new(AtomicBool::new(false));
    let client = {
        let stop = Arc::clone(&stop);
        let front = front.clone();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let (status, body) = try_get(&format!("{front}api/databases"));
                let games = serde_json::from_str::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v["databases"][0]["games"].as_u64());
                seen.push((status, games, body));
                let (status, body) = try_get(&format!("{front}api/explore?play=e2e4"));
                seen.push((status, None, body));
            }
            seen
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let cfg = config(d, "new.cfg", port, &socket, &[&s3, &s4]);
    let mut second = start_haproxy(&bin, &cfg, Some((&socket, first.id())));
    wait_for(
        &format!("{front}api/databases"),
        &format!("\"games\":{new_games}"),
    );
    // Once the new balancer answers, the old servers go (gracefully: SIGTERM).
    assert!(s1.stop());
    assert!(s2.stop());
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    let seen = client.join().unwrap();
    let failed: Vec<_> = seen
        .iter()
        .filter(|(status, _, _)| *status != 200)
        .collect();
    assert!(
        failed.is_empty(),
        "failed requests during the swap: {failed:?}"
    );
    assert!(
        seen.len() > 20,
        "the client asked only {} times",
        seen.len()
    );
    let counts: Vec<u64> = seen.iter().filter_map(|(_, g, _)| *g).collect();
    assert_eq!(counts.first(), Some(&old_games));
    assert_eq!(counts.last(), Some(&new_games));
    // The first balancer has left (soft stop), the second serves.
    let began = Instant::now();
    while first.try_wait().unwrap().is_none() {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "the old haproxy stays"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = second.kill();
    let _ = second.wait();
}
