//! A pool of engines that searches for several clients at once, fairly.
//!
//! Each of `engines` worker threads owns one engine process (started on its first search,
//! started again after a failure). Searches wait in one queue per client; workers take them
//! from the clients in turn, so a client with thousands of searches queued (an annotation)
//! delays another's single search by one search at most. A client may ask that its newer
//! request supersede its older ones (an explorer page following its user from position to
//! position): the older ones, queued or running, are cancelled. Dropping a [`Ticket`]
//! cancels its search; dropping the pool stops every search and reaps every engine.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::error::EngineError;
use crate::process::{Engine, EngineConfig, Search, SearchResult};
use crate::uci::{EngineOption, Info};

/// What a search sends back: its `info` lines as they come, then its end.
#[derive(Debug)]
pub enum Event {
    Info(Box<Info>),
    Done(Result<SearchResult, EngineError>),
}

/// A search handed to the pool.
pub struct Ticket {
    events: Receiver<Event>,
    cancel: Arc<AtomicBool>,
}

impl Ticket {
    /// The next event; `None` once the search is over and every event was taken.
    pub fn next(&self) -> Option<Event> {
        self.events.recv().ok()
    }

    /// The next event, waiting at most `timeout` (`Err(true)` when the search is gone).
    pub fn next_timeout(&self, timeout: std::time::Duration) -> Result<Event, bool> {
        self.events
            .recv_timeout(timeout)
            .map_err(|e| matches!(e, std::sync::mpsc::RecvTimeoutError::Disconnected))
    }

    /// Waits for the end, handing each `info` to `on_info`.
    pub fn wait(self, mut on_info: impl FnMut(&Info)) -> Result<SearchResult, EngineError> {
        while let Ok(e) = self.events.recv() {
            match e {
                Event::Info(i) => on_info(&i),
                Event::Done(r) => return r,
            }
        }
        Err(EngineError::Cancelled("abandoned by the pool"))
    }

    /// Stops the search (its result so far still comes, marked stopped).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// A handle that stops this search from elsewhere.
    pub fn canceller(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.cancel();
    }
}

struct Job {
    search: Search,
    client: String,
    cancel: Arc<AtomicBool>,
    events: Sender<Event>,
}

#[derive(Default)]
struct State {
    /// Clients with queued searches, in turn order, each with its searches in order.
    queues: VecDeque<(String, VecDeque<Job>)>,
    /// Searches being run: (client, cancel flag).
    running: Vec<(String, Arc<AtomicBool>)>,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    config: EngineConfig,
    /// What the first engine started said of itself.
    identity: Mutex<Option<Identity>>,
}

/// An engine's name, author and options.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Identity {
    pub name: String,
    pub author: String,
    pub options: Vec<EngineOption>,
}

impl Identity {
    fn of(e: &Engine) -> Identity {
        Identity {
            name: e.name().to_string(),
            author: e.author().to_string(),
            options: e.options().to_vec(),
        }
    }
}

