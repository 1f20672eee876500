//! Tabiya over HTTP: the Lichess-compatible explorer API (`lichess.rs`), Tabiya's own API
//! under `/api/` (`api.rs`), the web page with a board (`pages.rs`, assets embedded), and
//! imports handed over by a local `tabiya import` (`admin.rs`) — every answer from
//! `tabiya-service`, computed off the async threads and cached per database generation.
//!
//! Layers: gzip compression, CORS open for GET, a time limit per request, a size limit on
//! request bodies, an access log when asked; graceful shutdown on Ctrl-C and SIGTERM.
//! Connections are held within limits (`listen.rs`): a deadline and a size for each
//! request's head, a share per peer address, a bound on all.

mod admin;
mod analysis;
mod api;
mod cache;
mod cards;
mod changes;
mod content_type;
mod error;
mod explore;
mod games;
mod gamesets;
mod guard;
mod heavy;
mod lichess;
mod listen;
mod log;
mod novelty;
mod pages;
mod params;
/// The query-string reader, public for the fuzz targets (`fuzz/`) only.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::params::Params;
}
mod player;
mod priority;
mod query;
mod reads;
mod repertoire;
mod search;
mod served;
mod state;
mod warm;
mod write;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tabiya_service::{Db, Error, ErrorKind};
use tower_http::compression::CompressionLayer;
use tower_http::cors::{Any, CorsLayer};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

pub use listen::Limits;

use cache::{Cache, Cached};
use state::{AppState, Served};

/// The default address: loopback, a fixed port.
pub const DEFAULT_BIND: &str = "127.0.0.1:9876";

/// What to serve and how.
#[derive(Debug, Clone)]
pub struct Config {
    pub bind: String,
    /// Databases by name: one directory each, or several opened as one set (read only,
    /// game ids `MEMBER:ID`; see `tabiya_service::dbset`).
    pub dbs: Vec<(String, Vec<PathBuf>)>,
    /// Books by name.
    pub books: Vec<(String, PathBuf)>,
    /// One line per request on standard error.
    pub access_log: bool,
    /// Longest a request may take.
    pub timeout: Duration,
    /// Memory for cached answers, in bytes.
    pub cache_bytes: usize,
    /// The engines `/api/analysis` runs; `None`: no engine.
    pub engine: Option<tabiya_service::engine::EngineSettings>,
    /// Whether the API may edit and delete games (`PATCH`/`DELETE`; see `changes`): the
    /// server's own page gets a grant for changes (`guard.rs`).
    pub writable: bool,
    /// Whether `writable` may go with an address that is not loopback: everyone who can
    /// reach the address can then change the databases.
    pub remote_changes: bool,
    /// Names the server answers to besides IP addresses and `localhost` (`Host`), for a
    /// server reached by name (behind a proxy, on a network).
    pub allow_hosts: Vec<String>,
    /// Origins whose pages may read Tabiya's API (`/api/…`, which holds notes, cards and
    /// preparation), `*` for any; the Lichess-compatible endpoints are open to every origin.
    pub cors_origins: Vec<String>,
    /// What connections may hold: head deadline and size, connections per peer and in all.
    pub limits: Limits,
    /// Verify every page's checksum of each database before serving it (refusing a damaged
    /// one): about half a second a million games.
    pub verify_pages: bool,
    /// Read each database into its page cache in the background once the server listens
    /// (up to the cache's bound), so that positions asked for the first time are answered
    /// from memory, as after the server's first minutes.
    pub warm_cache: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            bind: DEFAULT_BIND.to_string(),
            dbs: Vec::new(),
            books: Vec::new(),
            access_log: false,
            timeout: Duration::from_secs(30),
            cache_bytes: 256 << 20,
            engine: Some(tabiya_service::engine::EngineSettings {
                engines: 1,
                ..Default::default()
            }),
            writable: false,
            remote_changes: false,
            allow_hosts: Vec::new(),
            cors_origins: Vec::new(),
            limits: Limits::default(),
            verify_pages: true,
            warm_cache: true,
        }
    }
}

