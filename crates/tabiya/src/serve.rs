//! `tabiya serve`: the explorer over HTTP (the Lichess-compatible API, Tabiya's API) and the
//! web page with a board, for one or more databases and books, until Ctrl-C.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use tabiya_server::{Config, DEFAULT_BIND};

#[derive(Args)]
pub struct ServeArgs {
    /// A database to serve, as DIR or NAME=DIR (default name: the directory's name);
    /// repeatable. NAME=DIR1,DIR2,… serves several chess databases as one set under NAME
    /// (read only; its games are named MEMBER:ID). Default: $TABIYA_DB, else ./tabiya-db.
    #[arg(long = "db", value_name = "[NAME=]DIR[,DIR…]")]
    pub dbs: Vec<String>,
    /// An opening book to serve (CTG, Polyglot, Kvetka), as FILE or NAME=FILE; repeatable.
    #[arg(long = "book", value_name = "[NAME=]FILE")]
    pub books: Vec<String>,
    /// Address to listen on (a loopback address keeps the server to this machine).
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_BIND)]
    pub bind: String,
    /// Log every request on standard error.
    #[arg(long)]
    pub access_log: bool,
    /// Engines analysing at once for /api/analysis and the page's engine panel.
    #[arg(long, default_value_t = 1)]
    pub engines: usize,
    #[command(flatten)]
    pub engine: crate::engine_args::EngineArgs,
    /// Run no engine (the page has no engine panel then).
    #[arg(long, conflicts_with_all = ["engine", "engines"])]
    pub no_engine: bool,
    /// Let the API edit and delete games (PATCH and DELETE /api/game/{id}, POST
    /// /api/games/delete); without it a served database is read only, but for `tabiya edit`
    /// and `tabiya delete` run on the same machine, which hand their change to the server.
    ///
    /// The server's own page gets a grant for changes; other sites' pages get none, and a
    /// program shows the secret written in serve.json (docs/api.md, "Security").
    #[arg(long)]
    pub writable: bool,
    /// With --writable on an address other machines can reach (not loopback): let everyone
    /// who can reach it edit and delete games, and keep notes and gamesets.
    #[arg(long, requires = "writable")]
    pub allow_remote_changes: bool,
    /// A name the server answers to besides IP addresses and localhost (the Host a proxy
    /// or a browser sends); repeatable. Any other name is refused, so that no web page can
    /// reach the server through a name of its own (DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// An origin whose web pages may read Tabiya's API (/api/…: explore's notes, cards,
    /// preparation), like https://example.org, or * for every origin; repeatable. The
    /// Lichess-compatible endpoints are open to every origin without it; no origin may send
    /// changes.
    #[arg(long = "cors", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
    /// Longest a request may take, in seconds (then 408).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Longest wait for a request's head (request line and headers), idle keep-alive
    /// included, in seconds: a slower client is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub header_timeout: f64,
    /// Connections open at once from one address (behind a load balancer or proxy, all its
    /// clients come from its address: raise this).
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub connections_per_peer: usize,
    /// Serve without first verifying every page's checksum of each database (the check
    /// takes about half a second a million games; a damaged database is refused by it).
    #[arg(long)]
    pub no_verify: bool,
    /// Do not read the databases into the page cache in the background once listening (the
    /// cache then fills as positions are asked; its bound is the file's size, at most 4 GiB).
    #[arg(long)]
    pub no_warm: bool,
}

/// `NAME=PATH`, or `PATH` named by its last part.
fn named(arg: &str, what: &str) -> anyhow::Result<(String, PathBuf)> {
    if let Some((name, path)) = arg.split_once('=')
        && !name.is_empty()
        && !name.contains('/')
    {
        return Ok((name.to_string(), PathBuf::from(path)));
    }
    let path = PathBuf::from(arg);
    let name = std::fs::canonicalize(&path)
        .unwrap_or_else(|_| path.clone())
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty());
    match name {
        Some(n) => Ok((n, path)),
        None => bail!("{what} {arg:?}: give it a name with NAME={arg}"),
    }
}

/// `--db`: `[NAME=]DIR`, or `NAME=DIR1,DIR2,…` for a set (a directory whose name holds a
/// comma is served alone when it exists).
fn named_set(arg: &str) -> anyhow::Result<(String, Vec<PathBuf>)> {
    let (name, path) = named(arg, "--db")?;
    let whole = path.display().to_string();
    if !whole.contains(',') || path.exists() {
        return Ok((name, vec![path]));
    }
    if !arg.contains('=') {
        bail!("--db {arg:?}: a set of databases needs a name, like --db NAME={arg}");
    }
    let dirs: Vec<PathBuf> = whole.split(',').map(PathBuf::from).collect();
    if dirs.iter().any(|d| d.as_os_str().is_empty()) {
        bail!("--db {arg:?}: a set names its directories separated by single commas");
    }
    Ok((name, dirs))
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let mut dbs = Vec::new();
    for d in &args.dbs {
        dbs.push(named_set(d)?);
    }
    if dbs.is_empty() && args.books.is_empty() {
        let dir = crate::args::DbArg { db: None }.dir();
        let (name, dir) = named(&dir.display().to_string(), "--db")?;
        dbs.push((name, vec![dir]));
    }
    let mut books = Vec::new();
    for b in &args.books {
        books.push(named(b, "--book")?);
    }
    let config = Config {
        bind: args.bind,
        dbs,
        books,
        access_log: args.access_log,
        engine: if args.no_engine {
            None
        } else {
            Some(args.engine.settings(args.engines)?)
        },
        writable: args.writable,
        remote_changes: args.allow_remote_changes,
        allow_hosts: args.allow_hosts,
        cors_origins: args.cors_origins,
        verify_pages: !args.no_verify,
        warm_cache: !args.no_warm,
        timeout: seconds(args.timeout, "--timeout")?,
        limits: tabiya_server::Limits {
            header_timeout: seconds(args.header_timeout, "--header-timeout")?,
            per_peer: args.connections_per_peer.max(1),
            ..tabiya_server::Limits::default()
        },
        ..Config::default()
    };
    serve(config)
}

/// A positive, finite number of seconds.
fn seconds(value: f64, what: &str) -> anyhow::Result<std::time::Duration> {
    if !(value.is_finite() && value > 0.0 && value <= 86_400.0) {
        bail!("{what} {value}: give a number of seconds above 0 and at most 86400");
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

/// Serves until Ctrl-C, saying where.
pub fn serve(config: Config) -> anyhow::Result<()> {
    let names: Vec<String> = config
        .dbs
        .iter()
        .map(|(n, d)| {
            let dirs: Vec<String> = d.iter().map(|d| d.display().to_string()).collect();
            format!("{n} ({})", dirs.join(", "))
        })
        .chain(
            config
                .books
                .iter()
                .map(|(n, b)| format!("{n} ({})", b.display())),
        )
        .collect();
    tabiya_server::run(config, |url| {
        println!("Tabiya serves {} at {url}", names.join(", "));
        println!("Open {url} in a browser; Ctrl-C stops the server.");
    })?;
    Ok(())
}