/// The pool.
pub struct EnginePool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl EnginePool {
    /// A pool of `engines` engines (at least one), each started when first needed.
    pub fn new(config: EngineConfig, engines: usize) -> EnginePool {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            config,
            identity: Mutex::new(None),
        });
        let workers = (0..engines.max(1))
            .filter_map(|i| {
                let s = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("tabiya-engine-{i}"))
                    .spawn(move || work(&s))
                    .ok()
            })
            .collect();
        EnginePool { shared, workers }
    }

    /// Starts an engine now (to fail early on a wrong path or option) and tells what it is.
    pub fn identify(&self) -> Result<Identity, EngineError> {
        if let Some(id) = self.identity() {
            return Ok(id);
        }
        let id = Identity::of(&Engine::start(&self.shared.config)?);
        if let Ok(mut i) = self.shared.identity.lock() {
            *i = Some(id.clone());
        }
        Ok(id)
    }

    /// What the engine said of itself, once one was started.
    pub fn identity(&self) -> Option<Identity> {
        self.shared.identity.lock().ok().and_then(|i| i.clone())
    }

    /// Number of engines.
    pub fn size(&self) -> usize {
        self.workers.len()
    }

    /// Queues a search for `client`. With `supersede`, the client's earlier searches,
    /// queued or running, are cancelled.
    pub fn submit(&self, search: Search, client: &str, supersede: bool) -> Ticket {
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let job = Job {
            search,
            client: client.to_string(),
            cancel: Arc::clone(&cancel),
            events: tx,
        };
        if let Ok(mut st) = self.shared.state.lock() {
            if st.shutdown {
                let _ = job.events.send(Event::Done(Err(EngineError::Cancelled(
                    "refused: the engines are stopping",
                ))));
            } else {
                if supersede {
                    for (c, flag) in &st.running {
                        if c == client {
                            flag.store(true, Ordering::Relaxed);
                        }
                    }
                    if let Some((_, q)) = st.queues.iter_mut().find(|(c, _)| c == client) {
                        for old in q.drain(..) {
                            let _ = old.events.send(Event::Done(Err(EngineError::Cancelled(
                                "superseded by a newer request",
                            ))));
                        }
                    }
                }
                match st.queues.iter_mut().find(|(c, _)| c == client) {
                    Some((_, q)) => q.push_back(job),
                    None => st
                        .queues
                        .push_back((client.to_string(), VecDeque::from([job]))),
                }
                st.queues.retain(|(_, q)| !q.is_empty());
                self.shared.work.notify_one();
            }
        }
        Ticket { events: rx, cancel }
    }

    /// Searches queued or running.
    pub fn pending(&self) -> usize {
        self.shared
            .state
            .lock()
            .map(|s| s.running.len() + s.queues.iter().map(|(_, q)| q.len()).sum::<usize>())
            .unwrap_or(0)
    }
}

impl Drop for EnginePool {
    fn drop(&mut self) {
        if let Ok(mut st) = self.shared.state.lock() {
            st.shutdown = true;
            for (_, q) in st.queues.drain(..) {
                for job in q {
                    let _ = job.events.send(Event::Done(Err(EngineError::Cancelled(
                        "stopped: the engines are stopping",
                    ))));
                }
            }
            for (_, flag) in &st.running {
                flag.store(true, Ordering::Relaxed);
            }
        }
        self.shared.work.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// The next search, the clients taken in turn.
fn next_job(st: &mut State) -> Option<Job> {
    let (client, mut queue) = st.queues.pop_front()?;
    let job = queue.pop_front();
    if !queue.is_empty() {
        st.queues.push_back((client, queue));
    }
    job
}

/// A worker: one engine, searches from the queue until the pool stops.
fn work(shared: &Shared) {
    let mut engine: Option<Engine> = None;
    loop {
        let job = {
            let Ok(mut st) = shared.state.lock() else {
                return;
            };
            loop {
                if st.shutdown {
                    return;
                }
                if let Some(job) = next_job(&mut st) {
                    st.running
                        .push((job.client.clone(), Arc::clone(&job.cancel)));
                    break job;
                }
                st = match shared.work.wait(st) {
                    Ok(s) => s,
                    Err(_) => return,
                };
            }
        };
        let result = if job.cancel.load(Ordering::Relaxed) {
            Err(EngineError::Cancelled("cancelled before it started"))
        } else {
            run(shared, &mut engine, &job)
        };
        if let Ok(mut st) = shared.state.lock() {
            st.running.retain(|(_, f)| !Arc::ptr_eq(f, &job.cancel));
        }
        let _ = job.events.send(Event::Done(result));
    }
}

fn run(
    shared: &Shared,
    engine: &mut Option<Engine>,
    job: &Job,
) -> Result<SearchResult, EngineError> {
    if !engine.as_ref().is_some_and(Engine::is_alive) {
        *engine = None;
        let e = Engine::start(&shared.config)?;
        if let Ok(mut id) = shared.identity.lock()
            && id.is_none()
        {
            *id = Some(Identity::of(&e));
        }
        *engine = Some(e);
    }
    let Some(e) = engine.as_mut() else {
        return Err(EngineError::Cancelled("not started"));
    };
    let events = job.events.clone();
    let cancel = Arc::clone(&job.cancel);
    let r = e.search(&job.search, &job.cancel, |info| {
        // Nobody listens any more: stop.
        if events.send(Event::Info(Box::new(info.clone()))).is_err() {
            cancel.store(true, Ordering::Relaxed);
        }
    });
    if r.is_err() {
        *engine = None;
    }
    r
}