/// Opens what `config` names and serves it until Ctrl-C or SIGTERM; `ready` is called with
/// the page's URL once the server listens.
pub fn run(config: Config, ready: impl FnOnce(&str)) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("tabiya-serve")
        // Answers are computed on blocking threads: a few per core keep a burst of fresh
        // questions from crowding out the threads that give cached answers.
        .max_blocking_threads(std::thread::available_parallelism().map_or(2, usize::from) * 8)
        .build()
        .map_err(|e| Error::new(ErrorKind::Io, format!("cannot start the server: {e}")))?;
    let result = runtime.block_on(serve(config, ready));
    // Searches still running on blocking threads: no engine outlives the server.
    drop(runtime);
    tabiya_service::engine::kill_all_engines();
    result
}

async fn serve(config: Config, ready: impl FnOnce(&str)) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(&config.bind)
        .await
        .map_err(|e| Error::bad_request(format!("cannot listen on {}: {e}", config.bind)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::new(ErrorKind::Io, e.to_string()))?;
    if config.writable && !addr.ip().is_loopback() && !config.remote_changes {
        return Err(Error::bad_request(format!(
            "--writable on {addr}, an address other machines can reach, lets everyone who reaches it edit and delete games: add --allow-remote-changes to mean that, or serve on 127.0.0.1"
        )));
    }
    let url = format!("http://{addr}/");
    let _ = REQUEST_TIME.set(config.timeout);
    let state = Arc::new(open(&config, &url)?);
    for warning in admin::announce(&state) {
        eprintln!("tabiya serve: {warning}");
    }
    let app = router(Arc::clone(&state), &config);
    let shutdown = shutdown_signal()?;
    let warming = config.warm_cache.then(|| warm::start(&state.dbs));
    ready(&url);
    listen::serve(
        listener,
        app,
        config.limits,
        shutdown,
        Duration::from_secs(10),
    )
    .await;
    if let Some(w) = warming {
        w.stop();
    }
    admin::withdraw(&state);
    Ok(())
}

/// Opens every database and book (errors name them).
fn open(config: &Config, url: &str) -> Result<AppState, Error> {
    if config.dbs.is_empty() && config.books.is_empty() {
        return Err(Error::bad_request(
            "nothing to serve: give --db DIR (or NAME=DIR) and/or --book FILE",
        ));
    }
    let mut dbs = Vec::new();
    for (name, dirs) in &config.dbs {
        if dbs.iter().any(|d: &Arc<Served>| &d.name == name) {
            return Err(Error::bad_request(format!(
                "two databases are named {name:?}: name them with --db NAME=DIR"
            )));
        }
        if config.verify_pages {
            for dir in dirs {
                // Only a store that exists: a missing one gets open_set's own error.
                if Db::exists(dir) {
                    tabiya_service::check::verify_pages(dir)?;
                }
            }
        }
        let db = Db::open_set(dirs)?;
        dbs.push(Arc::new(Served {
            name: name.clone(),
            dir: db.dir_buf(),
            kind: db.kind(),
            db,
            importing: tokio::sync::Mutex::new(()),
        }));
    }
    let mut books = Vec::new();
    for (name, path) in &config.books {
        books.push(served::open_book(name.clone(), path.clone())?);
    }
    // An engine that cannot start leaves the rest served: the analysis endpoint says why.
    let (engines, engine_note) = match &config.engine {
        None => (None, "it was started with --no-engine".to_string()),
        Some(settings) => match tabiya_service::engine::Engines::start(settings) {
            Ok(e) => (Some(Arc::new(e)), String::new()),
            Err(e) if settings.path.is_some() => return Err(e),
            Err(e) => (None, e.to_string()),
        },
    };
    Ok(AppState {
        engines,
        engine_note,
        dbs,
        books,
        cache: Cache::new(config.cache_bytes),
        token: admin::new_token(),
        grant: config.writable.then(admin::new_token),
        heavy: Arc::new(tokio::sync::Semaphore::new(heavy::permits())),
        hosts: config.allow_hosts.clone(),
        url: url.to_string(),
        writable: config.writable,
    })
}

