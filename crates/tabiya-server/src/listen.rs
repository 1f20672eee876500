//! Connections: accepted, held within limits, served over HTTP/1.1, closed gracefully.
//!
//! `axum::serve` keeps no clock on a connection, so a client sending its request head one
//! byte a minute (slowloris) holds a connection and a file descriptor for ever, and enough of
//! them leave no descriptor for anyone else. Here every connection has
//! - a deadline for its request head ([`Limits::header_timeout`], from the first byte
//!   awaited, idle keep-alive included): a slow or silent client is closed when it passes;
//! - a bound on its head's size ([`Limits::max_head_bytes`]): a longer request line or
//!   headers get `431` and the connection is closed;
//! - a share: no peer address holds more than [`Limits::per_peer`] connections at once (one
//!   more is told `503` with `Retry-After` and closed), and all peers together no more than
//!   [`Limits::total`] (then accepting waits, in the kernel's queue, for one to close).
//!
//! The request's own time limit and body size limit are layers of the router (`lib.rs`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower_service::Service;

/// What one connection and all of them together may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest wait for a request's head (request line and headers), keep-alive included.
    pub header_timeout: Duration,
    /// Largest request head in bytes.
    pub max_head_bytes: usize,
    /// Connections open at once from one peer address.
    pub per_peer: usize,
    /// Connections open at once in all (bounded by the file descriptors the process may
    /// open: see [`raise_open_files`]).
    pub total: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            max_head_bytes: 64 << 10,
            per_peer: 256,
            total: 4096,
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then lets the requests under way
/// finish (for at most `grace`).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let descriptors = raise_open_files();
    // Keep a few descriptors for the database files, the engines and the log.
    let total = limits
        .total
        .min(descriptors.saturating_sub(64) as usize)
        .max(16);
    let slots = Arc::new(Semaphore::new(total));
    let peers = Arc::new(Peers::default());
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&slots).acquire_owned() => match permit {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors or memory: wait rather than spin (as axum does).
                    if !is_connection_error(&e) {
                        eprintln!("tabiya serve: cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(share) = peers.enter(peer.ip(), limits.per_peer) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            let mut app = app.clone();
            async move { app.call(req).await }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_header_size(limits.max_head_bytes)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(share);
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {},
        () = tokio::time::sleep(grace) => {},
    }
}

/// A peer over its share: told so in a few bytes, then closed.
async fn refuse(mut stream: TcpStream) {
    let answer = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\
                   Content-Type: text/plain\r\nContent-Length: 42\r\n\r\n\
                   too many connections from your address\r\n\r\n";
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.write_all(answer)).await;
    let _ = stream.shutdown().await;
}

/// Errors of one connection that say nothing about the listener (the peer left first).
fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// Open connections by peer address.
#[derive(Default)]
struct Peers {
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of a peer; the count goes down when it is dropped.
struct Share {
    peers: Arc<Peers>,
    ip: IpAddr,
}

impl Peers {
    fn enter(self: &Arc<Self>, ip: IpAddr, most: usize) -> Option<Share> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= most {
            return None;
        }
        *n += 1;
        Some(Share {
            peers: Arc::clone(self),
            ip,
        })
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Raises the soft limit on open files to the hard one and returns it: each connection is
/// a descriptor, and the soft limit (often 1,024) is what a flood of clients meets first.
fn raise_open_files() -> u64 {
    #[allow(unsafe_code)]
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = limit.rlim_max;
            }
        }
        limit.rlim_cur
    }
}
