//! A real `tabiya serve` on a free loopback port, for the HTTP and browser tests: started
//! with the given arguments, stopped (SIGTERM, then waited for) when dropped.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use super::BIN;

pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/`
    pub url: String,
    stderr: Arc<std::sync::Mutex<String>>,
}

impl Server {
    /// `tabiya serve ARGS --bind 127.0.0.1:0`, once it says where it listens.
    pub fn start(args: &[&str]) -> Server {
        Server::start_with_env(args, &[])
    }

    /// [`Server::start`] with these environment variables set (`TABIYA_NOW`, say).
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        Server::try_start(args, env).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Server::start_with_env`], or what the server said when it exited without listening.
    pub fn try_start(args: &[&str], env: &[(&str, &str)]) -> Result<Server, String> {
        let mut child = Command::new(BIN)
            .arg("serve")
            .args(args)
            .args(["--bind", "127.0.0.1:0"])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tabiya serve");
        let stderr = Arc::new(std::sync::Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&stderr);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = sink.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        out.read_line(&mut first).expect("the server's first line");
        let Some(url) = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .map(str::to_string)
        else {
            // It ended without listening: what it said, read to the end.
            let _ = child.wait();
            let _ = reader.join();
            let said = stderr.lock().map(|s| s.clone()).unwrap_or_default();
            return Err(format!("no URL in {first:?}; stderr: {said}"));
        };
        // Keep reading its output so it never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while out.read_line(&mut sink).is_ok_and(|n| n > 0) {
                sink.clear();
            }
        });
        Ok(Server { child, url, stderr })
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server wrote on standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Sends SIGTERM and waits; returns whether it exited successfully.
    pub fn stop(&mut self) -> bool {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..200 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

/// A response: status, headers, body.
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// GET `url` with extra request headers; never fails on a status.
pub fn get_with(url: &str, headers: &[(&str, &str)]) -> Reply {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.get(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = resp.status().as_u16();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let content_type = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let mut body = Vec::new();
    resp.into_body()
        .into_reader()
        .read_to_end(&mut body)
        .expect("read the body");
    Reply {
        status,
        content_type,
        headers,
        body,
    }
}

/// GET `url`.
pub fn get(url: &str) -> Reply {
    get_with(url, &[])
}

/// A change sent to `url` (`PATCH`, `POST`, `PUT` with a body; anything else a `DELETE`)
/// as the server's own page sends it: with the page's grant when the server gives one
/// (`GET /api/grant`, a `--writable` server), a JSON body (PGN for the endpoints that read
/// games sent to them). The status and the JSON answer (null when it is not JSON).
#[allow(dead_code)] // not every test binary sends changes
pub fn send(method: &str, url: &str, body: &str) -> (u16, serde_json::Value) {
    let origin = url
        .find("/api/")
        .or_else(|| url[8..].find('/').map(|i| i + 8))
        .map_or(url, |i| &url[..i]);
    let grant = get(&format!("{origin}/api/grant"));
    let grant = (grant.status == 200)
        .then(|| grant.json()["grant"].as_str().map(String::from))
        .flatten();
    let mut headers = vec![("Content-Type", content_type_for(url).to_string())];
    if let Some(g) = grant {
        headers.push(("Authorization", format!("Bearer {g}")));
    }
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    send_with(method, url, body, &headers)
}

/// The type the server takes for a body sent to `url`.
#[allow(dead_code)]
pub fn content_type_for(url: &str) -> &'static str {
    if url.contains("/api/repertoire") || url.contains("/api/novelty") {
        "application/x-chess-pgn"
    } else {
        "application/json"
    }
}

/// A request with these headers only (no grant unless given): the status and the JSON
/// answer (null when it is not JSON).
#[allow(dead_code)]
pub fn send_with(
    method: &str,
    url: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, serde_json::Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    macro_rules! with_headers {
        ($req:expr) => {{
            let mut req = $req;
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req
        }};
    }
    let resp = match method {
        "PATCH" => with_headers!(agent.patch(url)).send(body.as_bytes()),
        "POST" => with_headers!(agent.post(url)).send(body.as_bytes()),
        "PUT" => with_headers!(agent.put(url)).send(body.as_bytes()),
        _ => with_headers!(agent.delete(url)).call(),
    }
    .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = resp.status().as_u16();
    let text = resp.into_body().read_to_string().unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
    )
}