fn router(state: Arc<AppState>, config: &Config) -> Router {
    let heavy = axum::middleware::from_fn_with_state(Arc::clone(&state), heavy::limit);
    // The Lichess-compatible endpoints answer every origin, as Lichess's do: they hold the
    // games' statistics, never a note, a card or a preparation.
    let lichess = Router::new()
        .route("/masters", get(lichess::masters))
        .route("/master", get(lichess::masters))
        .route("/masters/pgn/{id}", get(lichess::masters_pgn))
        .route("/master/pgn/{id}", get(lichess::masters_pgn))
        .route("/lichess", get(lichess::lichess))
        .route("/lichess/history", get(lichess::lichess_history))
        .route("/player", get(lichess::player))
        .route("/personal", get(lichess::player))
        .layer(RequestBodyLimitLayer::new(64 << 10))
        .layer(
            CorsLayer::new()
                .allow_methods([Method::GET])
                .allow_origin(Any),
        );
    let api = Router::new()
        .route("/api/databases", get(api::databases))
        .route("/api/explore", get(explore::explore))
        .route("/api/years", get(explore::years))
        .route("/api/transpositions", get(explore::transpositions))
        .route(
            "/api/later-structures",
            get(explore::later_structures).layer(heavy.clone()),
        )
        .route(
            "/api/novelty",
            get(novelty::stored)
                .post(novelty::sent)
                .layer(heavy.clone()),
        )
        .route("/api/games", get(games::games))
        .route("/api/search", get(search::search).layer(heavy.clone()))
        .route(
            "/api/game/{id}",
            get(api::game)
                .patch(changes::edit)
                .delete(changes::delete_one),
        )
        .route("/api/games/delete", post(changes::delete_many))
        .route(
            "/api/note",
            axum::routing::put(changes::set_note).delete(changes::delete_note),
        )
        .route("/api/cards", get(cards::list))
        .route("/api/cards/{id}/answer", post(cards::answer))
        .route("/api/game/{id}/pgn", get(api::game_pgn))
        .route("/api/books", get(api::books))
        .route("/api/stats", get(api::stats))
        .route(
            "/api/gamesets/{name}",
            get(gamesets::show).delete(gamesets::delete),
        )
        .route("/api/gamesets/{name}/games", get(gamesets::games))
        .route("/api/gamesets/{name}/pgn", get(gamesets::pgn))
        .route("/api/names", get(player::names))
        .route("/api/player", get(player::player))
        .route("/api/prepare", get(player::prepare).layer(heavy.clone()))
        .route("/api/analysis", get(analysis::analyse))
        .route("/api/engine", get(analysis::engine))
        .fallback(api::not_found)
        .layer(RequestBodyLimitLayer::new(64 << 10));
    // A repertoire comes whole in the body (to be read, or followed by a new gameset): a
    // bigger one is allowed.
    let repertoires = Router::new()
        .route("/api/gamesets", get(gamesets::list).post(gamesets::create))
        .route(
            "/api/repertoire",
            post(repertoire::positions).layer(heavy.clone()),
        )
        .route(
            "/api/repertoire/check",
            post(repertoire::check).layer(heavy.clone()),
        )
        .route(
            "/api/repertoire/games",
            post(repertoire::games).layer(heavy),
        )
        .layer(axum::extract::DefaultBodyLimit::max(repertoire::MAX_BODY))
        .layer(RequestBodyLimitLayer::new(repertoire::MAX_BODY));
    // Tabiya's own API is shared with other origins only when asked (`--cors`).
    let mut shared = api.merge(repertoires);
    if !config.cors_origins.is_empty() {
        let origins = if config.cors_origins.iter().any(|o| o == "*") {
            tower_http::cors::AllowOrigin::any()
        } else {
            tower_http::cors::AllowOrigin::list(
                config
                    .cors_origins
                    .iter()
                    .filter_map(|o| axum::http::HeaderValue::from_str(o).ok()),
            )
        };
        shared = shared.layer(
            CorsLayer::new()
                .allow_methods([Method::GET])
                .allow_origin(origins),
        );
    }
    // Never shared with another origin: the page's grant, the hand-over of imports.
    let own = Router::new()
        .route("/api/grant", get(guard::grant))
        .layer(RequestBodyLimitLayer::new(64 << 10));
    // An import handed over is a stream of the files' bytes, gigabytes maybe: no limit on
    // its size, read as it comes (`admin.rs`), never held whole.
    let imports = Router::new()
        .route(guard::IMPORT, post(admin::import))
        .layer(axum::extract::DefaultBodyLimit::disable());
    // What a request that sends something must show: on the routes that take one (the
    // others answer 405 to a method they do not have).
    let sending = axum::middleware::from_fn_with_state(Arc::clone(&state), guard::sending);
    // The read commands' questions (`reads.rs`): outside the time limit below, as the
    // commands that send them have none.
    let reads = Router::new()
        .route(guard::READ, post(reads::read))
        // The largest question: `tabiya novelty FILE.pgn`'s file (at most 64 MiB, the bound
        // of a file of games) as a JSON array of its bytes. Only the secret's holder asks.
        .layer(RequestBodyLimitLayer::new(300 << 20))
        .route_layer(sending.clone())
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            guard::hosts,
        ))
        .with_state(Arc::clone(&state));
    let mut app = Router::new()
        .merge(lichess)
        .merge(own.route_layer(sending.clone()))
        .merge(imports.route_layer(sending.clone()))
        .merge(shared.route_layer(sending))
        .route("/", get(pages::index))
        .route("/assets/{*path}", get(pages::asset))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            guard::hosts,
        ))
        .with_state(state)
        .layer(CompressionLayer::new())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            config.timeout,
        ))
        .merge(reads);
    if config.access_log {
        app = app.layer(axum::middleware::from_fn(log::access_log));
    }
    app
}

/// Ctrl-C or SIGTERM, listened for from now on: the server says it listens only once both
/// stop it gracefully (a signal before that would end it at once).
#[cfg(unix)]
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, Error> {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind| {
        signal(kind)
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot listen for signals: {e}")))
    };
    let mut term = listen(SignalKind::terminate())?;
    let mut int = listen(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
        }
    })
}

/// Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, Error> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// The time limit of a request (`Config::timeout`), set once the server starts.
static REQUEST_TIME: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();

fn request_time() -> Duration {
    REQUEST_TIME
        .get()
        .copied()
        .unwrap_or(Config::default().timeout)
}

/// Runs a question off the async threads (answers read the store and compute).
///
/// The work has the request's time limit as its deadline (`tabiya_service::deadline`): its
/// long loops stop once the request has timed out, rather than run on unseen.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    let until = std::time::Instant::now() + request_time();
    tokio::task::spawn_blocking(move || tabiya_service::deadline::within(until, f))
        .await
        .map_err(|e| Error::new(ErrorKind::Io, format!("the answer failed: {e}")))?
}

/// An answer from the cache, or `compute`'s (then cached). An answer older than its
/// database (an import went through the server since) is given at once and computed again
/// in the background: see [`cache`].
pub(crate) async fn cached(
    state: &Arc<AppState>,
    served: &Arc<Served>,
    key: String,
    content_type: &'static str,
    compute: impl Fn() -> Result<Vec<u8>, Error> + Send + Sync + 'static,
) -> Result<Response, Error> {
    cached_answer(state, served, key, content_type, false, compute).await
}

/// [`cached`] for an answer that shows stored engine evaluations: once another evaluation
/// is stored, it is computed again before it is given.
pub(crate) async fn cached_with_evals(
    state: &Arc<AppState>,
    served: &Arc<Served>,
    key: String,
    content_type: &'static str,
    compute: impl Fn() -> Result<Vec<u8>, Error> + Send + Sync + 'static,
) -> Result<Response, Error> {
    cached_answer(state, served, key, content_type, true, compute).await
}

async fn cached_answer(
    state: &Arc<AppState>,
    served: &Arc<Served>,
    key: String,
    content_type: &'static str,
    evals: bool,
    compute: impl Fn() -> Result<Vec<u8>, Error> + Send + Sync + 'static,
) -> Result<Response, Error> {
    let key = format!("{}|{key}", served.name);
    if let Some(c) = state.cache.get(&key)
        && !c.evals_changed()
    {
        if c.is_stale() {
            state.cache.refresh(&key);
        }
        return Ok(body(c.content_type, c.body.clone()));
    }
    let compute: cache::Compute = Arc::new(compute);
    let generation = served.db.generation();
    let evals_at = evals.then(|| served.db.eval_generation());
    let f = Arc::clone(&compute);
    let bytes = axum::body::Bytes::from(blocking(move || f()).await?);
    state.cache.put(
        key,
        Cached {
            content_type,
            body: bytes.clone(),
            generation,
            evals_at,
            served: Arc::clone(served),
            compute,
        },
    );
    Ok(body(content_type, bytes))
}

fn body(content_type: &'static str, bytes: axum::body::Bytes) -> Response {
    ([(header::CONTENT_TYPE, content_type)], bytes).into_response()
}
